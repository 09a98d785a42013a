package dev.parley.actors.internal.pipeline;

import dev.parley.actors.internal.CborSerializable;
import dev.parley.actors.internal.SessionEntity;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * This node's copy of the 2025-11-25 sessions it served lately, so that a session's requests do
 * not each ask its entity (one ask through sharding per request was two of a flow's five). A
 * change to a session (its log level, a subscription, its end) is made through its entity, then
 * forgotten here at once and published to every node, which forget it too; a copy older than
 * {@code lifetime} is asked for again, which bounds what a lost message could leave behind.
 */
final class SessionViews {
    /** As many as a node's default ceiling of sessions; beyond it, sessions are asked for. */
    private static final int CAPACITY = 10_000;

    /** {@code sessionId} changed or ended: every node drops its copy. */
    record Changed(String sessionId) implements CborSerializable {}

    private record Copy(String principal, SessionEntity.SessionView view, long takenAtNanos) {}

    private final Map<String, Copy> copies = new ConcurrentHashMap<>();
    private final long lifetimeNanos;
    /** Counts changes heard of: a view asked for before one is not kept (it may predate the change). */
    private final AtomicLong changes = new AtomicLong();

    private final AtomicLong lastSweepNanos = new AtomicLong(System.nanoTime());

    private final ActorRef<Topic.Command<Changed>> topic;

    SessionViews(ActorSystem<?> system, Duration lifetime) {
        this.lifetimeNanos = lifetime.toNanos();
        this.topic = NodeTopics.join(
                system, Changed.class, "parley-session-changes", changed -> forget(changed.sessionId()));
    }

    boolean enabled() {
        return lifetimeNanos > 0;
    }

    /** The changes heard of so far; pass it to {@link #keep} with the view asked for after reading it. */
    long changesSoFar() {
        return changes.get();
    }

    /** {@code principal}'s fresh copy of {@code sessionId}, or null. */
    SessionEntity.SessionView find(String sessionId, String principal) {
        Copy copy = copies.get(sessionId);
        if (copy == null || !copy.principal().equals(principal)) {
            return null;
        }
        if (System.nanoTime() - copy.takenAtNanos() > lifetimeNanos) {
            copies.remove(sessionId, copy);
            return null;
        }
        return copy.view();
    }

    /** Keeps {@code view}, asked for after {@code changesBefore} changes, unless one came since or it is full. */
    void keep(String sessionId, String principal, SessionEntity.SessionView view, long changesBefore) {
        if (!enabled() || view == null || (copies.size() >= CAPACITY && !madeRoom())) {
            return;
        }
        copies.put(sessionId, new Copy(principal, view, System.nanoTime()));
        if (changes.get() != changesBefore) {
            copies.remove(sessionId); // a change may have overtaken the ask: ask again next time
        }
    }

    /** {@code sessionId} was changed through this node: forgotten here now, and on every other node soon. */
    void changed(String sessionId) {
        forget(sessionId);
        topic.tell(Topic.publish(new Changed(sessionId)));
    }

    private void forget(String sessionId) {
        changes.incrementAndGet();
        copies.remove(sessionId);
    }

    /** Drops the copies past their lifetime, at most once a second (a full map is not swept per request). */
    private boolean madeRoom() {
        long now = System.nanoTime();
        long last = lastSweepNanos.get();
        if (now - last < 1_000_000_000L || !lastSweepNanos.compareAndSet(last, now)) {
            return false;
        }
        copies.values().removeIf(copy -> now - copy.takenAtNanos() > lifetimeNanos);
        return copies.size() < CAPACITY;
    }
}
