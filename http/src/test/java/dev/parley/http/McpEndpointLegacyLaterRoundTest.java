package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 2025-11-25 call's later rounds: the run an answer starts is in the call's entity (reached
 * through sharding from whichever node took the answer), not on the stream's request. Its
 * progress and log notifications still reach the stream waiting for the result, and the
 * client's {@code notifications/cancelled} still stops it.
 */
class McpEndpointLegacyLaterRoundTest {
    private static final String VERSION = "2025-11-25";

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static final AtomicInteger waitingRuns = new AtomicInteger();
    private static final AtomicInteger cancelledRuns = new AtomicInteger();

    @BeforeAll
    static void start() {
        McpServerDefinition definition = McpServerDefinition.builder("parley-later-round-tests", "0.0.1")
                .tool(ToolDefinition.tool("ask_then_report", TestTools.NoArgs.class)
                        .description("Asks a name, then reports progress and a log message while it works.")
                        .handler((args, ctx) -> {
                            String name = name(ctx.elicit("who", whoAreYou()));
                            // Only the second round (after the answer) gets here.
                            ctx.progress(1, 2.0, "checking " + name);
                            ctx.log(LogLevel.INFO, "later-round", Json.object().put("checked", name));
                            ctx.progress(2, 2.0, "done");
                            return ToolResult.text("checked " + name);
                        }))
                .tool(ToolDefinition.tool("ask_then_wait_for_cancel", TestTools.NoArgs.class)
                        .description("Asks a name, then works until cancelled (at most 60 s).")
                        .handler((args, ctx) -> {
                            String name = name(ctx.elicit("who", whoAreYou()));
                            waitingRuns.incrementAndGet();
                            long deadline =
                                    System.nanoTime() + Duration.ofSeconds(60).toNanos();
                            try {
                                while (!ctx.isCancelled() && System.nanoTime() < deadline) {
                                    Thread.sleep(20);
                                }
                            } catch (InterruptedException interrupted) {
                                // a cancel interrupts a blocking handler
                            }
                            if (ctx.isCancelled()) {
                                cancelledRuns.incrementAndGet();
                            }
                            return ToolResult.text("not cancelled, " + name);
                        }))
                .build();
        server = McpHttpServer.builder(definition)
                .dataDirectory(data)
                .port(0)
                .principals(TestTools.PRINCIPALS)
                .start();
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void progressAndLogsOfTheRoundAnAnswerStartsReachTheWaitingStream() {
        String session = session("alice");
        ObjectNode setLevel = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", "logging/setLevel");
        setLevel.putObject("params").put("level", "info");
        assertEquals(200, post(session, setLevel, "alice").status());
        ObjectNode call = call(2, "ask_then_report");
        ((ObjectNode) call.get("params")).putObject("_meta").put("progressToken", "p-2");
        List<JsonNode> afterAnswer;
        try (SseConnection stream = SseConnection.open(server.port(), call, headers(session, "alice", true))
                .validating2025("tools/call")) {
            JsonNode question = stream.nextMessage();
            assertEquals("elicitation/create", question.path("method").asText(), question::toString);
            assertEquals(202, post(session, answer(question, "Ada"), "alice").status());
            afterAnswer = stream.readToEnd(Duration.ofSeconds(30));
        }
        assertEquals(4, afterAnswer.size(), afterAnswer::toString);
        JsonNode first = afterAnswer.get(0);
        assertEquals("notifications/progress", first.path("method").asText(), first::toString);
        assertEquals("p-2", first.at("/params/progressToken").asText());
        assertEquals(1, first.at("/params/progress").asInt());
        assertEquals("checking Ada", first.at("/params/message").asText());
        JsonNode log = afterAnswer.get(1);
        assertEquals("notifications/message", log.path("method").asText(), log::toString);
        assertEquals("Ada", log.at("/params/data/checked").asText());
        assertEquals("notifications/progress", afterAnswer.get(2).path("method").asText());
        JsonNode response = afterAnswer.get(3);
        assertEquals(2, response.path("id").asInt(), response::toString);
        assertEquals("checked Ada", response.at("/result/content/0/text").asText());
    }

    @Test
    void aCancelStopsTheRoundAnAnswerStarted() throws Exception {
        String session = session("alice");
        int before = cancelledRuns.get();
        int runsBefore = waitingRuns.get();
        try (SseConnection stream = SseConnection.open(
                        server.port(), call(3, "ask_then_wait_for_cancel"), headers(session, "alice", true))
                .validating2025("tools/call")) {
            JsonNode question = stream.nextMessage();
            assertEquals("elicitation/create", question.path("method").asText(), question::toString);
            // The answer's POST is answered once its round has run: it waits while the handler does.
            CompletableFuture<McpTestClient.Reply> answered =
                    CompletableFuture.supplyAsync(() -> post(session, answer(question, "Ada"), "alice"));
            awaitAtMost(Duration.ofSeconds(30), () -> waitingRuns.get() > runsBefore);
            ObjectNode cancel = Json.object().put("jsonrpc", "2.0").put("method", "notifications/cancelled");
            cancel.putObject("params").put("requestId", 3).put("reason", "changed my mind");
            assertEquals(202, post(session, cancel, "alice").status());
            assertEquals(List.of(), stream.readToEnd(Duration.ofSeconds(30)), "no response for a cancelled request");
            answered.get(30, TimeUnit.SECONDS);
        }
        awaitAtMost(Duration.ofSeconds(30), () -> cancelledRuns.get() > before);
        assertEquals(before + 1, cancelledRuns.get(), "the later round's handler saw the cancellation");
    }

    // --- helpers --------------------------------------------------------------------------

    private static Elicitation.Form whoAreYou() {
        return Elicitation.form("Who are you?")
                .field("name", FormField.string("Your name"))
                .build();
    }

    private static String name(ElicitAnswer answer) {
        return answer instanceof ElicitAnswer.Accepted accepted ? accepted.string("name") : "nobody";
    }

    private static void awaitAtMost(Duration timeout, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    private static String session(String principal) {
        ObjectNode params = Json.object().put("protocolVersion", VERSION);
        params.set("capabilities", Json.parse("{\"elicitation\":{}}"));
        params.set("clientInfo", Json.object().put("name", "later-round-test").put("version", "1"));
        ObjectNode initialize = Json.object().put("jsonrpc", "2.0").put("id", 0).put("method", "initialize");
        initialize.set("params", params);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json, text/event-stream");
        headers.put(TestTools.USER_HEADER, principal);
        return McpEndpointLegacySessionTest.validated(client.post(Json.write(initialize), headers), "initialize")
                .headers()
                .firstValue("mcp-session-id")
                .orElseThrow();
    }

    private static ObjectNode call(int id, String tool) {
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", "tools/call");
        message.putObject("params").put("name", tool).putObject("arguments");
        return message;
    }

    private static ObjectNode answer(JsonNode question, String name) {
        ObjectNode answer = Json.object().put("jsonrpc", "2.0");
        answer.set("id", question.path("id"));
        answer.set("result", Json.parse("{\"action\":\"accept\",\"content\":{\"name\":\"" + name + "\"}}"));
        return answer;
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
        return McpEndpointLegacySessionTest.validated(
                client.post(Json.write(message), headers(session, principal, false)),
                message.path("method").asText());
    }
}
