package dev.parley.actors.internal.alone;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityContext;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.japi.function.Function;

/**
 * The entities of one type on a node alone, as a shard keeps them: started by the first message
 * for their id, passivated on request (new messages wait until the entity stopped, then start it
 * again), and, with an idle timeout, passivated after that long without a message.
 */
final class LocalShard<M> extends AbstractBehavior<Object> {
    /** Asks how many entities are in memory; answered with an Integer. */
    record CountEntities(ActorRef<Integer> replyTo) {}

    private enum IdleCheck {
        INSTANCE
    }

    /** A live entity and when it last got a message (for the idle timeout). */
    private static final class Live<M> {
        final ActorRef<M> ref;
        long lastMessageNanos;
        /** Passivating: messages wait here until it stopped; null while it runs. */
        List<M> waiting;

        Live(ActorRef<M> ref) {
            this.ref = ref;
        }
    }

    private final EntityTypeKey<M> typeKey;
    private final Function<EntityContext<M>, Behavior<M>> createBehavior;
    private final ActorRef<ClusterSharding.ShardCommand> self;
    /** Null: the entities passivate themselves. */
    private final Duration idleTimeout;

    /** By entity id; an entity's actor is named by its URL-encoded id ({@link #idOf}). */
    private final Map<String, Live<M>> live = new HashMap<>();

    private LocalShard(
            ActorContext<Object> context,
            EntityTypeKey<M> typeKey,
            Function<EntityContext<M>, Behavior<M>> createBehavior,
            Duration idleTimeout) {
        super(context);
        this.typeKey = typeKey;
        this.createBehavior = createBehavior;
        this.self = context.getSelf().narrow();
        this.idleTimeout = idleTimeout;
    }

    static <M> Behavior<Object> create(
            EntityTypeKey<M> typeKey, Function<EntityContext<M>, Behavior<M>> createBehavior, Duration idleTimeout) {
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
            if (idleTimeout != null) {
                timers.startTimerWithFixedDelay(IdleCheck.INSTANCE, idleTimeout.dividedBy(2));
            }
            return new LocalShard<>(context, typeKey, createBehavior, idleTimeout);
        }));
    }

    @Override
    public Receive<Object> createReceive() {
        return newReceiveBuilder()
                .onMessage(ShardingEnvelope.class, this::onEnvelope)
                .onMessage(ClusterSharding.Passivate.class, this::onPassivate)
                .onMessageEquals(IdleCheck.INSTANCE, this::onIdleCheck)
                .onMessage(CountEntities.class, this::onCount)
                .onSignal(Terminated.class, this::onTerminated)
                .build();
    }

    @SuppressWarnings("unchecked")
    private Behavior<Object> onEnvelope(ShardingEnvelope<?> envelope) {
        deliver(envelope.entityId(), (M) envelope.message());
        return this;
    }

    private void deliver(String id, M message) {
        Live<M> entity = live.get(id);
        if (entity == null) {
            entity = start(id);
            if (entity == null) {
                return;
            }
        }
        if (entity.waiting != null) {
            entity.waiting.add(message);
            return;
        }
        if (idleTimeout != null) {
            entity.lastMessageNanos = System.nanoTime();
        }
        entity.ref.tell(message);
    }

    private Live<M> start(String id) {
        if (id == null || id.isEmpty()) {
            getContext().getLog().warn("{}: a message for an empty entity id was dropped", typeKey.name());
            return null;
        }
        Behavior<M> behavior;
        try {
            behavior = createBehavior.apply(new EntityContext<>(typeKey, id, self));
        } catch (Exception e) {
            getContext().getLog().error("{} {}: the entity could not be created", typeKey.name(), id, e);
            return null;
        }
        ActorRef<M> ref = getContext().spawn(behavior, URLEncoder.encode(id, StandardCharsets.UTF_8));
        getContext().watch(ref);
        Live<M> entity = new Live<>(ref);
        live.put(id, entity);
        return entity;
    }

    /** The live entity {@code ref} is, or null (an earlier incarnation, or not one of ours). */
    private Live<M> liveOf(ActorRef<?> ref) {
        Live<M> entity = live.get(idOf(ref));
        return entity != null && entity.ref.equals(ref) ? entity : null;
    }

    private static String idOf(ActorRef<?> ref) {
        return URLDecoder.decode(ref.path().name(), StandardCharsets.UTF_8);
    }

    private Behavior<Object> onPassivate(ClusterSharding.Passivate<?> passivate) {
        Live<M> entity = liveOf(passivate.entity());
        if (entity != null) {
            passivate(entity);
        }
        return this;
    }

    /**
     * As sharding does without a stop message: a PoisonPill, which the entity takes after the
     * messages already in its mailbox.
     */
    private void passivate(Live<M> entity) {
        if (entity.waiting == null) {
            entity.waiting = new ArrayList<>();
            Adapter.toClassic(entity.ref)
                    .tell(org.apache.pekko.actor.PoisonPill.getInstance(), org.apache.pekko.actor.ActorRef.noSender());
        }
    }

    private Behavior<Object> onIdleCheck() {
        long now = System.nanoTime();
        long timeout = idleTimeout.toNanos();
        for (Live<M> entity : live.values()) {
            if (entity.waiting == null && now - entity.lastMessageNanos >= timeout) {
                passivate(entity);
            }
        }
        return this;
    }

    private Behavior<Object> onCount(CountEntities count) {
        count.replyTo().tell(live.size());
        return this;
    }

    private Behavior<Object> onTerminated(Terminated terminated) {
        Live<M> entity = liveOf(terminated.getRef());
        if (entity == null) {
            return this;
        }
        String id = idOf(entity.ref);
        live.remove(id);
        if (entity.waiting != null) {
            for (M message : entity.waiting) {
                deliver(id, message); // the first starts it again
            }
        }
        return this;
    }
}
