package dev.parley.actors.internal;

import static dev.parley.actors.internal.NodeDriver.ELICITATION;
import static dev.parley.actors.internal.NodeDriver.dispatch;
import static dev.parley.actors.internal.NodeDriver.toolsCall;
import static dev.parley.actors.internal.TestTools.VENUE_ARGS;
import static dev.parley.actors.internal.TestTools.accept;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.NodeConfig;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.NodeDriver.JournalRow;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.internal.state.RequestStateKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory written by a node on H2 (the default before SQLite), opened by a node on the
 * default store: its journal moves to SQLite at start, and its calls go on where they were.
 */
class NodeOnAnH2DataDirectoryTest {
    private static final String DATE_ANSWER = "{\"date\":" + accept("{\"date\":\"2026-09-12\"}") + "}";
    private static final String CONFIRM_ANSWER = "{\"confirm\":" + accept("{\"ok\":true}") + "}";

    @TempDir
    Path dataDirectory;

    @BeforeEach
    void resetCounters() {
        TestTools.resetCounters();
    }

    @Test
    void theWaitingCallsOfAnH2JournalAreAnsweredOnTheDefaultStoreAndACompletedCallKeepsItsHistory() throws Exception {
        RequestStateKey key = RequestStateKey.generate();
        JournalDatabase h2 = new JournalDatabase.H2File(dataDirectory);
        String askedForDate;
        String askedToConfirm;
        String completedState;
        JsonNode completed;
        try (ParleyNode onH2 = NodeDriver.start(h2, key)) {
            askedForDate = requestState(dispatch(onH2, call(1, null, null), "alice"), "date");
            String first = requestState(dispatch(onH2, call(2, null, null), "alice"), "date");
            askedToConfirm = requestState(dispatch(onH2, call(3, first, DATE_ANSWER), "alice"), "confirm");
            String second = requestState(dispatch(onH2, call(4, null, null), "alice"), "date");
            completedState = requestState(dispatch(onH2, call(5, second, DATE_ANSWER), "alice"), "confirm");
            completed = dispatch(onH2, call(6, completedState, CONFIRM_ANSWER), "alice");
            assertEquals("Booked 2026-09-12 with reservation-3 and hold-2", text(completed));
        }
        List<JournalRow> written = NodeDriver.journal(h2);

        JournalDatabase database = JournalDatabase.fromConfig(NodeConfig.load(ConfigFactory.empty()), dataDirectory);
        assertInstanceOf(JournalDatabase.SqliteFile.class, database, "SQLite is the default store");
        try (ParleyNode onSqlite = NodeDriver.start(database, key)) {
            assertEquals(written, NodeDriver.journal(database), "every event of every call, in order");
            assertFalse(Files.exists(dataDirectory.resolve("journal.mv.db")), "the H2 file is not read again");
            assertTrue(Files.exists(dataDirectory.resolve("journal.mv.db.migrated-to-sqlite")));

            JsonNode again = dispatch(onSqlite, call(7, completedState, CONFIRM_ANSWER), "alice");
            assertEquals(completed.get("result"), again.get("result"), "the completed call's recorded result");

            String confirm = requestState(dispatch(onSqlite, call(8, askedForDate, DATE_ANSWER), "alice"), "confirm");
            assertEquals(
                    "Booked 2026-09-12 with reservation-1 and hold-3",
                    text(dispatch(onSqlite, call(9, confirm, CONFIRM_ANSWER), "alice")));
            assertEquals(
                    "Booked 2026-09-12 with reservation-2 and hold-1",
                    text(dispatch(onSqlite, call(10, askedToConfirm, CONFIRM_ANSWER), "alice")));
        }
        assertEquals(3, TestTools.RESERVATIONS.get(), "no step of a migrated call ran again");
        assertEquals(3, TestTools.HOLDS.get());
        List<JournalRow> after = NodeDriver.journal(database);
        assertTrue(after.containsAll(written), "the migrated events stay");
        // The first call: answers, the hold step and the next question, then answers and the outcome; the second: two.
        assertEquals(written.size() + 7, after.size(), "the answered calls' new events follow the migrated ones");
    }

    @Test
    void aNodeOnTheDefaultStoreRefusesToStartOnAnH2FileItCannotRead() throws Exception {
        byte[] unreadable = "not an H2 database".getBytes(StandardCharsets.UTF_8);
        Files.write(dataDirectory.resolve("journal.mv.db"), unreadable);
        JournalDatabase database = JournalDatabase.fromConfig(NodeConfig.load(ConfigFactory.empty()), dataDirectory);

        IllegalStateException refused =
                assertThrows(IllegalStateException.class, () -> NodeDriver.start(database, RequestStateKey.generate()));

        assertTrue(refused.getMessage().startsWith("cannot migrate the H2 journal"), refused.getMessage());
        assertArrayEquals(unreadable, Files.readAllBytes(dataDirectory.resolve("journal.mv.db")));
        assertFalse(Files.exists(dataDirectory.resolve("journal.sqlite")));
        assertFalse(Files.exists(dataDirectory.resolve("journal.sqlite.migrating")));
    }

    private static byte[] call(int id, String requestState, String answers) {
        return toolsCall(id, "book_venue", VENUE_ARGS, requestState, answers, ELICITATION);
    }

    private static String requestState(JsonNode response, String question) {
        assertEquals("input_required", response.at("/result/resultType").asText(), response::toString);
        assertTrue(response.at("/result/inputRequests").has(question), response::toString);
        return response.at("/result/requestState").asText();
    }

    private static String text(JsonNode response) {
        assertEquals("complete", response.at("/result/resultType").asText(), response::toString);
        return response.at("/result/content/0/text").asText();
    }
}
