package dev.parley.http.internal.ops;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The management port of a running node: /ready, /alive, and exact metrics after a known mix of requests. */
class OperationsEndpointTest {
    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    record TextArgs(@Description("Some text") String text) {}

    static McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-ops-tests", "0.0.1")
                .tool(ToolDefinition.tool("echo", TextArgs.class)
                        .description("Echoes its input.")
                        .handler((args, ctx) -> ToolResult.text("echo: " + args.text())))
                .tool(ToolDefinition.tool("ask", TextArgs.class)
                        .description("Asks for a name, then answers.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "who",
                                    Elicitation.form("Who are you?")
                                            .field("name", FormField.string("Your name"))
                                            .build());
                            return ToolResult.text(
                                    answer instanceof ElicitAnswer.Accepted accepted
                                            ? args.text() + ", " + accepted.string("name")
                                            : "no answer");
                        }))
                .build();
    }

    @BeforeAll
    static void start() {
        server = McpHttpServer.builder(definition())
                .dataDirectory(data)
                .port(0)
                .config(ConfigFactory.parseString(
                        "parley.management.port = 0\nparley.metrics.journal-scan-interval = 200ms"))
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
    void aStartedNodeIsReadyAndAlive() {
        assertTrue(server.managementPort() > 0);
        assertEquals(200, Prometheus.status(server.managementPort(), "/ready"));
        assertEquals(200, Prometheus.status(server.managementPort(), "/alive"));
    }

    @Test
    void metricsMoveByExactlyTheRequestsSent() throws InterruptedException {
        String before = Prometheus.scrape(server.managementPort());

        for (int i = 0; i < 3; i++) {
            ObjectNode echo = client.toolCall("echo", Json.object().put("text", "e" + i));
            assertCompleted(client.send(echo), echo);
        }
        ObjectNode ask = client.toolCall("ask", Json.object().put("text", "Hello"));
        String state =
                assertInputRequired(client.send(ask), ask).get("requestState").asText();
        ObjectNode secondAsk = client.toolCall("ask", Json.object().put("text", "Hi"));
        assertInputRequired(client.send(secondAsk), secondAsk);
        ObjectNode answer = client.retry(ask, state, accept("who", Json.object().put("name", "Ada")));
        assertCompleted(client.send(answer), answer);
        assertEquals(
                -32601, client.send(client.request("no/such", Json.object())).errorCode());
        assertEquals(405, client.method("GET").status());
        assertEquals(
                400,
                client.send(client.toolCall("echo", Json.object().put("text", "x")), Map.of("Mcp-Name", "not-echo"))
                        .status());

        String after = Prometheus.scrape(server.managementPort());
        String duration = "mcp_server_operation_duration_seconds_count";
        assertEquals(
                3,
                delta(
                        before,
                        after,
                        duration,
                        Map.of(
                                "mcp_method_name",
                                "tools/call",
                                "gen_ai_tool_name",
                                "echo",
                                "parley_result_type",
                                "complete",
                                "mcp_protocol_version",
                                McpTestClient.VERSION)));
        assertEquals(
                2,
                delta(
                        before,
                        after,
                        duration,
                        Map.of("gen_ai_tool_name", "ask", "parley_result_type", "input_required")));
        assertEquals(
                1, delta(before, after, duration, Map.of("gen_ai_tool_name", "ask", "parley_result_type", "complete")));
        assertEquals(
                1,
                delta(
                        before,
                        after,
                        duration,
                        Map.of(
                                "mcp_method_name",
                                "_other",
                                "parley_result_type",
                                "error",
                                "rpc_response_status_code",
                                "-32601")));
        // Every request lands in the +Inf bucket of the histogram, and in no other series.
        assertEquals(7, delta(before, after, "mcp_server_operation_duration_seconds_bucket", Map.of("le", "+Inf")));
        assertEquals(7, delta(before, after, duration, Map.of()));
        assertEquals(1, delta(before, after, "parley_edge_refused_total", Map.of("reason", "method_not_allowed")));
        assertEquals(1, delta(before, after, "parley_edge_refused_total", Map.of("reason", "invalid_message")));
        // Parley's own: one durable call ended, after two rounds; it passivated at once.
        assertEquals(1, delta(before, after, "parley_calls_ended_total", Map.of("outcome", "completed")));
        assertEquals(1, delta(before, after, "parley_call_rounds_count", Map.of()));
        assertEquals(2, delta(before, after, "parley_call_rounds_sum", Map.of()));
        assertEquals(1, delta(before, after, "parley_entity_passivations_total", Map.of("type", "ToolCall")));
        // From the journal, cluster-wide: the second "ask" waits for its answer.
        awaitSample("parley_calls_waiting", 1);
        // JVM and Pekko basics are there too.
        assertTrue(Prometheus.sample(after, "jvm_memory_used_bytes", Map.of()) > 0);
        assertFalse(after.contains("pekko_cluster_members"), "a node on the embedded journal runs alone: no cluster");
        // Where the handlers ran: first rounds on the requests' own threads, the retry's round posted
        // to the dispatcher by its entity; none is under way now.
        assertEquals(5, delta(before, after, "parley_handler_runs_total", Map.of("thread", "request_thread")));
        assertEquals(1, delta(before, after, "parley_handler_runs_total", Map.of("thread", "dispatcher")));
        assertEquals(0, delta(before, after, "parley_handler_runs_total", Map.of("thread", "tool_executor")));
        assertEquals(0, Prometheus.sample(after, "parley_handler_runs_on_dispatcher", Map.of()));
        // The pools: the tool executor, and Pekko's fork-join pool as the default dispatcher.
        assertEquals(16, Prometheus.sample(after, "executor_pool_max_threads", Map.of("name", "parley-tool")));
        assertTrue(Prometheus.sample(after, "executor_parallelism_threads", Map.of("name", "pekko-default-dispatcher"))
                > 0);
    }

    /** Bounded wait for a journal-backed gauge (refreshed every 200 ms here) to show {@code expected}. */
    private static void awaitSample(String name, double expected) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        double value;
        do {
            value = Prometheus.sample(Prometheus.scrape(server.managementPort()), name, Map.of());
            if (value == expected) {
                return;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        assertEquals(expected, value, name);
    }

    private static double delta(String before, String after, String name, Map<String, String> labels) {
        return Prometheus.sample(after, name, labels) - Prometheus.sample(before, name, labels);
    }
}
