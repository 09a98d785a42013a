package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several JVMs append to one ledger at once, each with a thread of its own reading the ledger
 * all along (a reader in the writer's process is what could release its file lock), and this JVM
 * reads too: every entry is there once, no line is torn or overwritten, and of the keys all
 * writers race for, each is written by exactly one of them.
 */
class DemoLedgerProcessesTest {
    private static final int WRITERS = 4;
    private static final int OWN_ENTRIES = 120;
    private static final int SHARED_ENTRIES = 60;

    @TempDir
    Path data;

    @Test
    void concurrentProcessesLoseNoEntryAndWriteEachKeyOnce() throws Exception {
        List<Process> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            writers.add(new ProcessBuilder(
                            DemoProcess.java(),
                            "-Xmx64m",
                            "-XX:TieredStopAtLevel=1",
                            "-cp",
                            classpath(),
                            Writer.class.getName(),
                            data.toString(),
                            "w" + w)
                    .redirectErrorStream(true)
                    .start());
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        List<String> readerProblems = new ArrayList<>();
        Thread reader = new Thread(() -> {
            DemoLedger ledger = new DemoLedger(data);
            List<DemoLedger.Entry> before = List.of();
            while (writing.get()) {
                List<DemoLedger.Entry> now = new DemoLedger(data).entries();
                if (!now.subList(0, Math.min(before.size(), now.size())).equals(before) || now.size() < before.size()) {
                    readerProblems.add("a later read is no extension of an earlier one: " + before.size() + " then "
                            + now.size() + " entries");
                }
                before = now;
                ledger.count("entry"); // the incremental reader too
            }
        });
        reader.start();

        Map<String, Integer> sharedWrittenBy = new HashMap<>();
        for (Process writer : writers) {
            if (!writer.waitFor(120, TimeUnit.SECONDS)) {
                writers.forEach(Process::destroyForcibly);
                fail("a writer did not finish within 120 s");
            }
            String output = new String(writer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, writer.exitValue(), output);
            for (String line : output.lines().toList()) {
                if (line.startsWith("wrote ")) {
                    sharedWrittenBy.merge(line.substring("wrote ".length()), 1, Integer::sum);
                }
            }
        }
        writing.set(false);
        reader.join();

        assertEquals(List.of(), readerProblems);
        List<String> rawLines = Files.readAllLines(new DemoLedger(data).file(), StandardCharsets.UTF_8);
        List<DemoLedger.Entry> entries = new DemoLedger(data).entries();
        assertEquals(rawLines.size(), entries.size(), "every line is one whole entry");
        int expected = WRITERS * OWN_ENTRIES + SHARED_ENTRIES;
        assertEquals(expected, entries.size());
        assertEquals(
                expected, entries.stream().map(DemoLedger.Entry::key).distinct().count(), "each key once");
        for (int w = 0; w < WRITERS; w++) {
            for (int i = 0; i < OWN_ENTRIES; i++) {
                assertTrue(new DemoLedger(data).contains("entry", "w" + w, String.valueOf(i)), "w" + w + " #" + i);
            }
        }
        for (int i = 0; i < SHARED_ENTRIES; i++) {
            assertEquals(1, sharedWrittenBy.getOrDefault("shared:" + i, 0), "writers told they wrote shared:" + i);
        }
    }

    private static String classpath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    /**
     * One writer process: {@code <data> <name>}. Appends its own entries, interleaved with keys
     * every writer races for (printing "wrote KEY" for each it was the one to write), while a
     * thread of its own keeps reading the ledger.
     */
    public static final class Writer {
        public static void main(String[] args) throws IOException, InterruptedException {
            Path data = Path.of(args[0]);
            String name = args[1];
            DemoLedger ledger = new DemoLedger(data);
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread reader = new Thread(() -> {
                DemoLedger own = new DemoLedger(data);
                while (writing.get()) {
                    own.count("entry");
                    ledger.entries();
                }
            });
            reader.start();
            for (int i = 0; i < OWN_ENTRIES; i++) {
                ledger.append("entry", name + ":" + i, name, String.valueOf(i));
                if (i % 2 == 0 && ledger.append("shared", "shared:" + i / 2, String.valueOf(i / 2))) {
                    System.out.println("wrote shared:" + i / 2);
                }
            }
            writing.set(false);
            reader.join();
        }
    }
}
