package dev.parley.actors;

import java.time.Duration;

/**
 * What tasks need from the {@code parley.tasks} block: how long a task stays readable, the poll
 * interval it suggests, how long an idle task stays in memory, and how long one journaled step
 * may take ({@code parley.step-timeout}).
 */
public record TaskSettings(Duration ttl, Duration pollInterval, Duration idleTimeout, Duration stepTimeout) {}
