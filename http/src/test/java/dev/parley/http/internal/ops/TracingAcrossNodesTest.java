package dev.parley.http.internal.ops;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertTaskCreated;
import static dev.parley.testing.McpAssertions.awaitTaskStatus;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.http.McpHttpServer;
import dev.parley.http.testing.TwoNodeCluster;
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
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The links of a call's trace hold when its rounds are served by two cluster members.
 * Two nodes in one JVM (two actor systems joined over Artery on 127.0.0.1, so entity commands
 * really cross a remote boundary, serialized), one PostgreSQL journal, shared requestState keys,
 * and each node its own OpenTelemetry SDK and in-memory exporter, as two real nodes would export
 * to a collector. A call's requests alternate between the nodes, so at least one round runs on
 * the node that did not receive its request: that round's span must still be the child of the
 * request span the other node exported, and link to the call's first span.
 */
class TracingAcrossNodesTest {
    @TempDir
    static Path data;

    private static TwoNodeCluster cluster;
    private static Node nodeA;
    private static Node nodeB;

    record TripArgs(@Description("Travellers") int travellers) {}

    record ReportArgs(@Description("Title") String title) {}

    /** One cluster member: its server, its spans, a client to its HTTP port. */
    record Node(
            String name, McpHttpServer server, OpenTelemetrySdk sdk, InMemorySpanExporter spans, McpTestClient client)
            implements AutoCloseable {
        static Node start(String name, McpServerDefinition definition, boolean seed, Path data) throws IOException {
            InMemorySpanExporter spans = InMemorySpanExporter.create();
            OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder()
                            .addSpanProcessor(SimpleSpanProcessor.create(spans))
                            .build())
                    .build();
            McpHttpServer server = cluster.node(McpHttpServer.builder(definition), seed)
                    .dataDirectory(data)
                    .openTelemetry(sdk)
                    .start();
            return new Node(name, server, sdk, spans, new McpTestClient(server.port()));
        }

        List<SpanData> finished(Predicate<SpanData> filter) {
            return spans.getFinishedSpanItems().stream().filter(filter).toList();
        }

        @Override
        public void close() {
            server.close();
            sdk.close();
        }
    }

    @BeforeAll
    static void start() throws IOException {
        cluster = new TwoNodeCluster(data, "");
        McpServerDefinition definition = definition();
        nodeA = Node.start("A", definition, true, data.resolve("a"));
        nodeB = Node.start("B", definition, false, data.resolve("b"));
        TwoNodeCluster.awaitUp(nodeA.server(), nodeB.server());
    }

    @AfterAll
    static void stop() throws IOException {
        // The joining node leaves first; the first one holds the shard coordinator.
        for (Node node : new Node[] {nodeB, nodeA}) {
            if (node != null) {
                node.close();
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void clear() {
        nodeA.spans().reset();
        nodeB.spans().reset();
    }

    @Test
    void theRoundsOfACallLinkToItsFirstSpanWhicheverNodeServesThem() {
        // Requests on A, B, A: the call's entity lives on one of the two, so a round crosses nodes.
        Node[] servedBy = {nodeA, nodeB, nodeA};
        ObjectNode first = nodeA.client().toolCall("trip", Json.object().put("travellers", 2));
        String state = assertInputRequired(nodeA.client().send(first), first)
                .get("requestState")
                .asText();
        ObjectNode second =
                nodeA.client().retry(first, state, accept("where", Json.object().put("city", "Oslo")));
        state = assertInputRequired(nodeB.client().send(second), second)
                .get("requestState")
                .asText();
        ObjectNode third =
                nodeA.client().retry(first, state, accept("sure", Json.object().put("ok", true)));
        assertCompleted(nodeA.client().send(third), third);

        List<SpanData> onA = awaitSpans(nodeA, s -> s.getKind() == SpanKind.SERVER, 2);
        SpanData onB = awaitSpans(nodeB, s -> s.getKind() == SpanKind.SERVER, 1).get(0);
        List<SpanData> requests = List.of(onA.get(0), onB, onA.get(1));
        SpanData firstRequest = requests.get(0);
        List<SpanData> rounds = awaitSpansOnEither(s -> s.getName().equals("tools/call trip round"), 2);
        SpanData step =
                awaitSpansOnEither(s -> s.getName().equals("step book"), 1).get(0);

        assertEquals(
                3,
                requests.stream().map(SpanData::getTraceId).distinct().count(),
                "three requests, no client trace: three traces");
        boolean crossed = false;
        for (int i = 0; i < 2; i++) {
            SpanData round = rounds.get(i);
            SpanData request = requests.get(i + 1);
            assertEquals(request.getTraceId(), round.getTraceId(), "round " + (i + 2) + " is in its request's trace");
            assertEquals(request.getSpanId(), round.getParentSpanId(), "round " + (i + 2) + " runs under its request");
            assertEquals(i + 2L, round.getAttributes().get(AttributeKey.longKey(ParleyTracing.ROUND)));
            assertEquals(1, round.getLinks().size());
            assertSameSpan(
                    firstRequest,
                    round.getLinks().get(0).getSpanContext(),
                    "every round links to the call's first span, exported by node A");
            crossed |= !exportedBy(round).equals(servedBy[i + 1].name());
        }
        assertTrue(crossed, "a round ran on the node that did not receive its request");
        assertEquals(exportedBy(rounds.get(1)), exportedBy(step), "the step runs where its round runs");
        assertEquals(rounds.get(1).getSpanId(), step.getParentSpanId(), "the journaled step is a child of its round");
        assertEquals(rounds.get(1).getTraceId(), step.getTraceId());
    }

    @Test
    void aTasksRunOnTheOtherNodeLinksToTheRequestThatCreatedIt() {
        // The task id (so its shard) is the server's choice: create tasks on node A until one runs
        // on node B. New shards go to the member with fewest, so this takes a few attempts at most.
        // (Not on alternate nodes: with both counts equal a new shard may stay with the requester.)
        for (int attempt = 0; attempt < 12; attempt++) {
            ObjectNode create = nodeA.client()
                    .toolCall("report", Json.object().put("title", "Q" + attempt), McpTestClient.WITH_TASKS);
            String taskId = assertTaskCreated(nodeA.client().send(create), create)
                    .get("taskId")
                    .asText();
            awaitTaskStatus(nodeA.client(), taskId, Set.of("completed"), Duration.ofSeconds(20), new ArrayList<>());
            Predicate<SpanData> ofThisTask =
                    s -> taskId.equals(s.getAttributes().get(AttributeKey.stringKey(ParleyTracing.TASK_ID)));
            SpanData request = awaitSpans(
                            nodeA,
                            ofThisTask.and(s -> s.getKind() == SpanKind.SERVER
                                    && s.getName().equals("tools/call report")),
                            1)
                    .get(0);
            SpanData run = awaitSpansOnEither(ofThisTask.and(s -> s.getName().equals("tools/call report task")), 1)
                    .get(0);
            if (exportedBy(run).equals(nodeA.name())) {
                continue; // it ran on A; try another task id
            }
            Node runner = nodeB;
            SpanData step = awaitSpans(
                            runner,
                            s -> s.getName().equals("step publish")
                                    && s.getParentSpanId().equals(run.getSpanId()),
                            1)
                    .get(0);
            assertSameSpan(
                    request, run.getLinks().get(0).getSpanContext(), "the run links to its request on the other node");
            assertNotEquals(request.getTraceId(), run.getTraceId(), "the background run is its own trace");
            assertEquals(run.getTraceId(), step.getTraceId(), "the journaled step is in the run's trace");
            return;
        }
        throw new AssertionError("no task created on A ran on B in 12 attempts");
    }

    private static McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-trace-cluster-tests", "0.0.1")
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
    }

    /** The same span: ids equal (a context that travelled between nodes is marked remote). */
    private static void assertSameSpan(
            SpanData expected, io.opentelemetry.api.trace.SpanContext actual, String message) {
        assertEquals(expected.getTraceId(), actual.getTraceId(), message);
        assertEquals(expected.getSpanId(), actual.getSpanId(), message);
    }

    /** Which node's exporter holds {@code span}. */
    private static String exportedBy(SpanData span) {
        return Stream.of(nodeA, nodeB)
                .filter(node -> node.spans().getFinishedSpanItems().contains(span))
                .map(Node::name)
                .findFirst()
                .orElseThrow();
    }

    private static List<SpanData> awaitSpansOnEither(Predicate<SpanData> filter, int count) {
        return awaitFound(() -> Stream.concat(nodeA.finished(filter).stream(), nodeB.finished(filter).stream()), count);
    }

    private static List<SpanData> awaitSpans(Node node, Predicate<SpanData> filter, int count) {
        return awaitFound(() -> node.finished(filter).stream(), count);
    }

    /** The finished spans found, in start order, once there are {@code count} of them (bounded wait). */
    private static List<SpanData> awaitFound(java.util.function.Supplier<Stream<SpanData>> found, int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<SpanData> spans;
        do {
            spans = found.get()
                    .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                    .toList();
            if (spans.size() >= count) {
                return spans;
            }
            TwoNodeCluster.sleep(20);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("expected " + count + " spans, found " + spans);
    }
}
