package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.CallRecording;
import dev.parley.testing.McpTestClient;
import dev.parley.testkit.ReplayCheck;
import dev.parley.testkit.ReplayReport;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /calls/{id}/history} on the management port of a running node, and the replay
 * check over what it exports: the recorded calls replay on the code that made them, and a
 * deliberately changed tool is caught. The export answers under the console's access rule
 * ({@code ConsoleAccessTest} covers its other settings).
 */
class CallHistoryExportTest {
    @TempDir
    static Path data;

    private static TestTools tools;
    private static McpHttpServer server;
    private static McpTestClient client;
    private static final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();

    @BeforeAll
    static void start() {
        tools = new TestTools();
        server = TestTools.start(tools, data, "parley.management.call-history = on");
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static HttpResponse<String> history(String id) throws Exception {
        return http.send(
                HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + server.managementPort() + "/calls/" + id + "/history"))
                        .timeout(Duration.ofSeconds(60))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Runs {@code call} and returns the id of the one call it journaled. */
    private static String newCallId(Runnable call) {
        List<String> before = new ArrayList<>(JournalRows.entityIds(data, "ToolCall|"));
        call.run();
        List<String> after = new ArrayList<>(JournalRows.entityIds(data, "ToolCall|"));
        after.removeAll(before);
        assertEquals(1, after.size(), () -> "one new call in the journal: " + after);
        return after.get(0);
    }

    /** plan_trip, waiting for its confirmation: the destination answered. */
    private static String waitingTrip() {
        return newCallId(() -> {
            ObjectNode request = client.toolCall("plan_trip", Json.object().put("travellers", 2));
            JsonNode asked = assertInputRequired(client.send(request), request);
            ObjectNode retry = client.retry(
                    request,
                    asked.get("requestState").asText(),
                    accept("destination", Json.object().put("city", "Lisbon")));
            assertInputRequired(client.send(retry), retry);
        });
    }

    /** greet, completed: the question answered and the step journaled. */
    private static String completedGreeting() {
        return newCallId(() -> {
            ObjectNode request = client.toolCall("greet", Json.object().put("greeting", "Hello"));
            JsonNode asked = assertInputRequired(client.send(request), request);
            ObjectNode retry = client.retry(
                    request,
                    asked.get("requestState").asText(),
                    accept("who", Json.object().put("name", "Ada").put("age", 36)));
            assertCompleted(client.send(retry), retry);
        });
    }

    @Test
    void aWaitingCallIsExportedAndReplaysOnItsOwnCode() throws Exception {
        String id = waitingTrip();
        HttpResponse<String> response = history(id);
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        CallRecording recording = ReplayCheck.read(response.body());
        assertEquals(id, recording.id());
        assertEquals("plan_trip", recording.name());
        assertEquals(CallRecording.Status.INPUT_REQUIRED, recording.status());
        assertEquals(
                List.of("destination", "confirm"),
                recording.questions().stream().map(q -> q.key()).toList());
        assertEquals(List.of("destination"), List.copyOf(recording.answers().keySet()));
        ReplayReport report = ReplayCheck.check(tools.definition(), recording);
        assertTrue(report.deterministic(), report.toString());
    }

    @Test
    void aDeliberatelyChangedToolIsCaught() throws Exception {
        CallRecording trip = ReplayCheck.read(history(waitingTrip()).body());
        // The new version asks the answered question with another message.
        ToolDefinition<TestTools.TripArgs> changedTrip = ToolDefinition.tool("plan_trip", TestTools.TripArgs.class)
                .handler((args, ctx) -> {
                    ctx.elicit(
                            "destination",
                            Elicitation.form("Where would you like to go?")
                                    .field("city", FormField.string("City"))
                                    .build());
                    return ToolResult.text("unused");
                });
        ReplayReport tripReport = ReplayCheck.check(changedTrip, trip);
        assertFalse(tripReport.deterministic());
        assertEquals(
                ReplayReport.Kind.QUESTION_CHANGED, tripReport.problems().get(0).kind(), tripReport.toString());

        CallRecording greeting = ReplayCheck.read(history(completedGreeting()).body());
        assertEquals(CallRecording.Status.COMPLETED, greeting.status());
        assertTrue(ReplayCheck.check(tools.definition(), greeting).deterministic());
        // The new version performs a new effect before the journaled one.
        AtomicInteger audits = new AtomicInteger();
        ToolDefinition<TestTools.GreetArgs> changedGreet = ToolDefinition.tool("greet", TestTools.GreetArgs.class)
                .handler((args, ctx) -> {
                    ctx.elicit(
                            "who",
                            Elicitation.form("Who are you?")
                                    .field("name", FormField.string("Your name"))
                                    .field("age", FormField.integer("Your age").minimum(0))
                                    .build());
                    ctx.step("audit", Integer.class, audits::incrementAndGet);
                    ctx.step("greet", Integer.class, () -> 0);
                    return ToolResult.text("unused");
                });
        ReplayReport greetReport = ReplayCheck.check(changedGreet, greeting);
        assertEquals(ReplayReport.Kind.NEW_STEP, greetReport.problems().get(0).kind(), greetReport.toString());
        assertEquals(0, audits.get(), "the check ran no action");
    }

    @Test
    void theExportAnswersUnderTheConsolesLoopbackRule() throws Exception {
        // parley.console.access is loopback by default: this machine, for localhost only. A page
        // on another site whose name resolves to 127.0.0.1 (DNS rebinding) gets no history.
        String path = "/calls/" + completedGreeting() + "/history";
        assertEquals(200, rawStatus(path, "localhost:" + server.managementPort()));
        assertEquals(403, rawStatus(path, "rebound.example"));
    }

    /** The status of a GET sent over a plain socket: java.net.http does not let a caller set Host. */
    private static int rawStatus(String path, String host) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.managementPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            return Integer.parseInt(response.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
        }
    }

    @Test
    void unknownAndMalformedIdsAreAnsweredClearly() throws Exception {
        HttpResponse<String> unknown = history("6f1c2a9e-8d0b-4c55-9a51-3f3d1e2b7c40");
        assertEquals(404, unknown.statusCode());
        assertTrue(unknown.body().contains("no call or task"), unknown.body());
        HttpResponse<String> malformed = history("x'%20OR%201=1");
        assertEquals(400, malformed.statusCode(), malformed.body());
    }
}
