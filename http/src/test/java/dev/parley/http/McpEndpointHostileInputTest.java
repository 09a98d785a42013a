package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values JSON syntax allows but MCP requests never hold (lone surrogates, non-finite numbers),
 * on every method and in every part of a request: refused with -32602 before any handler runs
 * or anything is journaled.
 */
class McpEndpointHostileInputTest {
    /** Placeholders replaced in the request text: Jackson would write the real values unescaped. */
    private static final String BAD_STRING = "@@bad-string@@";

    private static final String BAD_NUMBER = "@@bad-number@@";

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static final TestTools tools = new TestTools();

    @BeforeAll
    static void start() {
        // The journal's rows are counted around each request: every first round is written before its answer.
        server = TestTools.start(tools, data, "parley.first-round-behind-reply = off");
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** One request of every method the endpoint serves, with a place a hostile value can go. */
    private static Map<String, ObjectNode> everyMethod() {
        Map<String, ObjectNode> requests = new LinkedHashMap<>();
        requests.put("server/discover", client.request("server/discover", null));
        requests.put("tools/list", client.request("tools/list", McpTestClient.object("{\"cursor\":\"c\"}")));
        requests.put("prompts/list", client.request("prompts/list", null));
        requests.put("resources/list", client.request("resources/list", null));
        requests.put("resources/templates/list", client.request("resources/templates/list", null));
        requests.put(
                "completion/complete",
                client.request(
                        "completion/complete",
                        McpTestClient.object(
                                "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"p\"},\"argument\":{\"name\":\"a\",\"value\":\"b\"}}")));
        requests.put("tools/call", client.toolCall("greet", McpTestClient.object("{\"greeting\":\"Hello\"}")));
        requests.put(
                "prompts/get",
                client.request("prompts/get", McpTestClient.object("{\"name\":\"p\",\"arguments\":{}}")));
        requests.put(
                "resources/read", client.request("resources/read", McpTestClient.object("{\"uri\":\"test://r\"}")));
        requests.put("tasks/get", client.taskRequest("tasks/get", "t-1"));
        requests.put("tasks/update", client.taskUpdate("t-1", McpTestClient.answer("q", "decline")));
        requests.put("tasks/cancel", client.taskRequest("tasks/cancel", "t-1"));
        requests.put("subscriptions/listen", client.request("subscriptions/listen", null));
        return requests;
    }

    private static Reply sendWith(ObjectNode request, String placeholder, String replacement) {
        Map<String, String> headers = McpTestClient.standardHeaders(request);
        return client.post(Json.write(request).replace("\"" + placeholder + "\"", replacement), headers);
    }

    private static void assertRefusedBeforeAnythingRuns(
            ObjectNode request, String placeholder, String replacement, String where) {
        long journaled = JournalRows.count(data);
        Reply reply = sendWith(request, placeholder, replacement);
        String message =
                assertError(reply, 400, -32602, request).path("message").asText();
        assertTrue(message.startsWith("Invalid request: " + where), () -> request.path("method") + ": " + message);
        assertEquals(journaled, JournalRows.count(data), "nothing journaled for " + request.path("method"));
    }

    @Test
    void aLoneSurrogateInMetaIsRefusedOnEveryMethod() {
        everyMethod().forEach((method, request) -> {
            ((ObjectNode) request.path("params").path("_meta")).put("vendor/note", BAD_STRING);
            assertRefusedBeforeAnythingRuns(
                    request, BAD_STRING, "\"x\\ud800\"", "/params/_meta/vendor~1note has a string");
        });
    }

    @Test
    void aNonFiniteNumberInMetaIsRefusedOnEveryMethod() {
        everyMethod().forEach((method, request) -> {
            ((ObjectNode) request.path("params").path("_meta")).put("progressToken", BAD_NUMBER);
            assertRefusedBeforeAnythingRuns(request, BAD_NUMBER, "1e309", "/params/_meta/progressToken is a number");
        });
    }

    @Test
    void hostileArgumentsAnswersStatesCursorsAndIdsAreRefused() {
        ObjectNode call = client.toolCall("echo", McpTestClient.object("{\"text\":\"" + BAD_STRING + "\"}"));
        assertRefusedBeforeAnythingRuns(call, BAD_STRING, "\"\\ud800-x\"", "/params/arguments/text");

        ObjectNode number =
                client.toolCall("plan_trip", McpTestClient.object("{\"travellers\":\"" + BAD_NUMBER + "\"}"));
        assertRefusedBeforeAnythingRuns(number, BAD_NUMBER, "1e309", "/params/arguments/travellers");

        ObjectNode list = client.request("tools/list", McpTestClient.object("{\"cursor\":\"" + BAD_STRING + "\"}"));
        assertRefusedBeforeAnythingRuns(list, BAD_STRING, "\"\\udc00\"", "/params/cursor");

        // A real first round, then retries whose answers or state hold hostile values.
        ObjectNode greet = client.toolCall("greet", McpTestClient.object("{\"greeting\":\"Hello\"}"));
        Reply first = client.send(greet);
        assertInputRequired(first, greet);
        ObjectNode answer =
                McpTestClient.accept("who", McpTestClient.object("{\"name\":\"" + BAD_STRING + "\",\"age\":3}"));
        assertRefusedBeforeAnythingRuns(
                client.retry(greet, first.requestState(), answer),
                BAD_STRING,
                "\"Bob\\udbff\"",
                "/params/inputResponses/who/content/name");
        ObjectNode age =
                McpTestClient.accept("who", McpTestClient.object("{\"name\":\"Bob\",\"age\":\"" + BAD_NUMBER + "\"}"));
        assertRefusedBeforeAnythingRuns(
                client.retry(greet, first.requestState(), age),
                BAD_NUMBER,
                "-1e400",
                "/params/inputResponses/who/content/age");
        ObjectNode state = client.retry(
                greet, BAD_STRING, McpTestClient.accept("who", McpTestClient.object("{\"name\":\"Bob\",\"age\":3}")));
        assertRefusedBeforeAnythingRuns(
                state, BAD_STRING, "\"" + first.requestState() + "\\ud800\"", "/params/requestState");

        // The call is intact: the same state with sound answers completes it, and the step ran once.
        int before = tools.greetings.get();
        ObjectNode sound = client.retry(
                greet,
                first.requestState(),
                McpTestClient.accept("who", McpTestClient.object("{\"name\":\"Bob\",\"age\":3}")));
        Reply done = client.send(sound);
        assertTrue(assertCompleted(done, sound).toString().contains("Hello, Bob (3)!"), done::body);
        assertEquals(before + 1, tools.greetings.get());
    }

    @Test
    void anIdThatIsNotValidUnicodeIsRefusedAndNotEchoed() {
        ObjectNode request = client.request("tools/list", null);
        request.put("id", BAD_STRING);
        Reply reply = sendWith(request, BAD_STRING, "\"\\ud800\"");
        assertEquals(400, reply.status(), reply::body);
        assertEquals(-32602, reply.errorCode(), reply::body);
        assertTrue(reply.json().path("id").isNull() || reply.json().path("id").isMissingNode(), reply::body);
    }

    @Test
    void validUnicodeOutsideTheBasicPlaneStillWorks() {
        ObjectNode call = client.toolCall("echo", McpTestClient.object("{\"text\":\"" + BAD_STRING + "\"}"));
        Reply reply = sendWith(call, BAD_STRING, "\"\\ud83d\\ude00 ok\"");
        assertEquals("echo: \uD83D\uDE00 ok", reply.text(), reply::body);
    }

    /**
     * A 2025-11-25 client's response to a server→client request is checked like a request: a lone
     * surrogate or a non-finite number in it is refused with 400 -32602 before it is recorded, and
     * the question stays open for a sound answer.
     */
    @Test
    void aHostileAnswerToAServerRequestIsRefusedAndTheQuestionStaysOpen() {
        Map<String, String> initializeHeaders = new LinkedHashMap<>();
        initializeHeaders.put("Content-Type", "application/json");
        initializeHeaders.put("Accept", "application/json, text/event-stream");
        String session = client.post(
                        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                                + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
                                + "\"clientInfo\":{\"name\":\"hostile\",\"version\":\"1\"}}}",
                        initializeHeaders)
                .headers()
                .firstValue("mcp-session-id")
                .orElseThrow();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json, text/event-stream");
        headers.put("Mcp-Session-Id", session);
        headers.put("MCP-Protocol-Version", "2025-11-25");
        ObjectNode call = McpTestClient.object("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"greet\",\"arguments\":{\"greeting\":\"Hello\"}}}");
        int before = tools.greetings.get();
        try (SseConnection stream = SseConnection.open(server.port(), call, headers)) {
            com.fasterxml.jackson.databind.JsonNode question = stream.nextMessage();
            assertEquals("elicitation/create", question.path("method").asText(), question::toString);
            String id = Json.write(question.path("id"));
            Map<String, String> answerHeaders = new LinkedHashMap<>(headers);
            answerHeaders.put("Accept", "application/json");

            for (String[] hostile : new String[][] {
                {"\"\\ud800\"", "/result/content/name has a string that is not valid Unicode"},
                {"\"Ada\",\"age\":1e309", "/result/content/age"}
            }) {
                Reply refused = client.post(
                        "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"action\":\"accept\","
                                + "\"content\":{\"name\":" + hostile[0] + "}}}",
                        answerHeaders);
                assertEquals(400, refused.status(), refused::body);
                assertEquals(-32602, refused.errorCode(), refused::body);
                assertTrue(
                        refused.error().path("message").asText().startsWith("Invalid request: " + hostile[1]),
                        refused::body);
            }
            assertEquals(before, tools.greetings.get(), "no refused answer was recorded");

            Reply accepted = client.post(
                    "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"action\":\"accept\","
                            + "\"content\":{\"name\":\"Ada\",\"age\":36}}}",
                    answerHeaders);
            assertEquals(202, accepted.status(), accepted::body);
            com.fasterxml.jackson.databind.JsonNode result = stream.nextMessage();
            assertTrue(result.at("/result/content/0/text").asText().startsWith("Hello, Ada (36)!"), result::toString);
        }
        assertEquals(before + 1, tools.greetings.get());
    }
}
