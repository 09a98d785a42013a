package dev.parley.actors;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The {@code parley} block of the configuration (the keys the actors module reads), read once
 * at start from the configuration {@link NodeConfig} layers, and passed to what needs it.
 *
 * @param showFailureDetails development only: a handler failure's answer shows the exception's text
 * @param joinSelf without seed nodes the node forms its own cluster ({@code parley.cluster.join-self})
 * @param retentionAbandonedMargin how long after its last requestState expired an abandoned waiting
 *     call's events are deleted
 * @param retentionCompactTime how long the embedded journal's file may be compacted after a purge
 * @param journalScanInterval how often the journal-backed gauges are refreshed
 * @param quotas the {@code parley.quotas} block
 * @param firstRoundBehindReply whether a first round that ran no step is answered before its start
 *     is written ({@code parley.first-round-behind-reply})
 * @param sessionViewLifetime how long a node keeps its copy of a 2025-11-25 session
 *     ({@code parley.session-view-lifetime}; 0: none)
 */
public record ParleySettings(
        int toolExecutorThreads,
        Duration requestStateLifetime,
        Duration askTimeout,
        Duration askAttemptTimeout,
        Duration stepTimeout,
        int listPageSize,
        long listTtlMs,
        String listCacheScope,
        Duration retentionAfter,
        Duration retentionInterval,
        TaskSettings tasks,
        Duration taskRetention,
        Duration taskResumeInterval,
        boolean showFailureDetails,
        boolean joinSelf,
        Duration retentionAbandonedMargin,
        Duration retentionCompactTime,
        Duration journalScanInterval,
        QuotaSettings quotas,
        boolean firstRoundBehindReply,
        Duration sessionViewLifetime) {

    public ParleySettings {
        if (retentionAfter.compareTo(requestStateLifetime) < 0) {
            throw new IllegalArgumentException("parley.retention.after (" + retentionAfter
                    + ") must not be shorter than parley.request-state.lifetime (" + requestStateLifetime + ")");
        }
        if (taskRetention.compareTo(tasks.ttl()) < 0) {
            throw new IllegalArgumentException(
                    "parley.tasks.retention (" + taskRetention + ") must not be shorter than parley.tasks.ttl ("
                            + tasks.ttl() + "): a task stays readable for its ttl");
        }
    }

    /** The settings in {@code config}'s {@code parley} block. */
    public static ParleySettings from(Config config) {
        Config parley = config.getConfig("parley");
        return new ParleySettings(
                parley.getInt("tool-executor.threads"),
                parley.getDuration("request-state.lifetime"),
                parley.getDuration("ask-timeout"),
                parley.getDuration("ask-attempt-timeout"),
                parley.getDuration("step-timeout"),
                parley.getInt("lists.page-size"),
                parley.getDuration("lists.ttl").toMillis(),
                parley.getString("lists.cache-scope"),
                parley.getDuration("retention.after"),
                parley.getDuration("retention.interval"),
                new TaskSettings(
                        parley.getDuration("tasks.ttl"),
                        parley.getDuration("tasks.poll-interval"),
                        parley.getDuration("tasks.idle-timeout"),
                        parley.getDuration("tasks.ended-idle-timeout"),
                        parley.getDuration("step-timeout")),
                parley.getDuration("tasks.retention"),
                parley.getDuration("tasks.resume-interval"),
                parley.getBoolean("show-failure-details"),
                parley.getBoolean("cluster.join-self"),
                parley.getDuration("retention.abandoned-margin"),
                parley.getDuration("retention.compact-time"),
                parley.getDuration("metrics.journal-scan-interval"),
                QuotaSettings.from(parley.getConfig("quotas")),
                parley.getBoolean("first-round-behind-reply"),
                parley.getDuration("session-view-lifetime"));
    }
}
