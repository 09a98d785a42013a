package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resumable 2025-11-25 call streams: every event has an id, the first is a priming event with
 * {@code retry}, the server ends a stream's connection after {@code poll-after} (SSE polling), and
 * a {@code GET} with {@code Last-Event-ID} gets what followed that id from the call's journal, then
 * the rest of the call. A first round that outlives its connection is journaled for the resume.
 */
class McpEndpointLegacyResumeTest {
    private static final String VERSION = "2025-11-25";
    private static final Duration POLL_AFTER = Duration.ofSeconds(3);

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static final AtomicInteger steps = new AtomicInteger();
    private static final AtomicInteger slowRuns = new AtomicInteger();
    private static final AtomicInteger cancelledRuns = new AtomicInteger();

    @BeforeAll
    static void start() {
        McpServerDefinition definition = McpServerDefinition.builder("parley-resume-tests", "0.0.1")
                .tool(ToolDefinition.tool("ask_name", TestTools.NoArgs.class)
                        .description("Asks a name, then counts a journaled step.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "who",
                                    Elicitation.form("Who are you?")
                                            .field("name", FormField.string("Your name"))
                                            .build());
                            int step = ctx.step("count", Integer.class, steps::incrementAndGet);
                            return ToolResult.text((answer instanceof ElicitAnswer.Accepted accepted
                                            ? accepted.string("name")
                                            : "nobody")
                                    + " #" + step);
                        }))
                .tool(ToolDefinition.tool("slow_report", TestTools.NoArgs.class)
                        .description("Long work in one round.")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((args, ctx) -> {
                            slowRuns.incrementAndGet();
                            Thread.sleep(POLL_AFTER.toMillis() + 1500);
                            return ToolResult.text("report done");
                        }))
                .tool(ToolDefinition.tool("wait_for_cancel", TestTools.NoArgs.class)
                        .description("Works until cancelled (at most 60 s).")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((args, ctx) -> {
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
                            return ToolResult.text("not cancelled");
                        }))
                .build();
        server = McpHttpServer.builder(definition)
                .dataDirectory(data)
                .port(0)
                .principals(TestTools.PRINCIPALS)
                .config(ConfigFactory.parseString(
                        "parley.http.legacy-streams { poll-after = " + POLL_AFTER.toMillis() + "ms, retry = 50ms }"))
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
    void aWaitingStreamIsPolledAndResumedFromTheJournalWithoutRepeatingAnything() {
        String session = session("alice");
        int before = steps.get();
        String primingId;
        String questionEventId;
        JsonNode question;
        try (SseConnection stream = SseConnection.open(
                        server.port(), call(7, "ask_name"), headers(session, "alice", true))
                .validating2025("tools/call")) {
            SseConnection.Event priming = stream.next();
            assertTrue(priming.isPriming(), priming::toString);
            assertNotNull(priming.id());
            assertEquals("50", priming.retry());
            primingId = priming.id();
            question = stream.nextMessage();
            assertEquals("elicitation/create", question.path("method").asText());
            questionEventId = stream.lastEventId();
            assertTrue(questionEventId != null && !questionEventId.equals(primingId));
            // SSE polling: the server ends the connection while the call waits; no response on it.
            assertEquals(List.of(), stream.readToEnd(POLL_AFTER.multipliedBy(4)));
        }

        // From the priming event's id: the question it follows comes again, the same request, from the journal.
        // (its id carries a fresh seal of the same call, round and question: an answer to either is recorded once)
        try (SseConnection resumed = resume(session, "alice", primingId)) {
            assertEquals(200, resumed.status());
            JsonNode again = resumed.nextMessage();
            assertEquals(question.path("params"), again.path("params"));
            assertEquals("elicitation/create", again.path("method").asText());
            assertEquals(questionKey(question), questionKey(again));
        }

        // From the question's id: nothing is sent again; the answer (posted anywhere) ends the call on this stream.
        List<JsonNode> rest = new ArrayList<>();
        String last = questionEventId;
        try (SseConnection resumed = resume(session, "alice", last)) {
            assertEquals(202, post(session, answer(question, "Ada"), "alice").status());
            rest.addAll(resumed.readToEnd(POLL_AFTER.multipliedBy(4)));
            last = resumed.lastEventId() == null ? last : resumed.lastEventId();
        }
        JsonNode response = rest.isEmpty() ? resumeUntilResponse(session, last) : rest.get(rest.size() - 1);
        assertEquals(7, response.path("id").asInt(), rest::toString);
        assertEquals(
                "Ada #" + (before + 1), response.at("/result/content/0/text").asText());
        rest.stream()
                .limit(Math.max(0, rest.size() - 1))
                .forEach(message -> assertTrue(!message.has("method"), "no question sent again: " + message));
        assertEquals(before + 1, steps.get(), "the journaled step ran once");
    }

    @Test
    void aFirstRoundThatOutlivesItsConnectionIsJournaledAndTheResumeGetsItsResult() {
        String session = session("alice");
        int before = slowRuns.get();
        String last;
        try (SseConnection stream = SseConnection.open(
                        server.port(), call(8, "slow_report"), headers(session, "alice", true))
                .validating2025("tools/call")) {
            SseConnection.Event priming = stream.next();
            assertTrue(priming.isPriming(), priming::toString);
            assertEquals(
                    List.of(), stream.readToEnd(POLL_AFTER.multipliedBy(4)), "the connection ends before the result");
            last = priming.id();
        }
        JsonNode response = resumeUntilResponse(session, last);
        assertEquals(8, response.path("id").asInt(), response::toString);
        assertEquals("report done", response.at("/result/content/0/text").asText());
        assertEquals(before + 1, slowRuns.get(), "the tool ran once");
    }

    @Test
    void aResumeAfterTheResponseEndsAtOnce() {
        String session = session("alice");
        String responseEventId;
        try (SseConnection stream = SseConnection.open(
                        server.port(), call(9, "ask_name"), headers(session, "alice", true))
                .validating2025("tools/call")) {
            JsonNode question = stream.nextMessage();
            assertEquals(202, post(session, answer(question, "Bo"), "alice").status());
            assertEquals(9, stream.nextMessage(POLL_AFTER).path("id").asInt());
            responseEventId = stream.lastEventId();
        }
        try (SseConnection resumed = resume(session, "alice", responseEventId)) {
            assertEquals(200, resumed.status());
            List<JsonNode> after = resumed.readToEnd();
            assertEquals(List.of(), after);
        }
    }

    @Test
    void aForgedOrForeignLastEventIdIsRefusedWith400() {
        String alices = session("alice");
        String primingId;
        try (SseConnection stream = SseConnection.open(
                        server.port(), call(10, "ask_name"), headers(alices, "alice", true))
                .validating2025("tools/call")) {
            primingId = stream.next().id();
        }
        String bobs = session("bob");
        try (SseConnection foreign = resume(bobs, "bob", primingId)) {
            assertEquals(400, foreign.status(), "another session's event id");
        }
        try (SseConnection otherSession = resume(session("alice"), "alice", primingId)) {
            assertEquals(400, otherSession.status(), "the same principal's other session");
        }
        try (SseConnection forged = resume(alices, "alice", primingId.substring(0, primingId.length() - 2) + "AA")) {
            assertEquals(400, forged.status());
            assertTrue(forged.readBody(Duration.ofSeconds(10)).contains("Last-Event-ID"));
        }
        try (SseConnection ok = resume(alices, "alice", primingId)) {
            assertEquals(200, ok.status(), "the id still resumes on its own session");
            assertEquals("elicitation/create", ok.nextMessage().path("method").asText());
        }
    }

    @Test
    void notificationsCancelledCancelsTheRunningRequestAndEndsItsStreamWithoutAResponse() {
        String session = session("alice");
        int before = cancelledRuns.get();
        try (SseConnection stream = SseConnection.open(
                        server.port(), call(12, "wait_for_cancel"), headers(session, "alice", true))
                .validating2025("tools/call")) {
            assertTrue(stream.next().isPriming());
            ObjectNode cancel = Json.object().put("jsonrpc", "2.0").put("method", "notifications/cancelled");
            cancel.putObject("params").put("requestId", 999).put("reason", "not this one");
            assertEquals(
                    202,
                    post(session, cancel, "alice").status(),
                    "a cancel for an unknown request is accepted and ignored");
            cancel.putObject("params").put("requestId", 12).put("reason", "changed my mind");
            assertEquals(202, post(session("bob"), cancel, "bob").status(), "bob cannot cancel alice's request");
            assertEquals(202, post(session, cancel, "alice").status());
            assertEquals(List.of(), stream.readToEnd(Duration.ofSeconds(30)), "no response for a cancelled request");
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (cancelledRuns.get() == before && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(before + 1, cancelledRuns.get(), "the handler saw the cancellation");
    }

    // --- helpers --------------------------------------------------------------------------

    /** What a client does: resume from the last id it saw until the response came (bounded). */
    private static JsonNode resumeUntilResponse(String session, String lastEventId) {
        String last = lastEventId;
        for (int attempt = 0; attempt < 10; attempt++) {
            try (SseConnection resumed = resume(session, "alice", last)) {
                assertEquals(200, resumed.status());
                List<JsonNode> messages = resumed.readToEnd(POLL_AFTER.multipliedBy(4));
                for (JsonNode message : messages) {
                    if (message.has("result") || message.has("error")) {
                        return message;
                    }
                }
                last = resumed.lastEventId() == null ? last : resumed.lastEventId();
            }
        }
        throw new AssertionError("no response after 10 resumes");
    }

    private static String questionKey(JsonNode request) {
        String id = request.path("id").asText();
        return id.substring(0, id.lastIndexOf('.'));
    }

    private static SseConnection resume(String session, String principal, String lastEventId) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Accept", "text/event-stream");
        headers.put("Mcp-Session-Id", session);
        headers.put("MCP-Protocol-Version", VERSION);
        headers.put("Last-Event-ID", lastEventId);
        headers.put(TestTools.USER_HEADER, principal);
        return SseConnection.get(server.port(), headers).validating2025("tools/call");
    }

    private static String session(String principal) {
        ObjectNode params = Json.object().put("protocolVersion", VERSION);
        params.set("capabilities", Json.parse("{\"elicitation\":{}}"));
        params.set("clientInfo", Json.object().put("name", "resume-test").put("version", "1"));
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
