package dev.parley.http.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.pipeline.CallCaps;
import dev.parley.http.McpHttpServer;
import dev.parley.http.testing.TwoNodeCluster;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's ceiling of waiting calls ({@code parley.quotas.per-node.waiting-calls}) counts the
 * calls whose waiting rounds it served, until they end, on whichever node they end. Two nodes in
 * one JVM (two actor systems joined over Artery on 127.0.0.1), one PostgreSQL journal, shared
 * requestState keys: calls asked on A and finished on B free A's places at once, not when their
 * requestState expires (an hour here).
 */
class NodeCeilingAcrossNodesTest {
    @TempDir
    static Path data;

    private static TwoNodeCluster cluster;
    private static McpHttpServer nodeA;
    private static McpHttpServer nodeB;

    record NameArgs(@Description("Greeting") String greeting) {}

    @BeforeAll
    static void start() throws IOException {
        cluster = new TwoNodeCluster(data, """
                parley.request-state.lifetime = 1 hour
                parley.quotas.per-node.waiting-calls = 2
                """);
        nodeA = cluster.node(McpHttpServer.builder(definition()), true)
                .dataDirectory(data.resolve("a"))
                .start();
        nodeB = cluster.node(McpHttpServer.builder(definition()), false)
                .dataDirectory(data.resolve("b"))
                .start();
        TwoNodeCluster.awaitUp(nodeA, nodeB);
        // The nodes learn of each other's lease-ends topic through the receptionist, a gossip round
        // after they joined; a probe on each node counts the topic's instances until all four are known.
        ActorRef<Topic.Command<CallCaps.LeaseEnded>> probeA = probe(nodeA);
        ActorRef<Topic.Command<CallCaps.LeaseEnded>> probeB = probe(nodeB);
        TwoNodeCluster.await(
                "the nodes know each other's topic",
                () -> instances(nodeA, probeA) >= 4 && instances(nodeB, probeB) >= 4);
    }

    private static ActorRef<Topic.Command<CallCaps.LeaseEnded>> probe(McpHttpServer node) {
        ActorSystem<?> system = node.node().system();
        ActorRef<Topic.Command<CallCaps.LeaseEnded>> topic = system.systemActorOf(
                Topic.create(CallCaps.LeaseEnded.class, "parley-lease-ends"), "lease-ends-probe", Props.empty());
        topic.tell(Topic.subscribe(system.systemActorOf(
                Behaviors.<CallCaps.LeaseEnded>ignore(), "lease-ends-probe-subscriber", Props.empty())));
        return topic;
    }

    private static int instances(McpHttpServer node, ActorRef<Topic.Command<CallCaps.LeaseEnded>> topic) {
        ActorSystem<?> system = node.node().system();
        return AskPattern.<Topic.Command<CallCaps.LeaseEnded>, Topic.TopicStats>ask(
                        topic, Topic::getTopicStats, Duration.ofSeconds(5), system.scheduler())
                .toCompletableFuture()
                .join()
                .topicInstanceCount();
    }

    @AfterAll
    static void stop() throws IOException {
        // The joining node leaves first; the first one holds the shard coordinator.
        for (McpHttpServer node : new McpHttpServer[] {nodeB, nodeA}) {
            if (node != null) {
                node.close();
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(120)
    void callsAskedOnOneNodeAndFinishedOnAnotherFreeTheFirstNodesPlaces() {
        McpTestClient onA = new McpTestClient(nodeA.port());
        McpTestClient onB = new McpTestClient(nodeB.port());
        ObjectNode first = onA.toolCall("greet", Json.object().put("greeting", "hello"));
        ObjectNode second = onA.toolCall("greet", Json.object().put("greeting", "hi"));
        String firstState = onA.send(first).requestState();
        String secondState = onA.send(second).requestState();
        McpTestClient.Reply full = onA.send(onA.toolCall("greet", Json.object().put("greeting", "hey")));
        assertEquals(503, full.status(), full.body());
        assertEquals(CallCaps.NODE_FULL, full.errorCode(), "A holds its two places");

        assertEquals(
                "hello, Ada",
                onB.send(onB.retry(first, firstState, name("Ada"))).text());
        assertEquals(
                "hi, Bo", onB.send(onB.retry(second, secondState, name("Bo"))).text());

        // B tells every node the calls ended; A frees their places as soon as it hears.
        McpTestClient.Reply again;
        long deadline = System.nanoTime() + 10_000_000_000L;
        do {
            TwoNodeCluster.sleep(100);
            again = onA.send(onA.toolCall("greet", Json.object().put("greeting", "hey")));
        } while (again.status() == 503 && System.nanoTime() < deadline);
        assertEquals(200, again.status(), "A took a new waiting call: " + again.body());
        assertEquals("input_required", again.resultType(), again.body());
    }

    private static ObjectNode name(String name) {
        return McpTestClient.accept("name", Json.object().put("name", name));
    }

    private static McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-node-ceiling-tests", "0.0.1")
                .tool(ToolDefinition.tool("greet", NameArgs.class)
                        .description("Asks a name, then greets it.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "name",
                                    Elicitation.form("Who?")
                                            .field("name", FormField.string("Name"))
                                            .build());
                            return ToolResult.text(args.greeting() + ", "
                                    + answer.orElseReturn(refusal -> ToolResult.text("no name"))
                                            .string("name"));
                        }))
                .build();
    }
}
