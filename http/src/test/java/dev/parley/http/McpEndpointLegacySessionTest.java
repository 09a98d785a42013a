package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.SpecSchema2025;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 2025-11-25 client on the same endpoint: {@code initialize} and its session, the session's
 * requests, a tool's question as a server→client {@code elicitation/create} on the call's stream
 * answered by a separate POST, DELETE, and what an unknown or someone else's session gets.
 */
class McpEndpointLegacySessionTest {
    private static final String VERSION = "2025-11-25";

    @TempDir
    static Path data;

    private static TestTools tools;
    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        tools = new TestTools();
        server = TestTools.start(tools, data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void initializeNegotiatesTheVersionAndOpensASession() {
        McpTestClient.Reply reply = initialize("2025-06-18", "alice");
        assertEquals(200, reply.status());
        assertEquals("2025-06-18", reply.result().path("protocolVersion").asText());
        assertTrue(reply.result().path("capabilities").path("tools").isObject());
        assertFalse(reply.result().path("capabilities").has("extensions"), "no 2026-only members");
        assertEquals("parley-http-tests", reply.result().at("/serverInfo/name").asText());
        String session = reply.headers().firstValue("mcp-session-id").orElseThrow();
        assertTrue(session.chars().allMatch(c -> c >= 0x21 && c <= 0x7e), session);
        assertEquals(
                "2025-11-25",
                initialize("2024-01-01", "alice")
                        .result()
                        .path("protocolVersion")
                        .asText(),
                "an unknown version gets the latest of the era, not an error");
    }

    @Test
    void aSessionAnswersPingListsAndLogLevelsInTheShapesOf2025() {
        String session = session("alice");
        assertEquals(
                202,
                post(session, notification("notifications/initialized"), "alice")
                        .status());
        assertEquals(
                Json.object(),
                post(session, request(1, "ping", Json.object()), "alice").result());
        assertEquals(
                Json.object(),
                post(session, request(2, "logging/setLevel", Json.object().put("level", "info")), "alice")
                        .result());
        assertEquals(
                Json.object(),
                post(session, request(3, "resources/subscribe", Json.object().put("uri", "x://y")), "alice")
                        .result());
        JsonNode tools =
                post(session, request(4, "tools/list", Json.object()), "alice").result();
        assertTrue(tools.path("tools").size() > 0);
        assertFalse(tools.has("resultType") || tools.has("ttlMs") || tools.has("cacheScope"), tools::toString);
        JsonNode call = post(
                        session,
                        request(
                                5,
                                "tools/call",
                                Json.object()
                                        .put("name", "echo")
                                        .set("arguments", Json.object().put("text", "hi"))),
                        "alice")
                .result();
        assertEquals("echo: hi", call.at("/content/0/text").asText());
        assertFalse(call.has("resultType"));
    }

    @Test
    void aQuestionIsAServerRequestOnTheCallsStreamAndItsAnswerIsRecorded() {
        String session = session("alice");
        int before = tools.greetings.get();
        ObjectNode call = request(
                10,
                "tools/call",
                Json.object()
                        .put("name", "greet")
                        .set("arguments", Json.object().put("greeting", "Hello")));
        try (SseConnection stream = SseConnection.open(server.port(), call, headers(session, "alice", true))
                .validating2025("tools/call")) {
            assertEquals(200, stream.status());
            assertTrue(stream.isEventStream(), stream.contentType());
            JsonNode question = stream.nextMessage();
            assertEquals("elicitation/create", question.path("method").asText(), question::toString);
            assertEquals("Who are you?", question.at("/params/message").asText());
            assertTrue(question.path("id").isTextual());

            ObjectNode answer = Json.object().put("jsonrpc", "2.0");
            answer.set("id", question.path("id"));
            answer.set("result", Json.parse("{\"action\":\"accept\",\"content\":{\"name\":\"Ada\",\"age\":36}}"));
            assertEquals(202, post(session, answer, "alice").status());

            JsonNode result = stream.nextMessage();
            assertEquals(10, result.path("id").asInt(), result::toString);
            assertTrue(result.at("/result/content/0/text").asText().startsWith("Hello, Ada (36)!"), result::toString);
            assertFalse(result.path("result").has("resultType"));
        }
        assertEquals(before + 1, tools.greetings.get(), "the journaled step ran once");
    }

    @Test
    void aQuestionForAClientWithoutElicitationIsAnErrorResultAt200NotA400() {
        String session = initialize(VERSION, "alice", "{}")
                .headers()
                .firstValue("mcp-session-id")
                .orElseThrow();
        ObjectNode call = request(
                12,
                "tools/call",
                Json.object()
                        .put("name", "greet")
                        .set("arguments", Json.object().put("greeting", "Hello")));

        McpTestClient.Reply reply = post(session, call, "alice");

        assertEquals(200, reply.status(), reply.body());
        assertTrue(reply.result().path("isError").asBoolean(), reply.body());
        assertEquals(
                "This request needs a client capability this client did not declare at initialize: "
                        + "{\"elicitation\":{\"form\":{}}}.",
                reply.result().at("/content/0/text").asText());
    }

    @Test
    void aUrlQuestionCarriesTheElicitationIdThe2025SchemaRequires() {
        String session = initialize(VERSION, "alice", "{\"elicitation\":{\"form\":{},\"url\":{}}}")
                .headers()
                .firstValue("mcp-session-id")
                .orElseThrow();
        ObjectNode call = request(
                11,
                "tools/call",
                Json.object()
                        .put("name", "pay_online")
                        .set("arguments", Json.object().put("cents", 250)));
        try (SseConnection stream = SseConnection.open(server.port(), call, headers(session, "alice", true))
                .validating2025("tools/call")) {
            JsonNode question = stream.nextMessage();
            assertEquals("url", question.at("/params/mode").asText(), question::toString);
            assertEquals(
                    question.path("id").asText(),
                    question.at("/params/elicitationId").asText(),
                    question::toString);

            ObjectNode answer = Json.object().put("jsonrpc", "2.0");
            answer.set("id", question.path("id"));
            answer.set("result", Json.object().put("action", "accept"));
            assertEquals(202, post(session, answer, "alice").status());
            assertEquals(
                    "Payment page opened.",
                    stream.nextMessage().at("/result/content/0/text").asText());
        }
    }

    @Test
    void anAnswerFromAnotherPrincipalIsIgnored() {
        String session = session("alice");
        ObjectNode call = request(
                11,
                "tools/call",
                Json.object()
                        .put("name", "greet")
                        .set("arguments", Json.object().put("greeting", "Hi")));
        try (SseConnection stream = SseConnection.open(server.port(), call, headers(session, "alice", true))
                .validating2025("tools/call")) {
            JsonNode question = stream.nextMessage();
            ObjectNode answer = Json.object().put("jsonrpc", "2.0");
            answer.set("id", question.path("id"));
            answer.set("result", Json.parse("{\"action\":\"accept\",\"content\":{\"name\":\"Eve\",\"age\":1}}"));
            assertEquals(404, post(session, answer, "mallory").status(), "alice's session does not exist for mallory");
            String mallorys = session("mallory");
            assertEquals(
                    202, post(mallorys, answer, "mallory").status(), "a response to an unknown request is ignored");
            answer.set("result", Json.parse("{\"action\":\"decline\"}"));
            assertEquals(202, post(session, answer, "alice").status());
            JsonNode result = stream.nextMessage();
            assertEquals(
                    "No greeting: the question was declined.",
                    result.at("/result/content/0/text").asText());
        }
    }

    @Test
    void deleteEndsTheSessionAndItIsNotFoundAfterwards() {
        String session = session("alice");
        McpTestClient.Reply deleted = client.exchange(java.net.http.HttpRequest.newBuilder(client.endpoint())
                .header("Mcp-Session-Id", session)
                .header(TestTools.USER_HEADER, "alice")
                .DELETE()
                .build());
        assertEquals(200, deleted.status());
        assertEquals(
                404, post(session, request(20, "ping", Json.object()), "alice").status());
        assertEquals(
                404,
                post("no-such-session", request(21, "ping", Json.object()), "alice")
                        .status());
    }

    @Test
    void aRequestWithoutSessionOrMetaIsStillRefusedByTheStatelessGate() {
        McpTestClient.Reply reply = client.post(
                Json.write(request(30, "tools/list", Json.object())),
                Map.of("Content-Type", "application/json", "Mcp-Method", "tools/list"));
        assertEquals(400, reply.status());
        assertEquals(-32602, reply.errorCode());
    }

    // --- helpers --------------------------------------------------------------------------

    private static McpTestClient.Reply initialize(String version, String principal) {
        return initialize(version, principal, "{\"elicitation\":{}}");
    }

    private static McpTestClient.Reply initialize(String version, String principal, String capabilities) {
        ObjectNode params = Json.object().put("protocolVersion", version);
        params.set("capabilities", Json.parse(capabilities));
        params.set("clientInfo", Json.object().put("name", "legacy-test").put("version", "1"));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json, text/event-stream");
        headers.put(TestTools.USER_HEADER, principal);
        return validated(client.post(Json.write(request(0, "initialize", params)), headers), "initialize");
    }

    /** Every JSON body sent to a 2025-11-25 client must be valid against that revision's schema. */
    static McpTestClient.Reply validated(McpTestClient.Reply reply, String requestMethod) {
        if (reply.contentType() != null
                && reply.contentType().startsWith("application/json")
                && !reply.body().isEmpty()) {
            SpecSchema2025.assertValidServerMessage(reply.json(), requestMethod);
        }
        return reply;
    }

    private static String session(String principal) {
        return initialize(VERSION, principal)
                .headers()
                .firstValue("mcp-session-id")
                .orElseThrow();
    }

    private static ObjectNode request(int id, String method, ObjectNode params) {
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        message.set("params", params);
        return message;
    }

    private static ObjectNode notification(String method) {
        return Json.object().put("jsonrpc", "2.0").put("method", method);
    }

    private static Map<String, String> headers(String session, String principal, boolean streams) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", streams ? "application/json, text/event-stream" : "application/json");
        headers.put("Mcp-Session-Id", session);
        headers.put("MCP-Protocol-Version", VERSION);
        headers.put(TestTools.USER_HEADER, principal);
        return headers;
    }

    private static McpTestClient.Reply post(String session, ObjectNode message, String principal) {
        McpTestClient.Reply reply = client.post(Json.write(message), headers(session, principal, false));
        assertNotNull(reply);
        return validated(reply, message.path("method").asText());
    }
}
