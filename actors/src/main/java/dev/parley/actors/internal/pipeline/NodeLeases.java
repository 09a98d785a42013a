package dev.parley.actors.internal.pipeline;

import dev.parley.actors.internal.PrincipalCapsEntity.Kind;
import java.time.Clock;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node-wide ceilings of {@code parley.quotas.per-node}: the calls, tasks and sessions this
 * node started, for all principals together, each until it ends here or its lease runs out (as
 * in {@link dev.parley.actors.internal.PrincipalCapsEntity}). Every node hears when a task, a
 * call or a session ends, wherever it ended ({@link CallCaps}); should that message be lost, the
 * lease runs out: the ceiling errs on the safe side.
 */
final class NodeLeases {
    private static final long SWEEP_INTERVAL_MS = 1_000;

    private final Map<Kind, Integer> max;
    private final Clock clock;
    private final Map<Kind, Map<String, Long>> leases = new EnumMap<>(Kind.class);
    private final long[] lastSweepMs = new long[Kind.values().length]; // per kind; a race costs one more sweep

    NodeLeases(Map<Kind, Integer> max, Clock clock) {
        this.max = max;
        this.clock = clock;
        for (Kind kind : Kind.values()) {
            leases.put(kind, new ConcurrentHashMap<>());
        }
        Arrays.fill(lastSweepMs, Long.MIN_VALUE / 2);
    }

    /** Takes a lease until {@code untilMs}: 0 when granted, else the ceiling that refused it. */
    int take(Kind kind, String id, long untilMs) {
        int ceiling = max.getOrDefault(kind, 0);
        Map<String, Long> held = leases.get(kind);
        if (ceiling > 0 && held.size() >= ceiling && !held.containsKey(id)) {
            long now = clock.millis();
            // A sweep reads every lease: at most one per second, or a flood at the ceiling pays one per request.
            if (now - lastSweepMs[kind.ordinal()] >= SWEEP_INTERVAL_MS) {
                lastSweepMs[kind.ordinal()] = now;
                held.values().removeIf(until -> until <= now);
            }
            // Checked and taken without a lock: concurrent requests may pass the ceiling by a few.
            if (held.size() >= ceiling) {
                return ceiling;
            }
        }
        held.put(id, untilMs);
        return 0;
    }

    /** A call that goes on holds its lease until {@code untilMs}, ceiling or not. */
    void hold(Kind kind, String id, long untilMs) {
        leases.get(kind).put(id, untilMs);
    }

    void release(Kind kind, String id) {
        leases.get(kind).remove(id);
    }
}
