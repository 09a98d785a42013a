package dev.parley.actors.internal.alone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A node alone keeps its entities as a shard does: by id, in order, and passivated without losing a message. */
class LocalShardingTest {
    /** What a test entity is asked: to echo a text (with its id and how many messages it has seen), or to passivate. */
    sealed interface Command {}

    record Echo(String text, ActorRef<String> replyTo) implements Command {}

    /** Asks the shard to passivate the entity, then says so to {@code replyTo}. */
    record Passivate(ActorRef<String> replyTo) implements Command {}

    private static final EntityTypeKey<Command> ECHO = EntityTypeKey.create(Command.class, "Echo");

    private final ActorTestKit kit =
            ActorTestKit.create(ConfigFactory.parseString("""
            pekko.actor.provider = local
            pekko.cluster.sharding.passivation.default-idle-strategy.idle-entity.timeout = 300ms
            """).withFallback(ConfigFactory.load()));
    /** The ids of entities that stopped, in order. */
    private final List<String> stopped = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    private Behavior<Command> echo(String id, ActorRef<ClusterSharding.ShardCommand> shard) {
        return Behaviors.setup(context -> {
            int[] seen = {0};
            return Behaviors.receive(Command.class)
                    .onMessage(Echo.class, echo -> {
                        echo.replyTo().tell(id + ":" + echo.text() + ":" + ++seen[0]);
                        return Behaviors.same();
                    })
                    .onMessage(Passivate.class, passivate -> {
                        shard.tell(new ClusterSharding.Passivate<>(context.getSelf()));
                        passivate.replyTo().tell(id + " passivating");
                        return Behaviors.same();
                    })
                    .onSignal(PostStop.class, signal -> {
                        stopped.add(id);
                        return Behaviors.same();
                    })
                    .build();
        });
    }

    private LocalSharding sharding(boolean ownIdleness) {
        LocalSharding sharding = LocalSharding.get(kit.system());
        Entity<Command, ShardingEnvelope<Command>> entity =
                Entity.of(ECHO, context -> echo(context.getEntityId(), context.getShard()));
        sharding.init(
                ownIdleness
                        ? entity.withSettings(
                                ClusterShardingSettings.create(kit.system()).withNoPassivationStrategy())
                        : entity);
        return sharding;
    }

    @Test
    void messagesReachTheEntityOfTheirIdInOrderWhateverTheIdHolds() {
        LocalSharding sharding = sharding(true);
        TestProbe<String> probe = kit.createTestProbe();
        String hostile = "a/b c?$%..#\u00e9";
        for (int i = 1; i <= 3; i++) {
            sharding.entityRefFor(ECHO, hostile).tell(new Echo("m" + i, probe.getRef()));
            sharding.entityRefFor(ECHO, "other").tell(new Echo("m" + i, probe.getRef()));
        }
        List<String> replies = probe.receiveSeveralMessages(6);
        assertEquals(
                List.of(hostile + ":m1:1", hostile + ":m2:2", hostile + ":m3:3"),
                replies.stream().filter(reply -> reply.startsWith(hostile)).toList());
        assertEquals(
                List.of("other:m1:1", "other:m2:2", "other:m3:3"),
                replies.stream().filter(reply -> reply.startsWith("other")).toList());
    }

    @Test
    void anAskIsAnsweredThroughTheEntityReference() throws Exception {
        EntityRef<Command> entity = sharding(true).entityRefFor(ECHO, "asked");
        assertEquals(
                "asked:hello:1",
                entity.<String>ask(replyTo -> new Echo("hello", replyTo), Duration.ofSeconds(3))
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS));
        assertEquals("asked", entity.getEntityId());
        assertEquals(ECHO, entity.getTypeKey());
    }

    @Test
    void messagesSentWhileAnEntityPassivatesReachItsNextIncarnation() {
        LocalSharding sharding = sharding(true);
        TestProbe<String> probe = kit.createTestProbe();
        EntityRef<Command> entity = sharding.entityRefFor(ECHO, "p");
        entity.tell(new Echo("before", probe.getRef()));
        probe.expectMessage("p:before:1");
        entity.tell(new Passivate(probe.getRef()));
        probe.expectMessage("p passivating"); // the shard has the entity's Passivate before anything sent now
        // Sent while the entity stops: they wait in the shard and reach its next incarnation, in order.
        for (int i = 1; i <= 20; i++) {
            entity.tell(new Echo("after" + i, probe.getRef()));
        }
        List<String> replies = probe.receiveSeveralMessages(20);
        for (int i = 1; i <= 20; i++) {
            assertEquals("p:after" + i + ":" + i, replies.get(i - 1));
        }
        assertEquals(List.of("p"), stopped, "the first incarnation stopped, the second runs");
    }

    @Test
    void anIdleEntityLeavesMemoryAfterShardingsIdleTimeoutUnlessItManagesItsOwnIdleness() throws Exception {
        LocalSharding sharding = sharding(false);
        TestProbe<String> probe = kit.createTestProbe();
        sharding.entityRefFor(ECHO, "idle").tell(new Echo("x", probe.getRef()));
        probe.expectMessage("idle:x:1");
        probe.awaitAssert(Duration.ofSeconds(5), () -> {
            assertEquals(List.of("idle"), stopped);
            return null;
        });
        assertEquals(0, liveEchoEntities(sharding));
        sharding.entityRefFor(ECHO, "idle").tell(new Echo("y", probe.getRef()));
        probe.expectMessage("idle:y:1");
    }

    @Test
    void anEntityWithItsOwnSettingsStaysUntilItPassivatesItself() throws Exception {
        LocalSharding sharding = sharding(true);
        TestProbe<String> probe = kit.createTestProbe();
        sharding.entityRefFor(ECHO, "kept").tell(new Echo("x", probe.getRef()));
        probe.expectMessage("kept:x:1");
        probe.expectNoMessage(Duration.ofMillis(900)); // three idle timeouts of the default strategy
        assertEquals(List.of(), stopped);
        assertEquals(1, liveEchoEntities(sharding));
    }

    @Test
    void anUnknownEntityTypeIsAnError() {
        LocalSharding sharding = LocalSharding.get(kit.system());
        assertThrows(IllegalStateException.class, () -> sharding.entityRefFor(ECHO, "x"));
    }

    private static int liveEchoEntities(LocalSharding sharding) throws Exception {
        return sharding.liveEntities(ECHO, Duration.ofSeconds(3))
                .toCompletableFuture()
                .get();
    }
}
