package dev.parley.http.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.pipeline.CallCaps;
import dev.parley.http.McpHttpServer;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
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

    private static EmbeddedPostgres postgres;
    private static McpHttpServer nodeA;
    private static McpHttpServer nodeB;

    record NameArgs(@Description("Greeting") String greeting) {}

    @BeforeAll
    static void start() throws IOException {
        postgres = EmbeddedPostgres.builder()
                .setDataDirectory(data.resolve("postgres"))
                .setPort(freePort())
                .start();
        int arteryA = freePort();
        byte[] secret = new byte[32];
        new java.security.SecureRandom().nextBytes(secret);
        String shared = """
                parley.management.enabled = off
                pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
                pekko.cluster.seed-nodes = ["pekko://parley@127.0.0.1:%d"]
                parley.request-state.keys = [{ id = "k1", secret = "%s" }]
                parley.request-state.lifetime = 1 hour
                parley.quotas.per-node.waiting-calls = 2
                """.formatted(arteryA, Base64.getEncoder().encodeToString(secret));
        nodeA = start(shared + "pekko.remote.artery.canonical.port = " + arteryA, data.resolve("a"));
        nodeB = start(shared + "pekko.remote.artery.canonical.port = " + freePort(), data.resolve("b"));
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (upMembers(nodeA) < 2 || upMembers(nodeB) < 2) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the two nodes did not form a cluster");
            }
            sleep(100);
        }
        // The nodes learn of each other's lease-ends topic through the receptionist, a gossip round
        // after they joined; a probe on each node counts the topic's instances until all four are known.
        ActorRef<Topic.Command<CallCaps.LeaseEnded>> probeA = probe(nodeA);
        ActorRef<Topic.Command<CallCaps.LeaseEnded>> probeB = probe(nodeB);
        while (instances(nodeA, probeA) < 4 || instances(nodeB, probeB) < 4) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the nodes did not learn of each other's topic");
            }
            sleep(100);
        }
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
        if (postgres != null) {
            postgres.close();
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
            sleep(100);
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

    private static McpHttpServer start(String config, Path directory) {
        return McpHttpServer.builder(definition())
                .dataDirectory(directory)
                .port(0)
                .database(new JournalDatabase.Postgres(
                        "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres", "postgres", "postgres"))
                .config(ConfigFactory.parseString(config))
                .start();
    }

    private static long upMembers(McpHttpServer node) {
        return StreamSupport.stream(
                        Cluster.get(node.node().system()).state().getMembers().spliterator(), false)
                .filter(member -> member.status() == MemberStatus.up())
                .count();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
