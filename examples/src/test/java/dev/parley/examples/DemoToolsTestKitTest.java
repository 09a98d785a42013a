package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertInputRequired;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.CallRecording;
import dev.parley.testing.McpTestClient;
import dev.parley.testkit.ReplayCheck;
import dev.parley.testkit.ReplayReport;
import dev.parley.testkit.Round;
import dev.parley.testkit.ToolTestKit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo tools under the test kit (the guide's examples): rounds driven without a node, and
 * the replay check over calls recorded by a running demo node and by the demo's untyped
 * predecessor, the way to change a tool while calls wait.
 */
class DemoToolsTestKitTest {
    @TempDir
    Path data;

    private DemoTools tools;

    @BeforeEach
    void setUp() {
        tools = new DemoTools(new DemoLedger(data), () -> "http://127.0.0.1:8080");
    }

    // snippet: testkit
    @Test
    void scheduleReleaseSchedulesOnce() {
        try (ToolTestKit kit = ToolTestKit.of(tools.definition(), "schedule_release")) {
            Round asked = kit.call(Map.of("service", "billing"));
            assertEquals(
                    "When should billing be released?",
                    asked.question("window").path("message").asText());
            Round done = kit.answer("window", Map.of("window", "2026-12-01T10:00:00Z"));
            assertTrue(done.text().startsWith("Release REL-"), done.text());
            kit.rerun(); // as after a crash, or a repeated retry: the step does not run again
            kit.assertStepRanOnce("schedule");
        }
    }
    // end snippet

    @Test
    void aDeclinedReleaseSchedulesNothing() {
        try (ToolTestKit kit = ToolTestKit.of(tools.definition(), "schedule_release")) {
            kit.call(Map.of("service", "billing"));
            assertEquals(
                    "No release scheduled for billing: the request was declined.",
                    kit.decline("window").text());
            assertEquals(0, kit.stepRuns("schedule"));
        }
    }

    /** schedule_release as it was before typed questions: a hand-built form and an instanceof check. */
    private static ToolDefinition<DemoTools.ScheduleRelease> untypedScheduleRelease() {
        return ToolDefinition.tool("schedule_release", DemoTools.ScheduleRelease.class)
                .handler((args, ctx) -> {
                    ElicitAnswer answer = ctx.elicit(
                            "window",
                            Elicitation.form("When should " + args.service() + " be released?")
                                    .field("window", FormField.string("Release window start", "date-time"))
                                    .build());
                    if (!(answer instanceof ElicitAnswer.Accepted accepted)) {
                        return ToolResult.text("No release scheduled.");
                    }
                    String window = accepted.string("window");
                    String ticket = ctx.step("schedule", String.class, key -> "REL-" + key.substring(0, 8));
                    return ToolResult.text("Release " + ticket + " scheduled for " + window + ".");
                });
    }

    @Test
    void callsWaitingOnTheUntypedVersionReplayOnTheTypedOne() {
        CallRecording waiting;
        CallRecording completed;
        try (ToolTestKit kit = ToolTestKit.of(untypedScheduleRelease())) {
            kit.call(Map.of("service", "billing"));
            waiting = kit.recording();
            kit.answer("window", Map.of("window", "2026-12-01T10:00:00Z"));
            completed = kit.recording();
        }
        for (CallRecording recording : List.of(waiting, completed)) {
            ReplayCheck.check(tools.definition(), recording).assertDeterministic();
        }
    }

    @Test
    void aCallExportedFromARunningDemoNodeReplaysAndARenamedFieldIsCaught() throws Exception {
        McpHttpServer server = Launcher.startDemo(
                0, data.resolve("node"), ConfigFactory.parseString("parley.management.call-history = on"));
        try {
            McpTestClient client = new McpTestClient(server.port());
            ObjectNode request =
                    client.toolCall("schedule_release", Json.object().put("service", "billing"));
            assertInputRequired(client.send(request), request);
            String id = onlyCallId(data.resolve("node"));
            HttpResponse<String> exported = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.managementPort() + "/calls/"
                                            + id + "/history"))
                                    .timeout(Duration.ofSeconds(60))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(200, exported.statusCode(), exported.body());

            assertReplays(exported.body());
            CallRecording waiting = ReplayCheck.read(exported.body());

            // A "harmless" rename of the answer record's field changes the question: caught.
            record RenamedWindow(
                    @dev.parley.runtime.Title("Release window start")
                    java.time.Instant start) {}
            ToolDefinition<DemoTools.ScheduleRelease> renamed = ToolDefinition.tool(
                            "schedule_release", DemoTools.ScheduleRelease.class)
                    .handler((args, ctx) -> {
                        ctx.elicit(
                                "window",
                                Elicitation.form(
                                        "When should " + args.service() + " be released?", RenamedWindow.class));
                        return ToolResult.text("unused");
                    });
            ReplayReport report = ReplayCheck.check(renamed, waiting);
            assertFalse(report.deterministic());
            assertEquals(
                    ReplayReport.Kind.QUESTION_CHANGED, report.problems().get(0).kind(), report.toString());
        } finally {
            server.close();
        }
    }

    // snippet: replay_check
    /** A call's history, exported from a node with GET /calls/{id}/history, against today's code. */
    void assertReplays(String exportedHistory) {
        CallRecording recording = ReplayCheck.read(exportedHistory);
        ReplayCheck.check(tools.definition(), recording).assertDeterministic();
    }
    // end snippet

    /**
     * The one call the node journaled (its data directory holds only this test's calls), once its
     * start is written: a first round that ran no step is answered just before.
     */
    private static String onlyCallId(Path dataDirectory) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        String id = callIdOrNull(dataDirectory);
        while (id == null && System.nanoTime() < deadline) {
            Thread.sleep(20);
            id = callIdOrNull(dataDirectory);
        }
        assertTrue(id != null, "the waiting call is journaled");
        return id;
    }

    private static String callIdOrNull(Path dataDirectory) throws Exception {
        // The store the test kit's node opened: the configured one (SQLite unless -Dparley.journal.database says
        // otherwise).
        dev.parley.persistence.JournalDatabase database = dev.parley.persistence.JournalDatabase.fromConfig(
                dev.parley.actors.NodeConfig.load(com.typesafe.config.ConfigFactory.empty()), dataDirectory);
        try (var connection =
                        java.sql.DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                var statement = connection.createStatement();
                var rows = statement.executeQuery("SELECT DISTINCT \"persistence_id\" FROM \"event_journal\" "
                        + "WHERE \"persistence_id\" LIKE 'ToolCall|%'")) {
            if (!rows.next()) {
                return null;
            }
            String id = rows.getString(1).substring("ToolCall|".length());
            assertFalse(rows.next(), "one call only");
            return id;
        }
    }
}
