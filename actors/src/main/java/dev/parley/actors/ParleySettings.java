package dev.parley.actors;

import com.typesafe.config.Config;

import java.time.Duration;

/** The {@code parley} block of the configuration, read once at start. */
public record ParleySettings(
    int toolExecutorThreads,
    Duration requestStateLifetime,
    Duration askTimeout,
    Duration stepTimeout,
    int listPageSize,
    long listTtlMs,
    String listCacheScope,
    Duration retentionAfter,
    Duration retentionInterval) {

  public ParleySettings {
    if (retentionAfter.compareTo(requestStateLifetime) < 0) {
      throw new IllegalArgumentException("parley.retention.after (" + retentionAfter
          + ") must not be shorter than parley.request-state.lifetime (" + requestStateLifetime + ")");
    }
  }

  public static ParleySettings from(Config config) {
    Config parley = config.getConfig("parley");
    return new ParleySettings(
        parley.getInt("tool-executor.threads"),
        parley.getDuration("request-state.lifetime"),
        parley.getDuration("ask-timeout"),
        parley.getDuration("step-timeout"),
        parley.getInt("lists.page-size"),
        parley.getDuration("lists.ttl").toMillis(),
        parley.getString("lists.cache-scope"),
        parley.getDuration("retention.after"),
        parley.getDuration("retention.interval"));
  }
}
