package dev.parley.http.internal.ops;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertTaskCreated;
import static dev.parley.testing.McpAssertions.awaitTaskStatus;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spans collected by the SDK's in-memory exporter: a three-round call (one server span per
 * request, a span per later round that is the child of its request and links to the first
 * one, a step span under its round) and a task (its background run linked to the request that
 * created it). Messages are serialized even locally, as between nodes: the context travels in
 * the entity commands.
 */
class TracingTest {
    private static final String CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";

    @TempDir
    static Path data;

    private static final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private static OpenTelemetrySdk openTelemetry;
    private static McpHttpServer server;
    private static McpTestClient client;

    record TripArgs(@Description("Travellers") int travellers) {}

    record ReportArgs(@Description("Title") String title) {}

    @BeforeAll
    static void start() {
        openTelemetry = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .build();
        McpServerDefinition definition = McpServerDefinition.builder("parley-trace-tests", "0.0.1")
                .tool(ToolDefinition.tool("trip", TripArgs.class)
                        .description("Where to, then confirm, then book.")
                        .handler((args, ctx) -> {
                            ElicitAnswer where = ctx.elicit(
                                    "where",
                                    Elicitation.form("Where?")
                                            .field("city", FormField.string("City"))
                                            .build());
                            ElicitAnswer sure = ctx.elicit(
                                    "sure",
                                    Elicitation.form("Sure?")
                                            .field("ok", FormField.bool("OK"))
                                            .build());
                            if (!(where instanceof ElicitAnswer.Accepted city)
                                    || !(sure instanceof ElicitAnswer.Accepted)) {
                                return ToolResult.text("no trip");
                            }
                            int booking = ctx.step("book", Integer.class, () -> 7);
                            return ToolResult.text("booked " + city.string("city") + " #" + booking);
                        }))
                .tool(ToolDefinition.tool("report", ReportArgs.class)
                        .description("Becomes a task, then publishes in a step.")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((args, ctx) -> {
                            ctx.becomeTask();
                            String id = ctx.step("publish", String.class, () -> "RPT-1");
                            return ToolResult.text("published " + args.title() + " as " + id);
                        }))
                .build();
        server = McpHttpServer.builder(definition)
                .dataDirectory(data)
                .port(0)
                .config(ConfigFactory.parseString(
                        "parley.management.enabled = off\npekko.actor.serialize-messages = on"))
                .openTelemetry(openTelemetry)
                .start();
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (openTelemetry != null) {
            openTelemetry.close();
        }
    }

    @BeforeEach
    void clear() {
        spans.reset();
    }

    @Test
    void theRoundsOfACallAreChildrenOfTheirRequestsAndLinkToTheFirst() {
        ObjectNode first = client.toolCall("trip", Json.object().put("travellers", 2));
        ((ObjectNode) first.path("params").path("_meta"))
                .put("traceparent", "00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01");
        String state = assertInputRequired(client.send(first), first)
                .get("requestState")
                .asText();
        ObjectNode second =
                client.retry(first, state, accept("where", Json.object().put("city", "Oslo")));
        state = assertInputRequired(client.send(second), second)
                .get("requestState")
                .asText();
        ObjectNode third =
                client.retry(first, state, accept("sure", Json.object().put("ok", true)));
        assertCompleted(client.send(third), third);

        List<SpanData> requests = awaitSpans(s -> s.getKind() == SpanKind.SERVER, 3);
        List<SpanData> rounds = awaitSpans(s -> s.getName().equals("tools/call trip round"), 2);
        SpanData step = awaitSpans(s -> s.getName().equals("step book"), 1).get(0);

        SpanData firstRequest = requests.get(0);
        assertEquals("tools/call trip", firstRequest.getName());
        assertEquals(CLIENT_TRACE, firstRequest.getTraceId(), "the client's trace, from params._meta.traceparent");
        assertEquals(CLIENT_SPAN, firstRequest.getParentSpanId());
        assertEquals("tools/call", firstRequest.getAttributes().get(AttributeKey.stringKey("mcp.method.name")));
        assertEquals("trip", firstRequest.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.name")));
        assertEquals(
                McpTestClient.VERSION,
                firstRequest.getAttributes().get(AttributeKey.stringKey("mcp.protocol.version")));
        assertEquals(
                first.get("id").asText(),
                firstRequest.getAttributes().get(AttributeKey.stringKey("jsonrpc.request.id")));
        assertEquals(
                "input_required", firstRequest.getAttributes().get(AttributeKey.stringKey(ParleyTracing.RESULT_TYPE)));
        assertEquals(
                "complete", requests.get(2).getAttributes().get(AttributeKey.stringKey(ParleyTracing.RESULT_TYPE)));

        for (int i = 0; i < 2; i++) {
            SpanData round = rounds.get(i);
            SpanData request = requests.get(i + 1);
            assertEquals(request.getSpanId(), round.getParentSpanId(), "round " + (i + 2) + " runs under its request");
            assertEquals(request.getTraceId(), round.getTraceId());
            assertEquals(i + 2L, round.getAttributes().get(AttributeKey.longKey(ParleyTracing.ROUND)));
            assertEquals(1, round.getLinks().size());
            assertEquals(
                    firstRequest.getSpanContext().getSpanId(),
                    round.getLinks().get(0).getSpanContext().getSpanId(),
                    "every round links to the call's first span");
        }
        String callId = rounds.get(0).getAttributes().get(AttributeKey.stringKey(ParleyTracing.CALL_ID));
        assertTrue(callId != null && !callId.isEmpty());
        assertEquals(callId, rounds.get(1).getAttributes().get(AttributeKey.stringKey(ParleyTracing.CALL_ID)));
        assertEquals(rounds.get(1).getSpanId(), step.getParentSpanId(), "the journaled step is a child of its round");
    }

    @Test
    void aTasksBackgroundRunLinksToTheRequestThatCreatedIt() {
        ObjectNode create = client.toolCall("report", Json.object().put("title", "Q3"), McpTestClient.WITH_TASKS);
        String taskId =
                assertTaskCreated(client.send(create), create).get("taskId").asText();
        awaitTaskStatus(client, taskId, Set.of("completed"), Duration.ofSeconds(20), new java.util.ArrayList<>());

        SpanData request = awaitSpans(s -> s.getName().equals("tools/call report") && s.getKind() == SpanKind.SERVER, 1)
                .get(0);
        SpanData run =
                awaitSpans(s -> s.getName().equals("tools/call report task"), 1).get(0);
        SpanData step = awaitSpans(s -> s.getName().equals("step publish"), 1).get(0);

        assertEquals("task", request.getAttributes().get(AttributeKey.stringKey(ParleyTracing.RESULT_TYPE)));
        assertEquals(taskId, request.getAttributes().get(AttributeKey.stringKey(ParleyTracing.TASK_ID)));
        assertEquals(taskId, run.getAttributes().get(AttributeKey.stringKey(ParleyTracing.TASK_ID)));
        assertEquals(request.getSpanId(), run.getLinks().get(0).getSpanContext().getSpanId());
        assertEquals(run.getSpanId(), step.getParentSpanId());
    }

    /** The finished spans that match, in start order, once there are {@code count} of them (bounded wait). */
    private static List<SpanData> awaitSpans(Predicate<SpanData> filter, int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<SpanData> found;
        do {
            found = spans.getFinishedSpanItems().stream()
                    .filter(filter)
                    .sorted(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos))
                    .toList();
            if (found.size() >= count) {
                return found;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        } while (System.nanoTime() < deadline);
        throw new AssertionError(
                "expected " + count + " spans, found " + found + " among " + spans.getFinishedSpanItems());
    }
}
