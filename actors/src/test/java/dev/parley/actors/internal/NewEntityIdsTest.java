package dev.parley.actors.internal;

import static dev.parley.actors.internal.NodeDriver.ELICITATION;
import static dev.parley.actors.internal.NodeDriver.dispatch;
import static dev.parley.actors.internal.NodeDriver.toolsCall;
import static dev.parley.actors.internal.TestTools.RELEASE_ARGS;
import static dev.parley.actors.internal.TestTools.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.NodeDriver.JournalRow;
import dev.parley.actors.internal.alone.LocalSharding;
import dev.parley.actors.internal.journal.NewEntityIds;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.state.RequestStateKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingQuery;
import org.apache.pekko.cluster.sharding.typed.GetShardRegionState;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call's first recovery skips the highest-sequence-number query only for an id this node
 * minted; and should an id wrongly be taken for new, its entity cannot overwrite the journal.
 */
class NewEntityIdsTest {
    private static final String WINDOW = "{\"window\":" + accept("{\"window\":\"2026-12-24T10:00:00Z\"}") + "}";

    @Test
    void eachMintedIdIsClaimedOnceAndUnknownIdsNever() {
        ActorSystem<Void> system =
                ActorSystem.create(org.apache.pekko.actor.typed.javadsl.Behaviors.empty(), "new-entity-ids-test");
        try {
            NewEntityIds ids = NewEntityIds.get(system);
            String id = ids.mint(ToolCallEntity.ENTITY_TYPE_KEY);
            String persistenceId =
                    PersistenceId.of(ToolCallEntity.ENTITY_TYPE_KEY.name(), id).id();
            assertTrue(ids.claim(persistenceId));
            assertFalse(ids.claim(persistenceId), "claimed once");
            assertFalse(ids.claim("ToolCall|" + EntityIds.next()), "never minted");

            String created = ids.mint(ToolCallEntity.ENTITY_TYPE_KEY);
            ids.forget(ToolCallEntity.ENTITY_TYPE_KEY, created);
            assertFalse(
                    ids.claim(PersistenceId.of(ToolCallEntity.ENTITY_TYPE_KEY.name(), created)
                            .id()),
                    "forgotten once its creating command ended: a later recovery (e.g. after a failover) queries");

            ids.remember("ToolCall|oldest");
            for (int i = 0; i < 8192; i++) {
                ids.mint(ToolCallEntity.ENTITY_TYPE_KEY);
            }
            assertFalse(ids.claim("ToolCall|oldest"), "the oldest is dropped beyond the capacity");
        } finally {
            system.terminate();
        }
    }

    @Test
    @Timeout(120)
    void anEntityTakenForNewCannotOverwriteItsEvents(@TempDir Path data) throws Exception {
        JournalDatabase database = NodeDriver.configuredJournal(data);
        try (ParleyNode node = NodeDriver.start(database, RequestStateKey.generate())) {
            JsonNode asked =
                    dispatch(node, toolsCall(1, "schedule_release", RELEASE_ARGS, null, null, ELICITATION), "alice");
            String state = asked.at("/result/requestState").asText();
            JsonNode done =
                    dispatch(node, toolsCall(2, "schedule_release", RELEASE_ARGS, state, WINDOW, ELICITATION), "alice");
            assertEquals("complete", done.at("/result/resultType").asText());
            List<JournalRow> written = NodeDriver.journal(database);
            assertEquals(3, written.size(), written.toString());
            String persistenceId = written.get(0).persistenceId();
            String callId = persistenceId.substring(persistenceId.indexOf('|') + 1);
            awaitPassivated(node, callId);

            // The ended call has passivated. Taken for new, it recovers as empty and tries to write
            // CallStarted at sequence number 1: the journal's key refuses it, and the entity
            // restarts and recovers its real events.
            NewEntityIds.get(node.system()).remember(persistenceId);
            EntityRef<ToolCallEntity.Command> call =
                    NodeSharding.of(node.system()).entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, callId);
            assertThrows(
                    ExecutionException.class,
                    () -> call.<ToolCallEntity.Reply>ask(
                                    replyTo -> new ToolCallEntity.Start(
                                            "tools/call",
                                            "schedule_release",
                                            TestTools.object(RELEASE_ARGS),
                                            "alice",
                                            Map.of(),
                                            List.of(),
                                            replyTo),
                                    Duration.ofSeconds(5))
                            .toCompletableFuture()
                            .get(10, TimeUnit.SECONDS),
                    "no reply: the write failed and the entity stopped");
            assertEquals(written, NodeDriver.journal(database), "nothing written, nothing overwritten");

            JsonNode again = awaitSame(node, state, done);
            assertEquals(done.get("result"), again.get("result"), "the recovered call answers its recorded result");
        }
    }

    /**
     * Waits until the shard no longer holds the call: it asks to passivate once it ended, but a
     * command reaching it before the shard acts on that would be answered by the live entity.
     */
    private static void awaitPassivated(ParleyNode node, String callId) throws Exception {
        for (int attempt = 0; attempt < 100; attempt++) {
            if (!NodeSharding.clustered(node.system())) { // a node alone: this test's one call is gone
                if (LocalSharding.get(node.system())
                                .liveEntities(ToolCallEntity.ENTITY_TYPE_KEY, Duration.ofSeconds(5))
                                .toCompletableFuture()
                                .get(10, TimeUnit.SECONDS)
                        == 0) {
                    return;
                }
                Thread.sleep(50);
                continue;
            }
            ShardRegion.CurrentShardRegionState state =
                    AskPattern.<ClusterShardingQuery, ShardRegion.CurrentShardRegionState>ask(
                                    ClusterSharding.get(node.system()).shardState(),
                                    replyTo -> new GetShardRegionState(ToolCallEntity.ENTITY_TYPE_KEY, replyTo),
                                    Duration.ofSeconds(5),
                                    node.system().scheduler())
                            .toCompletableFuture()
                            .get(10, TimeUnit.SECONDS);
            if (state.getShards().stream()
                    .noneMatch(shard -> shard.getEntityIds().contains(callId))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the ended call " + callId + " did not passivate");
    }

    /** The retry of the last round, repeated until the restarted entity (backoff) answers it. */
    private static JsonNode awaitSame(ParleyNode node, String state, JsonNode expected) throws Exception {
        JsonNode again = null;
        for (int attempt = 0; attempt < 40; attempt++) {
            again = dispatch(node, toolsCall(3, "schedule_release", RELEASE_ARGS, state, WINDOW, ELICITATION), "alice");
            if (expected.get("result").equals(again.get("result"))) {
                return again;
            }
            Thread.sleep(250);
        }
        return again == null ? Json.object() : again;
    }
}
