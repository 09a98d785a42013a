package dev.parley.actors.internal.alone;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.pattern.StatusReply;

/** An entity of a node alone: its messages go to the entity type's {@link LocalShard}, by id. */
final class LocalEntityRef<M> extends EntityRef<M> {
    private final EntityTypeKey<M> typeKey;
    private final String entityId;
    private final ActorRef<Object> shard;
    private final Scheduler scheduler;

    LocalEntityRef(EntityTypeKey<M> typeKey, String entityId, ActorRef<Object> shard, Scheduler scheduler) {
        this.typeKey = typeKey;
        this.entityId = entityId;
        this.shard = shard;
        this.scheduler = scheduler;
    }

    @Override
    public void tell(M message) {
        shard.tell(new ShardingEnvelope<>(entityId, message));
    }

    @Override
    public <R> CompletionStage<R> ask(Function<ActorRef<R>, M> message, Duration timeout) {
        return AskPattern.ask(
                shard, replyTo -> new ShardingEnvelope<>(entityId, message.apply(replyTo)), timeout, scheduler);
    }

    @Override
    public <R> CompletionStage<R> askWithStatus(
            scala.Function1<ActorRef<StatusReply<R>>, M> message, Duration timeout) {
        return AskPattern.<Object, R>askWithStatus(
                shard, replyTo -> new ShardingEnvelope<>(entityId, message.apply(replyTo)), timeout, scheduler);
    }

    @Override
    public String getEntityId() {
        return entityId;
    }

    @Override
    public EntityTypeKey<M> getTypeKey() {
        return typeKey;
    }

    @Override
    public Optional<String> getDataCenter() {
        return Optional.empty();
    }

    @Override
    public org.apache.pekko.cluster.sharding.typed.scaladsl.EntityRef<M> asScala() {
        throw new UnsupportedOperationException("an entity of a node alone has no Scala API");
    }

    @Override
    public String toString() {
        return "LocalEntityRef(" + typeKey.name() + ", " + entityId + ")";
    }
}
