package dev.parley.actors;

import java.time.Duration;

/**
 * What tasks need from the {@code parley.tasks} block: how long a task stays readable, the poll
 * interval it suggests, how long an idle task stays in memory (one that ended: a shorter time, as
 * only a late read will want it), and how long one journaled step may take
 * ({@code parley.step-timeout}).
 */
public record TaskSettings(
        Duration ttl, Duration pollInterval, Duration idleTimeout, Duration endedIdleTimeout, Duration stepTimeout) {

    /** An ended task stays in memory as long as any other idle one. */
    public TaskSettings(Duration ttl, Duration pollInterval, Duration idleTimeout, Duration stepTimeout) {
        this(ttl, pollInterval, idleTimeout, idleTimeout, stepTimeout);
    }
}
