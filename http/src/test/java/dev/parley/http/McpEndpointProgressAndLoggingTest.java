package dev.parley.http;

import static dev.parley.http.StreamAssertions.assertEndsWithResult;
import static dev.parley.http.StreamAssertions.assertEventStream;
import static dev.parley.http.StreamAssertions.withMethod;
import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request-scoped notifications over HTTP (spec §6.1, §7.1, §7.6): a request with a progress
 * token or a log level is answered as {@code text/event-stream} — its notifications, then the
 * response as the last event; without either it is plain JSON.
 */
class McpEndpointProgressAndLoggingTest {
    private static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        server = FeatureTools.start(new FeatureTools(), data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ObjectNode countUp(int steps) {
        return client.toolCall("count_up", Json.object().put("steps", steps));
    }

    private static ObjectNode withMeta(ObjectNode request, String key, JsonNode value) {
        ((ObjectNode) request.path("params").path("_meta")).set(key, value);
        return request;
    }

    private static List<JsonNode> streamed(ObjectNode request) {
        try (SseConnection stream = SseConnection.open(server.port(), request)) {
            assertEventStream(stream);
            List<JsonNode> messages = stream.readToEnd();
            assertTrue(stream.ended(), "the server ends the stream after the response");
            return messages;
        }
    }

    // --- progress --------------------------------------------------------------------------

    @Test
    void toolCallWithAProgressTokenIsAnsweredAsAnEventStreamThatEndsWithTheResponse() {
        ObjectNode request = withMeta(countUp(3), "progressToken", Json.tree("count-1"));
        List<JsonNode> messages = streamed(request);

        JsonNode result = assertEndsWithResult(messages, request, "CallToolResult");
        assertEquals("counted to 3", result.path("content").path(0).path("text").asText());
        List<JsonNode> progress = withMethod(messages, "notifications/progress");
        assertEquals(3, progress.size(), () -> "three progress notifications: " + messages);
        assertEquals(messages.size() - 1, progress.size(), "nothing but progress before the response");
    }

    @Test
    void progressNotificationsEchoTheTokenAndIncrease() {
        ObjectNode request = withMeta(countUp(4), "progressToken", Json.tree("count-2"));
        List<JsonNode> progress = withMethod(streamed(request), "notifications/progress");

        double previous = Double.NEGATIVE_INFINITY;
        for (JsonNode notification : progress) {
            JsonNode params = notification.path("params");
            assertEquals("\"count-2\"", Json.write(params.get("progressToken")), "the token is echoed as given");
            assertTrue(params.path("progress").asDouble() > previous, () -> "progress increases: " + progress);
            previous = params.path("progress").asDouble();
            assertEquals(4.0, params.path("total").asDouble(), "total");
            assertFalse(
                    params.path("_meta").has(StreamAssertions.SUBSCRIPTION_ID),
                    "no subscriptionId on a request stream");
        }
        assertEquals("step 4", progress.get(3).path("params").path("message").asText());
    }

    @Test
    void integerProgressTokenIsEchoedAsAnInteger() {
        ObjectNode request = withMeta(countUp(2), "progressToken", Json.tree(42));
        List<JsonNode> progress = withMethod(streamed(request), "notifications/progress");

        assertEquals(2, progress.size());
        progress.forEach(p -> assertEquals("42", Json.write(p.path("params").get("progressToken"))));
    }

    @Test
    void aFloodOfProgressStillEndsWithTheResponseAndNeverGoesBackwards() {
        ObjectNode request = withMeta(countUp(2000), "progressToken", Json.tree("flood"));
        List<JsonNode> messages = streamed(request);

        JsonNode result = assertEndsWithResult(messages, request, "CallToolResult");
        assertEquals(
                "counted to 2000", result.path("content").path(0).path("text").asText());
        List<JsonNode> progress = withMethod(messages, "notifications/progress");
        assertTrue(!progress.isEmpty() && progress.size() <= 2000, () -> progress.size() + " progress notifications");
        for (int i = 1; i < progress.size(); i++) {
            assertTrue(
                    progress.get(i).path("params").path("progress").asDouble()
                            > progress.get(i - 1)
                                    .path("params")
                                    .path("progress")
                                    .asDouble(),
                    "progress increases");
        }
    }

    @Test
    void toolCallWithoutAProgressTokenIsPlainJson() {
        ObjectNode request = countUp(3);
        JsonNode result = assertCompleted(client.send(request), request);
        assertEquals("counted to 3", result.path("content").path(0).path("text").asText());
    }

    @Test
    void clientThatDoesNotAcceptEventStreamsGetsPlainJsonEvenWithAProgressToken() {
        ObjectNode request = withMeta(countUp(2), "progressToken", Json.tree("json-only"));
        assertCompleted(client.send(request, Map.of("Accept", "application/json")), request);
    }

    @Test
    void progressTokenThatIsNeitherStringNorIntegerIsInvalidParams() {
        ObjectNode request = withMeta(countUp(1), "progressToken", Json.object().put("not", "a token"));
        assertError(client.send(request), 400, -32602, request);
    }

    @Test
    void promptsGetWithAProgressTokenEndsItsStreamWithTheGetPromptResult() {
        ObjectNode params = Json.object().put("name", "greeting");
        params.set("arguments", Json.object().put("name", "Ada"));
        ObjectNode request = withMeta(client.request("prompts/get", params), "progressToken", Json.tree("prompt-1"));

        JsonNode result = assertEndsWithResult(streamed(request), request, "GetPromptResult");
        assertEquals("complete", result.path("resultType").asText());
    }

    @Test
    void oneRoundWithoutProgressStillEndsTheStreamWithTheResponseAlone() {
        ObjectNode request = withMeta(countUp(0), "progressToken", Json.tree("none"));
        List<JsonNode> messages = streamed(request);
        assertEquals(1, messages.size(), () -> "only the response: " + messages);
        assertEndsWithResult(messages, request, "CallToolResult");
    }

    // --- logging (deprecated) --------------------------------------------------------------

    @Test
    void logMessagesAreSentOnlyAtOrAboveTheRequestedLevel() {
        ObjectNode request = withMeta(client.toolCall("log_levels", Json.object()), LOG_LEVEL, Json.tree("warning"));
        List<JsonNode> messages = streamed(request);

        assertEndsWithResult(messages, request, "CallToolResult");
        List<JsonNode> logs = withMethod(messages, "notifications/message");
        assertEquals(
                List.of("warning", "error"),
                logs.stream().map(m -> m.path("params").path("level").asText()).toList(),
                () -> "levels sent: " + messages);
        JsonNode warning = logs.get(0).path("params");
        assertEquals("tests", warning.path("logger").asText());
        assertEquals("warning line", warning.path("data").path("detail").asText(), "structured data is sent as JSON");
        JsonNode error = logs.get(1).path("params");
        assertFalse(error.has("logger"), "no logger when the tool named none");
        assertEquals("error line", error.path("data").asText());
    }

    @Test
    void debugLevelLetsEveryLogMessageThrough() {
        ObjectNode request = withMeta(client.toolCall("log_levels", Json.object()), LOG_LEVEL, Json.tree("debug"));
        List<JsonNode> logs = withMethod(streamed(request), "notifications/message");
        assertEquals(
                List.of("debug", "info", "warning", "error"),
                logs.stream().map(m -> m.path("params").path("level").asText()).toList());
    }

    @Test
    void emergencyLevelLetsNoneOfTheseMessagesThrough() {
        ObjectNode request = withMeta(client.toolCall("log_levels", Json.object()), LOG_LEVEL, Json.tree("emergency"));
        List<JsonNode> messages = streamed(request);
        assertEquals(1, messages.size(), () -> "only the response: " + messages);
        assertEndsWithResult(messages, request, "CallToolResult");
    }

    @Test
    void withoutALogLevelNoLogMessageIsSent() {
        ObjectNode request = client.toolCall("log_levels", Json.object());
        McpTestClient.Reply reply = client.send(request);
        assertCompleted(reply, request);
        assertFalse(reply.body().contains("notifications/message"), "plain JSON, no log message");
    }

    @Test
    void aProgressTokenAloneDoesNotTurnOnLogMessages() {
        ObjectNode request = withMeta(client.toolCall("log_levels", Json.object()), "progressToken", Json.tree("p"));
        List<JsonNode> messages = streamed(request);
        assertEndsWithResult(messages, request, "CallToolResult");
        assertTrue(withMethod(messages, "notifications/message").isEmpty(), () -> "no log messages: " + messages);
    }

    @Test
    void unknownLogLevelIsInvalidParams() {
        ObjectNode request = withMeta(client.toolCall("log_levels", Json.object()), LOG_LEVEL, Json.tree("verbose"));
        assertError(client.send(request), 400, -32602, request);
    }

    @Test
    void logLevelOnARequestThatLogsNothingStillAnswersTheRequest() {
        ObjectNode request = withMeta(client.request("tools/list", null), LOG_LEVEL, Json.tree("info"));
        List<JsonNode> messages = streamed(request);
        assertEquals(1, messages.size(), () -> "only the response: " + messages);
        assertEndsWithResult(messages, request, "ListToolsResult");
    }

    @Test
    void serverStillAnswersPlainRequestsAfterStreamedOnes() {
        streamed(withMeta(countUp(2), "progressToken", Json.tree("before")));
        ObjectNode request = client.request("tools/list", null);
        assertResult(client.send(request), request, "ListToolsResult");
    }
}
