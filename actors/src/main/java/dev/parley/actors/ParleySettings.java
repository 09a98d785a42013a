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
    String listCacheScope) {

  public static ParleySettings from(Config config) {
    Config parley = config.getConfig("parley");
    return new ParleySettings(
        parley.getInt("tool-executor.threads"),
        parley.getDuration("request-state.lifetime"),
        parley.getDuration("ask-timeout"),
        parley.getDuration("step-timeout"),
        parley.getInt("lists.page-size"),
        parley.getDuration("lists.ttl").toMillis(),
        parley.getString("lists.cache-scope"));
  }
}
