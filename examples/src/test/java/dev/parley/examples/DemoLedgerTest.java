package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ledger's file format holds whatever its fields contain, and each key once. */
class DemoLedgerTest {
    @TempDir
    Path data;

    @Test
    void fieldsThatLookLikeRecordsStayFieldsOfOneEntry() throws Exception {
        DemoLedger ledger = new DemoLedger(data);
        List<String> hostile = List.of(
                "x\nbooking BKG-evil 2027-06-01 5 ",
                "x\r\n{\"kind\":\"booking\",\"key\":\"k\",\"fields\":[\"BKG-evil\",\"2027-06-01\",\"5\"]}",
                "\"}],\"kind\":\"booking",
                "line\u2028separator\u0085next\u0000nul",
                "\\n escaped? \\\"");
        for (int i = 0; i < hostile.size(); i++) {
            assertTrue(ledger.append("release", "key-" + i, "REL-" + i, hostile.get(i), "2027-01-01T00:00:00Z"));
        }

        List<DemoLedger.Entry> entries = new DemoLedger(data).entries();
        assertEquals(hostile.size(), entries.size(), () -> "entries: " + entries);
        for (int i = 0; i < hostile.size(); i++) {
            assertEquals(
                    new DemoLedger.Entry(
                            "release", "key-" + i, List.of("REL-" + i, hostile.get(i), "2027-01-01T00:00:00Z")),
                    entries.get(i));
        }
        assertEquals(0, ledger.count("booking"));
        assertEquals(
                hostile.size(),
                Files.readAllLines(ledger.file(), StandardCharsets.UTF_8).size(),
                "one line per entry");
    }

    @Test
    void anEffectUnderAKeyAlreadyInTheLedgerIsNotWrittenAgain() {
        DemoLedger ledger = new DemoLedger(data);
        assertTrue(ledger.append("report", "k1", "RPT-1", "website", "Q3"));
        assertFalse(ledger.append("report", "k1", "RPT-1", "website", "Q3"), "the re-run of an effect");
        assertFalse(new DemoLedger(data).append("report", "k1", "RPT-1", "website", "Q3"), "from another instance");
        assertTrue(ledger.append("report", "k2", "RPT-2", "website", "Q3"));
        assertEquals(List.of("report RPT-1 website Q3", "report RPT-2 website Q3"), ledger.lines());
    }

    @Test
    void aLineTornByACrashIsSkippedAndTheNextEntryStartsALineOfItsOwn() throws Exception {
        DemoLedger ledger = new DemoLedger(data);
        ledger.append("deposit", "deposit:a", "a");
        Files.writeString(ledger.file(), "{\"kind\":\"booking\",\"key\":\"x\",\"fie", StandardOpenOption.APPEND);

        assertEquals(List.of("deposit a"), new DemoLedger(data).lines());
        assertTrue(ledger.append("deposit", "deposit:b", "b"));
        assertEquals(List.of("deposit a", "deposit b"), new DemoLedger(data).lines());
    }

    @Test
    void lookupsByKindAndFieldSeeWhatAnotherInstanceAppended() throws Exception {
        DemoLedger ledger = new DemoLedger(data);
        DemoLedger otherProcess = new DemoLedger(data);
        ledger.append("booking", "book:1", "BKG-1", "2027-06-01", "5");
        otherProcess.append("booking", "book:2", "BKG-2", "2027-06-02", "8");
        otherProcess.append("release", "rel:1", "REL-1", "2027-06-01");

        assertEquals(
                List.of(new DemoLedger.Entry("booking", "book:2", List.of("BKG-2", "2027-06-02", "8"))),
                ledger.entriesWith("booking", 1, "2027-06-02"));
        assertEquals(
                List.of("BKG-1"),
                ledger.entriesWith("booking", 1, "2027-06-01").stream()
                        .map(e -> e.fields().get(0))
                        .toList());
        assertEquals(List.of(), ledger.entriesWith("booking", 0, "2027-06-01"), "another field's value");
        assertEquals(2, ledger.count("booking"));
        assertTrue(ledger.contains("booking", "BKG-2", "2027-06-02", "8"));
        assertFalse(ledger.contains("booking", "BKG-2", "2027-06-01", "8"));
        assertFalse(ledger.contains("release", "REL-1"), "fields must all match");
        assertFalse(ledger.append("release", "rel:1", "REL-1", "2027-06-01"), "a key another instance wrote");

        Files.delete(ledger.file());
        assertEquals(0, ledger.count("booking"), "a file replaced by a shorter one is read again");
        assertEquals(List.of(), ledger.entriesWith("booking", 1, "2027-06-02"));
        assertTrue(ledger.append("release", "rel:1", "REL-1", "2027-06-01"));
    }
}
