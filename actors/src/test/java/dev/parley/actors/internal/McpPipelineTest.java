package dev.parley.actors.internal;

import static dev.parley.actors.internal.NodeDriver.ELICITATION;
import static dev.parley.actors.internal.NodeDriver.NO_CAPABILITIES;
import static dev.parley.actors.internal.NodeDriver.dispatch;
import static dev.parley.actors.internal.NodeDriver.toolsCall;
import static dev.parley.actors.internal.TestTools.RELEASE_ARGS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.ParleyNode;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.internal.state.RequestStateKey;
import dev.parley.testing.SpecSchema;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline's one-round paths (DESIGN.md §3): a call that ends in its first round, however
 * it ends, stays a plain request: no entity, nothing journaled. Every test here leaves the
 * journal empty, and checks that it did.
 */
class McpPipelineTest {
    @TempDir
    static Path dataDirectory;

    private static JournalDatabase database;
    private static ParleyNode node;

    @BeforeAll
    static void startNode() {
        database = NodeDriver.configuredJournal(dataDirectory);
        node = NodeDriver.start(database, RequestStateKey.generate());
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @AfterEach
    void nothingWasJournaled() throws Exception {
        assertEquals(List.of(), NodeDriver.journal(database));
    }

    @Test
    void aCallThatCompletesInOneRoundJournalsNothing() throws Exception {
        JsonNode response = dispatch(node, toolsCall(1, "ping", "{}", null, null, ELICITATION), "alice");
        SpecSchema.assertValidResultResponse("CallToolResult", response);
        assertEquals(1, response.get("id").asInt());
        assertEquals("complete", response.at("/result/resultType").asText());
        assertEquals("pong", response.at("/result/content/0/text").asText());
    }

    @Test
    void aQuestionTheClientCannotAnswerEndsTheCallWithMissingCapabilityAndJournalsNothing() throws Exception {
        JsonNode response =
                dispatch(node, toolsCall(2, "schedule_release", RELEASE_ARGS, null, null, NO_CAPABILITIES), "alice");
        SpecSchema.assertValidErrorResponse("MissingRequiredClientCapabilityError", response);
        assertEquals(
                ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
                response.at("/error/code").asInt());
        assertTrue(response.at("/error/data/requiredCapabilities/elicitation").isObject(), response::toString);
    }

    @Test
    void argumentsThatBreakTheInputSchemaAreAToolErrorAndJournalNothing() throws Exception {
        JsonNode response =
                dispatch(node, toolsCall(3, "schedule_release", "{\"service\":42}", null, null, ELICITATION), "alice");
        SpecSchema.assertValidResultResponse("CallToolResult", response);
        assertTrue(response.at("/result/isError").asBoolean(), response::toString);
    }

    @Test
    void aForgedRequestStateIsRefusedWithInvalidParamsAndJournalsNothing() throws Exception {
        String answers = "{\"window\":{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\"}}}";
        JsonNode response = dispatch(
                node, toolsCall(4, "schedule_release", RELEASE_ARGS, "forged-state", answers, ELICITATION), "alice");
        SpecSchema.assertValidErrorResponse("InvalidParamsError", response);
        assertEquals(ErrorCodes.INVALID_PARAMS, response.at("/error/code").asInt());
        assertEquals(
                ToolCallEntity.INVALID_STATE.message(),
                response.at("/error/message").asText());
    }

    @Test
    void anUnknownToolIsInvalidParams() throws Exception {
        JsonNode response = dispatch(node, toolsCall(5, "no_such_tool", "{}", null, null, ELICITATION), "alice");
        SpecSchema.assertValidErrorResponse("InvalidParamsError", response);
    }
}
