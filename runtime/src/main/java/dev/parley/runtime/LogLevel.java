package dev.parley.runtime;

import java.util.Locale;
import java.util.Optional;

/** Syslog severities of {@code notifications/message}, least severe first. */
public enum LogLevel {
    DEBUG,
    INFO,
    NOTICE,
    WARNING,
    ERROR,
    CRITICAL,
    ALERT,
    EMERGENCY;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<LogLevel> fromWire(String name) {
        for (LogLevel level : values()) {
            if (level.wireName().equals(name)) {
                return Optional.of(level);
            }
        }
        return Optional.empty();
    }
}
