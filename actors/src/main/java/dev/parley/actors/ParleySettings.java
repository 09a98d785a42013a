package dev.parley.actors;

import com.typesafe.config.Config;
import dev.parley.actors.internal.TaskEntity;
import java.time.Duration;

/** The {@code parley} block of the configuration, read once at start. */
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
        TaskEntity.TaskSettings tasks,
        Duration taskRetention,
        Duration taskResumeInterval) {

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
                new TaskEntity.TaskSettings(
                        parley.getDuration("tasks.ttl"),
                        parley.getDuration("tasks.poll-interval"),
                        parley.getDuration("tasks.idle-timeout"),
                        parley.getDuration("step-timeout")),
                parley.getDuration("tasks.retention"),
                parley.getDuration("tasks.resume-interval"));
    }
}
