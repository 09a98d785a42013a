package dev.parley.runtime.internal.logging;

import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * Log lines a client can cause, bounded: at most {@code burst} lines per {@code interval}; the
 * lines over that are counted, and the first line after the interval (or the next summary) says
 * how many were suppressed. One client sending refused requests in a loop cannot fill the disk,
 * and an operator still sees that it happens and how often.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final Level level;
    private final int burst;
    private final long intervalMillis;
    private final Clock clock;
    private long windowStart;
    private int written;
    private long suppressed;

    public RateLimitedLog(Logger log, Level level, int burst, Duration interval, Clock clock) {
        if (burst < 1 || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("burst and interval must be positive");
        }
        this.log = log;
        this.level = level;
        this.burst = burst;
        this.intervalMillis = interval.toMillis();
        this.clock = clock;
        this.windowStart = clock.millis();
    }

    /** {@code burst} lines a minute of {@code log} at {@code level}. */
    public static RateLimitedLog perMinute(Logger log, Level level, int burst) {
        return new RateLimitedLog(log, level, burst, Duration.ofMinutes(1), Clock.systemUTC());
    }

    /** Logs {@code format} with {@code arguments} (slf4j style) unless this interval's lines are used up. */
    public void log(String format, Object... arguments) {
        if (!log.isEnabledForLevel(level)) {
            return;
        }
        long suppressedBefore;
        synchronized (this) {
            long now = clock.millis();
            if (now - windowStart >= intervalMillis) {
                windowStart = now;
                written = 0;
            }
            if (written >= burst) {
                suppressed++;
                return;
            }
            written++;
            suppressedBefore = suppressed;
            suppressed = 0;
        }
        if (suppressedBefore > 0) {
            log.atLevel(level)
                    .log("{} similar line(s) suppressed in the last {} s", suppressedBefore, intervalMillis / 1000);
        }
        log.atLevel(level).log(format, arguments);
    }
}
