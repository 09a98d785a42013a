package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quotas on durable state without authorization, as shipped ({@code parley.quotas}): every
 * anonymous client is counted by its address. A flood of waiting calls or sessions from one
 * address is refused at the documented cap with 429, Retry-After and -31429 naming the limit,
 * nothing of the refused requests is journaled, and another address is not held back; the
 * node-wide ceiling answers 503; an oversized call or session 413.
 */
class McpEndpointQuotasTest {
    /** The documented defaults (reference.conf of parley-actors). */
    private static final int WAITING_CALLS = 50;

    private static final int SESSIONS = 50;
    private static final InetAddress OTHER_CLIENT = address("127.0.0.2");

    @TempDir
    Path directory;

    private McpHttpServer start(String config) {
        return start(new TestTools().definition(), config);
    }

    private McpHttpServer start(McpServerDefinition definition, String config) {
        return McpHttpServer.builder(definition)
                .dataDirectory(directory)
                .port(0)
                .config(ConfigFactory.parseString(config))
                .start();
    }

    @Test
    void aFloodOfWaitingCallsFromOneAddressIsRefusedAtTheDefaultCapAndLeavesNothing() throws Exception {
        try (McpHttpServer server = start("")) {
            McpTestClient client = new McpTestClient(server.port());
            List<Reply> waiting = new ArrayList<>();
            for (int i = 0; i < WAITING_CALLS; i++) {
                Reply reply = client.send(greet());
                assertEquals("input_required", reply.resultType(), "call " + i + ": " + reply.body());
                waiting.add(reply);
            }
            JournalRows.awaitCalls(directory, WAITING_CALLS);
            long journaled = JournalRows.count(directory);

            Reply refused = client.send(greet());
            // A forged X-Forwarded-For is ignored by default: the same address, the same cap.
            Reply forged = client.send(greet(), Map.of("X-Forwarded-For", "10.1.2.3"));

            for (Reply over : List.of(refused, forged)) {
                assertEquals(429, over.status(), over.body());
                assertEquals("5", over.headers().firstValue("retry-after").orElseThrow());
                assertEquals(-31429, over.errorCode(), over.body());
                assertEquals(
                        "waiting-calls", over.error().path("data").path("limit").asText(), over.body());
                assertEquals(
                        WAITING_CALLS, over.error().path("data").path("max").asInt(), over.body());
                assertEquals(
                        5, over.error().path("data").path("retryAfterSeconds").asInt(), over.body());
                assertTrue(over.error().path("message").asText().contains("calls waiting for input"), over.body());
            }
            assertEquals(journaled, JournalRows.count(directory), "the refused calls left nothing in the journal");

            // One-round calls and lists go on; so does another client's waiting call.
            assertEquals(
                    "echo: hi",
                    client.send(client.toolCall("echo", Json.object().put("text", "hi")))
                            .text());
            assertEquals(
                    200,
                    client.send(client.request("tools/list", Json.object())).status());
            Reply other = client.rawPost("127.0.0.1", greet(), OTHER_CLIENT);
            assertEquals(200, other.status(), other.body());
            assertEquals(
                    "input_required",
                    other.json().path("result").path("resultType").asText(),
                    other.body());

            // An answer to a waiting call is served at the cap, and ending the call frees its place.
            Reply done = client.send(client.retry(
                    greet(),
                    waiting.get(0).requestState(),
                    McpTestClient.accept("who", Json.object().put("name", "Ada").put("age", 36))));
            assertEquals(200, done.status(), done.body());
            assertTrue(done.text().contains("Ada"), done.body());
            assertEquals("input_required", client.send(greet()).resultType());
        }
    }

    @Test
    void aFloodOfSessionsFromOneAddressIsRefusedAtTheDefaultCapAndLeavesNothing() throws Exception {
        try (McpHttpServer server = start("")) {
            McpTestClient client = new McpTestClient(server.port());
            List<String> sessions = new ArrayList<>();
            for (int i = 0; i < SESSIONS; i++) {
                Reply opened = initialize(client, Json.object().put("name", "flood"));
                assertEquals(200, opened.status(), "session " + i + ": " + opened.body());
                sessions.add(opened.headers().firstValue("mcp-session-id").orElseThrow());
            }
            long journaled = JournalRows.count(directory);

            Reply refused = initialize(client, Json.object().put("name", "flood"));

            assertEquals(429, refused.status(), refused.body());
            assertEquals("5", refused.headers().firstValue("retry-after").orElseThrow());
            assertFalse(refused.headers().firstValue("mcp-session-id").isPresent());
            assertEquals(-31429, refused.errorCode(), refused.body());
            assertEquals(0, refused.json().path("id").asInt(), refused.body());
            assertEquals("sessions", refused.error().path("data").path("limit").asText(), refused.body());
            assertEquals(SESSIONS, refused.error().path("data").path("max").asInt(), refused.body());
            assertEquals(journaled, JournalRows.count(directory), "the refused session left nothing in the journal");

            Reply other = client.rawPost("127.0.0.1", initializeMessage(Json.object()), OTHER_CLIENT);
            assertEquals(200, other.status(), other.body());

            // Deleting a session frees its place.
            Reply deleted = client.exchange(java.net.http.HttpRequest.newBuilder(client.endpoint())
                    .header("Mcp-Session-Id", sessions.get(0))
                    .DELETE()
                    .build());
            assertEquals(200, deleted.status(), deleted.body());
            assertEquals(200, initialize(client, Json.object()).status());
        }
    }

    @Test
    void aSessionsAnsweredQuestionsFreeTheirPlaceAsTheirCallsEnd() {
        // The answers of a 2025-11-25 call come as their own POSTs; the call's end, seen on its stream, frees
        // the place its first round took, for the address and for the node.
        try (McpHttpServer server = start("""
                parley.quotas.per-principal.waiting-calls = 2
                parley.quotas.per-node.waiting-calls = 3
                """)) {
            McpTestClient client = new McpTestClient(server.port());
            Reply opened = initialize(client, Json.object().put("name", "host"), "{\"elicitation\":{}}");
            String session = opened.headers().firstValue("mcp-session-id").orElseThrow();
            for (int i = 1; i <= 5; i++) {
                ObjectNode call =
                        Json.object().put("jsonrpc", "2.0").put("id", i).put("method", "tools/call");
                call.putObject("params")
                        .put("name", "greet")
                        .putObject("arguments")
                        .put("greeting", "Hello");
                try (SseConnection stream = SseConnection.open(server.port(), call, sessionHeaders(session))) {
                    JsonNode question = stream.nextMessage();
                    assertEquals("elicitation/create", question.path("method").asText(), "flow " + i + ": " + question);
                    ObjectNode answer = Json.object().put("jsonrpc", "2.0");
                    answer.set("id", question.path("id"));
                    answer.set(
                            "result", Json.parse("{\"action\":\"accept\",\"content\":{\"name\":\"Ada\",\"age\":36}}"));
                    Map<String, String> headers = sessionHeaders(session);
                    headers.put("Accept", "application/json");
                    assertEquals(202, client.post(Json.write(answer), headers).status());
                    JsonNode result = stream.nextMessage();
                    assertEquals(i, result.path("id").asInt(), result::toString);
                    assertTrue(result.at("/result/content/0/text").asText().contains("Ada"), result::toString);
                }
            }
            // Five ended calls hold nothing: two may wait again, and the third is over the cap.
            assertEquals("input_required", client.send(greet()).resultType());
            assertEquals("input_required", client.send(greet()).resultType());
            assertEquals(429, client.send(greet()).status());
        }
    }

    @Test
    void aTaskThatEndedFreesItsPlaceOnTheNode() throws Exception {
        // Each task completes at once; without its place freed, the third would be refused for the task's ttl.
        try (McpHttpServer server = start(new TaskTools().definition(), """
                parley.quotas.per-node.open-tasks = 2
                parley.quotas.per-principal.open-tasks = 100
                """)) {
            McpTestClient client = new McpTestClient(server.port());
            for (int i = 1; i <= 5; i++) {
                // The end reaches the node's leases as a cluster notice, a moment after tasks/get sees it.
                Reply created = null;
                for (long deadline = System.nanoTime() + 10_000_000_000L;
                        (created == null || created.status() == 503) && System.nanoTime() < deadline; ) {
                    if (created != null) {
                        Thread.sleep(50);
                    }
                    created = client.send(client.toolCall(
                            "count_words", TaskTools.args("text", "one two"), McpTestClient.WITH_TASKS));
                }
                assertEquals(200, created.status(), "task " + i + ": " + created.body());
                String taskId = created.taskId();
                assertTrue(taskId != null, created.body());
                String status = null;
                for (long deadline = System.nanoTime() + 30_000_000_000L;
                        !"completed".equals(status) && System.nanoTime() < deadline; ) {
                    Thread.sleep(20);
                    status = client.send(client.taskRequest("tasks/get", taskId))
                            .result()
                            .path("status")
                            .asText();
                }
                assertEquals("completed", status, "task " + i);
            }
        }
    }

    @Test
    void theNodeWideCeilingHoldsWhateverTheNumberOfPrincipals() throws Exception {
        // Behind one trusted proxy each X-Forwarded-For address is its own principal.
        try (McpHttpServer server = start("""
                parley.http.client-address.forwarded-for-hops = 1
                parley.quotas.per-node.waiting-calls = 3
                parley.quotas.retry-after = 4s
                """)) {
            McpTestClient client = new McpTestClient(server.port());
            for (int i = 1; i <= 3; i++) {
                Reply reply = client.send(greet(), Map.of("X-Forwarded-For", "203.0.113." + i));
                assertEquals("input_required", reply.resultType(), reply.body());
            }
            JournalRows.awaitCalls(directory, 3);
            long journaled = JournalRows.count(directory);

            Reply refused = client.send(greet(), Map.of("X-Forwarded-For", "203.0.113.4"));

            assertEquals(503, refused.status(), refused.body());
            assertEquals("4", refused.headers().firstValue("retry-after").orElseThrow());
            assertEquals(-31503, refused.errorCode(), refused.body());
            assertEquals(
                    "node-waiting-calls",
                    refused.error().path("data").path("limit").asText(),
                    refused.body());
            assertEquals(3, refused.error().path("data").path("max").asInt(), refused.body());
            assertEquals(journaled, JournalRows.count(directory));
            assertEquals(
                    200,
                    client.send(client.toolCall("echo", Json.object().put("text", "hi")))
                            .status());
        }
    }

    @Test
    void anOversizedDurableCallOrSessionIsRefusedBeforeAnythingIsWritten() {
        try (McpHttpServer server = start("")) {
            McpTestClient client = new McpTestClient(server.port());
            String large = "x".repeat(200 * 1024); // over the default max-call-bytes of 128 KiB
            long journaled = JournalRows.count(directory);

            Reply refused = client.send(client.toolCall("greet", Json.object().put("greeting", large)));

            assertEquals(413, refused.status(), refused.body());
            assertFalse(refused.headers().firstValue("retry-after").isPresent(), "a retry cannot help");
            assertEquals(-31413, refused.errorCode(), refused.body());
            assertEquals(
                    "call-bytes", refused.error().path("data").path("limit").asText(), refused.body());
            assertEquals(128 * 1024, refused.error().path("data").path("max").asInt(), refused.body());
            assertTrue(refused.error().path("data").path("size").asInt() > 200 * 1024, refused.body());
            assertTrue(refused.error().path("message").asText().contains("parley.quotas.max-call-bytes"));
            // A one-round call of the same size journals nothing and is served.
            assertEquals(
                    200,
                    client.send(client.toolCall("echo", Json.object().put("text", large)))
                            .status());

            Reply session = initialize(client, Json.object().put("name", "x".repeat(20 * 1024)));
            assertEquals(413, session.status(), session.body());
            assertEquals(
                    "session-bytes", session.error().path("data").path("limit").asText(), session.body());
            assertEquals(journaled, JournalRows.count(directory), "nothing of either was journaled");
        }
    }

    private static ObjectNode greet() {
        return new McpTestClient(1).toolCall("greet", Json.object().put("greeting", "Hello"));
    }

    /** A 2025-11-25 {@code initialize} with {@code clientInfo}. */
    static Reply initialize(McpTestClient client, ObjectNode clientInfo) {
        return initialize(client, clientInfo, "{}");
    }

    private static Reply initialize(McpTestClient client, ObjectNode clientInfo, String capabilities) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json, text/event-stream");
        return client.post(Json.write(initializeMessage(clientInfo, capabilities)), headers);
    }

    private static Map<String, String> sessionHeaders(String session) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json, text/event-stream");
        headers.put("Mcp-Session-Id", session);
        headers.put("MCP-Protocol-Version", "2025-11-25");
        return headers;
    }

    private static ObjectNode initializeMessage(ObjectNode clientInfo) {
        return initializeMessage(clientInfo, "{}");
    }

    private static ObjectNode initializeMessage(ObjectNode clientInfo, String capabilities) {
        ObjectNode params = Json.object().put("protocolVersion", "2025-11-25");
        params.set("capabilities", Json.parse(capabilities));
        params.set("clientInfo", clientInfo);
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", 0).put("method", "initialize");
        message.set("params", params);
        return message;
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
