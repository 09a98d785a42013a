package dev.parley.actors.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * One principal's calls waiting for input, tasks in flight and 2025-11-25 sessions, cluster-wide: sharded by the
 * principal's id, so every node asks the same entity and a cap holds however many nodes serve
 * the principal. Each open call or task holds a lease until it ends (released by the pipeline)
 * or its lease runs out (a waiting call's requestState lifetime, a task's ttl): a call whose end
 * nobody reported, say because its node crashed, stops counting when it could no longer go on.
 *
 * <p>Leases live in memory: when the entity moves (its node leaves or crashes, a rebalance) it
 * starts empty and learns the open calls again as they go on. A cap then under-counts for a
 * while; it never leaks.
 */
public final class PrincipalCapsEntity extends AbstractBehavior<PrincipalCapsEntity.Command> {
    public static final EntityTypeKey<Command> ENTITY_TYPE_KEY = EntityTypeKey.create(Command.class, "PrincipalCaps");
    /** Held tasks are offered for a check against their entities at most this often. */
    private static final Duration VERIFY_INTERVAL = Duration.ofSeconds(1);

    private static final Duration IDLE = Duration.ofMinutes(2);

    public enum Kind {
        WAITING_CALL,
        OPEN_TASK,
        SESSION
    }

    public sealed interface Command extends CborSerializable {}

    /** A new call or task asks for a lease until {@code untilMs}; for one already held it is renewed. */
    public record Take(Kind kind, String id, long untilMs, ActorRef<Verdict> replyTo) implements Command {}

    /** A call or task that goes on (a new round): holds its lease until {@code untilMs}, cap or not. */
    public record Hold(Kind kind, String id, long untilMs) implements Command {}

    public record Release(Kind kind, String id) implements Command {}

    private record Idle() implements Command, NoSerializationVerificationNeeded {}

    public sealed interface Verdict extends CborSerializable {}

    public record Granted() implements Verdict {}

    /**
     * At the cap of {@code max}. {@code toVerify} names held tasks the asker may check against
     * their entities (an ended task is released), empty when they were checked a moment ago.
     */
    public record Refused(int max, List<String> toVerify) implements Verdict {}

    private final ActorRef<ClusterSharding.ShardCommand> shard;
    private final Map<Kind, Integer> max = new EnumMap<>(Kind.class);
    private final Clock clock;
    private final Map<Kind, Map<String, Long>> leases = new EnumMap<>(Kind.class);
    private long lastVerifyOffered;

    /** {@code max}: the cap of each kind (0 or missing: none). */
    public static Behavior<Command> create(
            ActorRef<ClusterSharding.ShardCommand> shard, Map<Kind, Integer> max, Clock clock) {
        return Behaviors.setup(context -> new PrincipalCapsEntity(context, shard, max, clock));
    }

    private PrincipalCapsEntity(
            ActorContext<Command> context,
            ActorRef<ClusterSharding.ShardCommand> shard,
            Map<Kind, Integer> max,
            Clock clock) {
        super(context);
        this.shard = shard;
        this.clock = clock;
        for (Kind kind : Kind.values()) {
            this.max.put(kind, max.getOrDefault(kind, 0));
            leases.put(kind, new LinkedHashMap<>());
        }
        context.setReceiveTimeout(IDLE, new Idle());
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Take.class, this::onTake)
                .onMessage(Hold.class, hold -> {
                    dropExpired();
                    leases.get(hold.kind()).put(hold.id(), hold.untilMs());
                    return this;
                })
                .onMessage(Release.class, release -> {
                    leases.get(release.kind()).remove(release.id());
                    return this;
                })
                .onMessage(Idle.class, idle -> {
                    dropExpired();
                    if (leases.values().stream().allMatch(Map::isEmpty)) {
                        shard.tell(new ClusterSharding.Passivate<>(getContext().getSelf()));
                    }
                    return this;
                })
                .build();
    }

    private Behavior<Command> onTake(Take take) {
        dropExpired();
        Map<String, Long> held = leases.get(take.kind());
        int cap = max.get(take.kind());
        if (held.containsKey(take.id()) || cap <= 0 || held.size() < cap) {
            held.put(take.id(), take.untilMs());
            take.replyTo().tell(new Granted());
            return this;
        }
        long now = clock.millis();
        List<String> toVerify = List.of();
        if (take.kind() == Kind.OPEN_TASK && now - lastVerifyOffered >= VERIFY_INTERVAL.toMillis()) {
            lastVerifyOffered = now;
            toVerify = List.copyOf(held.keySet());
        }
        take.replyTo().tell(new Refused(cap, toVerify));
        return this;
    }

    private void dropExpired() {
        long now = clock.millis();
        leases.values().forEach(held -> held.values().removeIf(until -> until <= now));
    }
}
