package dev.parley.actors.internal.alone;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.ShardCoordinator;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingQuery;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * Sharding's API for a node alone: each entity type is one {@link LocalShard} actor that starts
 * its entities by id, routes their messages and passivates them, as a shard does, without
 * remoting, a cluster, a coordinator or a region. What Parley's code asks of sharding (init,
 * entity references, passivation, idle passivation with sharding's idle timeout) behaves the same.
 */
public final class LocalSharding extends ClusterSharding implements Extension {
    private static final String IDLE_TIMEOUT =
            "pekko.cluster.sharding.passivation.default-idle-strategy.idle-entity.timeout";

    private final ActorSystem<?> system;
    private final Map<String, ActorRef<Object>> shards = new ConcurrentHashMap<>();

    private LocalSharding(ActorSystem<?> system) {
        this.system = system;
    }

    public static LocalSharding get(ActorSystem<?> system) {
        return Id.INSTANCE.apply(system);
    }

    /**
     * Starts the entity type's shard. An entity given settings of its own manages its idleness
     * itself (Parley's tasks and principal caps: no passivation strategy); the others passivate
     * after sharding's idle timeout without a message.
     */
    @Override
    @SuppressWarnings("unchecked")
    public <M, E> ActorRef<E> init(Entity<M, E> entity) {
        Duration idleTimeout = entity.settings().isPresent()
                ? null
                : system.settings().config().getDuration(IDLE_TIMEOUT);
        ActorRef<Object> shard = shards.computeIfAbsent(
                entity.typeKey().name(),
                name -> system.systemActorOf(
                        LocalShard.create(entity.typeKey(), entity.createBehavior(), idleTimeout),
                        "local-shard-" + name,
                        Props.empty()));
        return (ActorRef<E>) (ActorRef<?>) shard;
    }

    @Override
    public <M> EntityRef<M> entityRefFor(EntityTypeKey<M> typeKey, String entityId) {
        ActorRef<Object> shard = shards.get(typeKey.name());
        if (shard == null) {
            throw new IllegalStateException("no entity type " + typeKey.name() + " started on this node");
        }
        return new LocalEntityRef<>(typeKey, entityId, shard, system.scheduler());
    }

    @Override
    public <M> EntityRef<M> entityRefFor(EntityTypeKey<M> typeKey, String entityId, String dataCenter) {
        return entityRefFor(typeKey, entityId);
    }

    /** How many entities of {@code typeKey} are in memory now (the console's figure). */
    public CompletionStage<Integer> liveEntities(EntityTypeKey<?> typeKey, Duration timeout) {
        ActorRef<Object> shard = shards.get(typeKey.name());
        if (shard == null) {
            return CompletableFuture.completedFuture(0);
        }
        return AskPattern.ask(shard, LocalShard.CountEntities::new, timeout, system.scheduler());
    }

    @Override
    public ActorRef<ClusterShardingQuery> shardState() {
        throw new UnsupportedOperationException("a node alone has no cluster shards: see liveEntities");
    }

    @Override
    public ShardCoordinator.ShardAllocationStrategy defaultShardAllocationStrategy(ClusterShardingSettings settings) {
        throw new UnsupportedOperationException("a node alone allocates no shards");
    }

    private static final class Id extends ExtensionId<LocalSharding> {
        private static final Id INSTANCE = new Id();

        @Override
        public LocalSharding createExtension(ActorSystem<?> system) {
            return new LocalSharding(system);
        }
    }
}
