package dev.parley.actors.internal;

import static dev.parley.actors.internal.NodeDriver.ELICITATION;
import static dev.parley.actors.internal.NodeDriver.dispatch;
import static dev.parley.actors.internal.NodeDriver.toolsCall;
import static dev.parley.actors.internal.TestTools.RELEASE_ARGS;
import static dev.parley.actors.internal.TestTools.VENUE_ARGS;
import static dev.parley.actors.internal.TestTools.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.NodeDriver.JournalRow;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.internal.JournalEventSerializer;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.internal.state.RequestStateKey;
import dev.parley.testing.SpecSchema;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call whose rounds outlive the node that started them (DESIGN.md §5, §7): its journal is all
 * a new node needs, given the same database and the same requestState key. Each subclass runs
 * this against one database profile.
 */
abstract class NodeRestartContract {

    /** The journal database for one test; the schema need not exist yet. */
    abstract JournalDatabase database();

    @BeforeEach
    void resetCounters() {
        TestTools.resetCounters();
    }

    private static List<String> inputRequestKeys(JsonNode response) {
        List<String> keys = new ArrayList<>();
        response.path("result").path("inputRequests").fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    private static String requestState(JsonNode response, String expectedQuestion) {
        SpecSchema.assertValidResultResponse("InputRequiredResult", response);
        assertEquals("input_required", response.at("/result/resultType").asText());
        assertEquals(List.of(expectedQuestion), inputRequestKeys(response));
        return response.at("/result/requestState").asText();
    }

    private static String text(JsonNode response) {
        SpecSchema.assertValidResultResponse("CallToolResult", response);
        assertEquals("complete", response.at("/result/resultType").asText());
        return response.at("/result/content/0/text").asText();
    }

    @Test
    void aCallAnsweredOnOneNodeCompletesOnANewNodeOverTheSameJournal() throws Exception {
        JournalDatabase database = database();
        RequestStateKey key = RequestStateKey.generate();
        String dateAnswer = "{\"date\":" + accept("{\"date\":\"2026-09-12\"}") + "}";
        String confirmAnswer = "{\"confirm\":" + accept("{\"ok\":true}") + "}";

        String round1State;
        JsonNode round1Outcome;
        try (ParleyNode first = NodeDriver.start(database, key)) {
            JsonNode asked = dispatch(first, toolsCall(1, "book_venue", VENUE_ARGS, null, null, ELICITATION), "alice");
            round1State = requestState(asked, "date");
            round1Outcome = dispatch(
                    first, toolsCall(2, "book_venue", VENUE_ARGS, round1State, dateAnswer, ELICITATION), "alice");
            requestState(round1Outcome, "confirm");
        }
        assertEquals(1, TestTools.RESERVATIONS.get());
        assertEquals(1, TestTools.HOLDS.get());

        try (ParleyNode second = NodeDriver.start(database, key)) {
            // The retry of round 1, repeated on the new node, gets round 1's recorded outcome.
            JsonNode repeated = dispatch(
                    second, toolsCall(3, "book_venue", VENUE_ARGS, round1State, dateAnswer, ELICITATION), "alice");
            String round2State = requestState(repeated, "confirm");
            assertEquals(round1Outcome.at("/result/inputRequests"), repeated.at("/result/inputRequests"));

            JsonNode done = dispatch(
                    second, toolsCall(4, "book_venue", VENUE_ARGS, round2State, confirmAnswer, ELICITATION), "alice");
            assertEquals("Booked 2026-09-12 with reservation-1 and hold-1", text(done));

            JsonNode again = dispatch(
                    second, toolsCall(5, "book_venue", VENUE_ARGS, round2State, confirmAnswer, ELICITATION), "alice");
            assertEquals(done.get("result"), again.get("result"), "a retry of the last round gets the same result");

            JsonNode stranger = dispatch(
                    second, toolsCall(6, "book_venue", VENUE_ARGS, round2State, confirmAnswer, ELICITATION), "bob");
            assertEquals(ErrorCodes.INVALID_PARAMS, stranger.at("/error/code").asInt());
            assertEquals(
                    ToolCallEntity.INVALID_STATE.message(),
                    stranger.at("/error/message").asText());
        }
        assertEquals(1, TestTools.RESERVATIONS.get(), "the step before the first question ran once");
        assertEquals(1, TestTools.HOLDS.get(), "the step between the rounds ran once");

        List<JournalRow> rows = NodeDriver.journal(database);
        assertEquals(
                List.of(
                        "parley.call.started.v1",
                        "parley.call.step-recorded.v1",
                        "parley.call.answers-received.v1",
                        "parley.call.input-requested.v1",
                        "parley.call.answers-received.v1",
                        "parley.call.completed.v1"),
                rows.stream().map(JournalRow::manifest).toList());
        String persistenceId = rows.get(0).persistenceId();
        assertTrue(persistenceId.startsWith(ToolCallEntity.ENTITY_TYPE_KEY.name() + "|"), persistenceId);
        for (int i = 0; i < rows.size(); i++) {
            JournalRow row = rows.get(i);
            assertEquals(persistenceId, row.persistenceId(), "one call, one entity");
            assertEquals(i + 1, row.sequenceNumber());
            assertEquals(JournalEventSerializer.IDENTIFIER, row.serializerId());
            assertNotEquals(-1, row.manifest().indexOf("parley.call."));
        }
    }

    /**
     * A first round that ran no step is answered before its start is written. Should that write be
     * lost with its node, the retry on another node rebuilds the call from the requestState and the
     * retry's arguments, and completes it.
     */
    @Test
    void aFirstRoundWhoseStartWasLostIsRebuiltFromTheRetry() throws Exception {
        JournalDatabase database = database();
        RequestStateKey key = RequestStateKey.generate();
        String window = "{\"window\":" + accept("{\"window\":\"2026-12-24T10:00:00Z\"}") + "}";

        String state;
        String persistenceId;
        try (ParleyNode first = NodeDriver.start(database, key)) {
            state = requestState(
                    dispatch(first, toolsCall(1, "schedule_release", RELEASE_ARGS, null, null, ELICITATION), "alice"),
                    "window");
            persistenceId = writtenBehindTheReply(database).persistenceId();
        }
        NodeDriver.deleteEvents(database, persistenceId); // as if the node had died before the write

        try (ParleyNode second = NodeDriver.start(database, key)) {
            JsonNode stranger =
                    dispatch(second, toolsCall(2, "schedule_release", RELEASE_ARGS, state, window, ELICITATION), "bob");
            assertEquals(
                    ToolCallEntity.INVALID_STATE.message(),
                    stranger.at("/error/message").asText());
            JsonNode otherArguments = dispatch(
                    second,
                    toolsCall(3, "schedule_release", "{\"service\":\"search\"}", state, window, ELICITATION),
                    "alice");
            assertEquals(
                    ToolCallEntity.INVALID_STATE.message(),
                    otherArguments.at("/error/message").asText());
            assertEquals(List.of(), NodeDriver.journal(database), "refused retries start nothing");

            JsonNode done = dispatch(
                    second, toolsCall(4, "schedule_release", RELEASE_ARGS, state, window, ELICITATION), "alice");
            assertEquals("Release of billing scheduled for 2026-12-24T10:00:00Z", text(done));
            JsonNode again = dispatch(
                    second, toolsCall(5, "schedule_release", RELEASE_ARGS, state, window, ELICITATION), "alice");
            assertEquals(done.get("result"), again.get("result"), "a repeated retry gets the recorded result");
        }
        List<JournalRow> rows = NodeDriver.journal(database);
        assertEquals(
                List.of("parley.call.started.v1", "parley.call.answers-received.v1", "parley.call.completed.v1"),
                rows.stream().map(JournalRow::manifest).toList());
        assertTrue(rows.stream().allMatch(row -> row.persistenceId().equals(persistenceId)), rows.toString());
    }

    /**
     * A first round that ran a step is written before its reply, so its start is never the one
     * lost. Should its events be gone anyway, the retry is refused: the step does not run again.
     */
    @Test
    void aFirstRoundWithAStepIsNeverRebuilt() throws Exception {
        JournalDatabase database = database();
        RequestStateKey key = RequestStateKey.generate();
        String dateAnswer = "{\"date\":" + accept("{\"date\":\"2026-09-12\"}") + "}";

        String state;
        try (ParleyNode first = NodeDriver.start(database, key)) {
            state = requestState(
                    dispatch(first, toolsCall(1, "book_venue", VENUE_ARGS, null, null, ELICITATION), "alice"), "date");
            assertEquals(1, NodeDriver.journal(database).size(), "written before the reply, with the step's result");
        }
        NodeDriver.deleteEvents(database, NodeDriver.journal(database).get(0).persistenceId());

        try (ParleyNode second = NodeDriver.start(database, key)) {
            JsonNode refused =
                    dispatch(second, toolsCall(2, "book_venue", VENUE_ARGS, state, dateAnswer, ELICITATION), "alice");
            assertEquals(
                    ToolCallEntity.INVALID_STATE.message(),
                    refused.at("/error/message").asText());
        }
        assertEquals(1, TestTools.RESERVATIONS.get(), "the step ran once");
        assertEquals(List.of(), NodeDriver.journal(database));
    }

    /** The one row a first round writes behind its reply, once it is there. */
    private static JournalRow writtenBehindTheReply(JournalDatabase database) throws Exception {
        List<JournalRow> rows = NodeDriver.journal(database);
        for (int attempt = 0; rows.isEmpty() && attempt < 100; attempt++) {
            Thread.sleep(50);
            rows = NodeDriver.journal(database);
        }
        assertEquals(
                List.of("parley.call.started.v1"),
                rows.stream().map(JournalRow::manifest).toList());
        return rows.get(0);
    }
}
