package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertRefused;
import static dev.parley.testing.McpAssertions.assertResult;
import static dev.parley.testing.McpTestClient.VERSION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gate and the HTTP rows of spec §6.3: every refusal has its status and its error. */
class McpEndpointEdgeTest {
    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        server = TestTools.start(new TestTools(), data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ObjectNode discover() {
        return client.request("server/discover", null);
    }

    /** A request whose {@code params._meta} is replaced by {@code meta} (or removed when null). */
    private static ObjectNode withMeta(ObjectNode request, ObjectNode meta) {
        ObjectNode params = (ObjectNode) request.get("params");
        if (meta == null) {
            params.remove("_meta");
        } else {
            params.set("_meta", meta);
        }
        return request;
    }

    private static Map<String, String> header(String name, String value) {
        Map<String, String> headers = new HashMap<>();
        headers.put(name, value);
        return headers;
    }

    // --- the stateless gate (spec §5.1, §5.2) ----------------------------------------------

    @Test
    void requestWithoutMetaIsInvalidParams() {
        ObjectNode request = withMeta(discover(), null);
        assertError(client.send(request, header("MCP-Protocol-Version", VERSION)), 400, -32602, request);
    }

    @Test
    void requestWithoutProtocolVersionInMetaIsInvalidParams() {
        ObjectNode meta = McpTestClient.meta(VERSION, "{}");
        meta.remove("io.modelcontextprotocol/protocolVersion");
        ObjectNode request = withMeta(discover(), meta);
        assertError(client.send(request, header("MCP-Protocol-Version", VERSION)), 400, -32602, request);
    }

    @Test
    void requestWithoutClientCapabilitiesInMetaIsInvalidParams() {
        ObjectNode meta = McpTestClient.meta(VERSION, "{}");
        meta.remove("io.modelcontextprotocol/clientCapabilities");
        ObjectNode request = withMeta(discover(), meta);
        assertError(client.send(request), 400, -32602, request);
    }

    @Test
    void unsupportedProtocolVersionNamesTheSupportedAndTheRequestedVersions() {
        ObjectNode request = withMeta(discover(), McpTestClient.meta("2025-11-25", "{}"));
        JsonNode error = assertError(client.send(request), 400, -32022, request);
        assertEquals("2025-11-25", error.path("data").path("requested").asText());
        JsonNode supported = error.path("data").path("supported");
        assertTrue(
                supported.isArray() && supported.toString().contains("\"" + VERSION + "\""),
                () -> "supported versions: " + supported);
    }

    // --- standard headers (spec §6.2) ------------------------------------------------------

    @Test
    void missingProtocolVersionHeaderIsHeaderMismatch() {
        ObjectNode request = discover();
        assertError(client.send(request, header("MCP-Protocol-Version", null)), 400, -32020, request);
    }

    @Test
    void protocolVersionHeaderThatDiffersFromTheBodyIsHeaderMismatch() {
        ObjectNode request = discover();
        assertError(client.send(request, header("MCP-Protocol-Version", "2025-06-18")), 400, -32020, request);
    }

    @Test
    void methodHeaderThatDiffersFromTheBodyIsHeaderMismatch() {
        ObjectNode request = client.request("tools/list", null);
        assertError(client.send(request, header("Mcp-Method", "server/discover")), 400, -32020, request);
    }

    @Test
    void methodHeaderValuesAreCaseSensitive() {
        ObjectNode request = client.request("tools/list", null);
        assertError(client.send(request, header("Mcp-Method", "TOOLS/LIST")), 400, -32020, request);
    }

    @Test
    void missingMethodHeaderIsHeaderMismatch() {
        ObjectNode request = client.request("tools/list", null);
        assertError(client.send(request, header("Mcp-Method", null)), 400, -32020, request);
    }

    @Test
    void nameHeaderThatDiffersFromTheToolNameIsHeaderMismatch() {
        ObjectNode request = client.toolCall("echo", McpTestClient.object("{\"text\":\"hi\"}"));
        assertError(client.send(request, header("Mcp-Name", "noop")), 400, -32020, request);
    }

    @Test
    void toolsCallWithoutNameHeaderIsHeaderMismatch() {
        ObjectNode request = client.toolCall("echo", McpTestClient.object("{\"text\":\"hi\"}"));
        assertError(client.send(request, header("Mcp-Name", null)), 400, -32020, request);
    }

    @Test
    void headerNamesAreCaseInsensitive() {
        ObjectNode request = client.toolCall("echo", McpTestClient.object("{\"text\":\"hi\"}"));
        Map<String, String> headers = McpTestClient.standardHeaders(request);
        Map<String, String> lowerCase = new HashMap<>();
        headers.forEach((name, value) -> lowerCase.put(name.toLowerCase(java.util.Locale.ROOT), value));
        Reply reply = client.post(Json.write(request), lowerCase);
        assertResult(reply, request, "CallToolResult");
    }

    @Test
    void base64WrappedNameHeaderIsDecodedBeforeItIsCompared() {
        ObjectNode request = client.toolCall("echo", McpTestClient.object("{\"text\":\"hi\"}"));
        String encoded =
                "=?base64?" + Base64.getEncoder().encodeToString("echo".getBytes(StandardCharsets.UTF_8)) + "?=";
        assertResult(client.send(request, header("Mcp-Name", encoded)), request, "CallToolResult");
    }

    @Test
    void base64WrappedNameHeaderOfAnotherNameIsHeaderMismatch() {
        ObjectNode request = client.toolCall("echo", McpTestClient.object("{\"text\":\"hi\"}"));
        String encoded =
                "=?base64?" + Base64.getEncoder().encodeToString("noop".getBytes(StandardCharsets.UTF_8)) + "?=";
        assertError(client.send(request, header("Mcp-Name", encoded)), 400, -32020, request);
    }

    @Test
    void invalidBase64InAHeaderIsHeaderMismatch() {
        for (String invalid : new String[] {"=?base64?ZWNobw?=", "=?base64?ZW*ob3==?=", "=?base64?/w==?="}) {
            ObjectNode request = client.toolCall("echo", McpTestClient.object("{\"text\":\"hi\"}"));
            assertError(client.send(request, header("Mcp-Name", invalid)), 400, -32020, request);
        }
    }

    @Test
    void sessionIdHeaderIsIgnoredAndNeverEchoed() {
        ObjectNode request = discover();
        Reply reply = client.send(request, header("Mcp-Session-Id", "abc123"));
        assertResult(reply, request, "DiscoverResult");
        assertTrue(reply.headers().firstValue("mcp-session-id").isEmpty(), "no Mcp-Session-Id");
    }

    // --- methods, notifications, bodies (spec §6.1, §6.3) ---------------------------------

    @Test
    void onlyTheEndpointsPathIsServed() {
        for (String path : new String[] {"/mcp/", "/mcp/x", "/other", "/", "/mcpx"}) {
            assertEquals(404, postTo(path, discover()).status(), path);
        }
        // The path is compared decoded, as pekko-http's path directive compares it.
        ObjectNode request = discover();
        assertResult(postTo("/m%63p", request), request, "DiscoverResult");
    }

    private static Reply postTo(String path, ObjectNode request) {
        return client.post(client.endpoint().resolve(path), request.toString(), McpTestClient.standardHeaders(request));
    }

    @Test
    void getOnTheEndpointIsMethodNotAllowed() {
        Reply reply = client.method("GET");
        assertRefused(reply, 405);
        assertEquals("POST", reply.headers().firstValue("allow").orElse(""));
    }

    @Test
    void deleteOnTheEndpointIsMethodNotAllowed() {
        assertRefused(client.method("DELETE"), 405);
    }

    @Test
    void notificationIsAcceptedWithoutABody() {
        ObjectNode notification = Json.object().put("jsonrpc", "2.0").put("method", "notifications/cancelled");
        ObjectNode params = notification.putObject("params").put("requestId", 7);
        params.set("_meta", McpTestClient.meta(VERSION, "{}"));
        Reply reply = client.send(notification);
        assertEquals(202, reply.status());
        assertTrue(reply.body() == null || reply.body().isEmpty(), () -> "no body, was: " + reply.body());
    }

    @Test
    void unknownMethodIsNotFound() {
        ObjectNode request = client.request("tools/unknown", null);
        assertError(client.send(request), 404, -32601, request);
    }

    @Test
    void removedMethodsAreNotFound() {
        for (String removed :
                new String[] {"initialize", "ping", "logging/setLevel", "resources/subscribe", "tasks/result"}) {
            ObjectNode request = client.request(removed, null);
            assertError(client.send(request), 404, -32601, request);
        }
    }

    @Test
    void malformedJsonIsParseError() {
        ObjectNode request = discover();
        Reply reply = client.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", McpTestClient.standardHeaders(request));
        assertError(reply, 400, -32700, null);
    }

    @Test
    void emptyBodyIsParseError() {
        assertError(client.post("", McpTestClient.standardHeaders(discover())), 400, -32700, null);
    }

    @Test
    void stringIdIsEchoed() {
        ObjectNode request = discover().put("id", "req-\u00e9-1");
        JsonNode result = assertResult(client.send(request), request, "DiscoverResult");
        assertEquals("complete", result.path("resultType").asText());
    }

    @Test
    void batchIsInvalidRequest() {
        ObjectNode request = discover();
        Reply reply = client.post("[" + Json.write(request) + "]", McpTestClient.standardHeaders(request));
        assertError(reply, 400, -32600, null);
    }

    @Test
    void bodyOverTheLimitIsPayloadTooLarge() {
        ObjectNode request = client.toolCall("echo", Json.object().put("text", "x".repeat(5000)));
        assertRefused(client.send(request), 413);
    }

    @Test
    void streamedBodyOverTheLimitIsPayloadTooLarge() {
        ObjectNode request = client.toolCall("echo", Json.object().put("text", "x".repeat(5000)));
        Reply reply = client.postChunked(
                Json.write(request).getBytes(StandardCharsets.UTF_8), McpTestClient.standardHeaders(request));
        assertRefused(reply, 413);
    }

    @Test
    void bodyJustUnderTheLimitIsServed() {
        ObjectNode request = client.toolCall("echo", Json.object().put("text", "x"));
        int overhead = Json.write(request).length();
        request = client.toolCall("echo", Json.object().put("text", "x".repeat(4000 - overhead)));
        assertResult(client.send(request), request, "CallToolResult");
    }

    @Test
    void wrongContentTypeIsUnsupportedMediaType() {
        ObjectNode request = discover();
        assertRefused(client.send(request, header("Content-Type", "text/plain")), 415);
    }

    // --- Origin and Host (spec §6.1 security, DNS rebinding) -------------------------------

    @Test
    void foreignOriginIsForbidden() {
        ObjectNode request = discover();
        assertRefused(client.send(request, header("Origin", "http://evil.example")), 403);
    }

    @Test
    void loopbackOriginIsServed() {
        ObjectNode request = discover();
        assertResult(client.send(request, header("Origin", "http://localhost:3000")), request, "DiscoverResult");
    }

    @Test
    void foreignHostHeaderIsForbidden() throws Exception {
        assertRefused(client.rawPost("evil.example", discover()), 403);
        assertRefused(client.rawPost("evil.example:" + server.port(), discover()), 403);
    }

    @Test
    void loopbackHostHeadersAreServed() throws Exception {
        for (String host : new String[] {"localhost:" + server.port(), "127.0.0.1", "[::1]:" + server.port()}) {
            ObjectNode request = discover();
            assertResult(client.rawPost(host, request), request, "DiscoverResult");
        }
    }

    @Test
    void theServerStillAnswersAfterBadInput() {
        assertError(client.post("\u0000\u0001 not json", McpTestClient.standardHeaders(discover())), 400, -32700, null);
        assertRefused(client.send(client.toolCall("echo", Json.object().put("text", "y".repeat(10_000)))), 413);
        ObjectNode request = discover();
        assertResult(client.send(request), request, "DiscoverResult");
    }
}
