package dev.parley.examples;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Marker;

/**
 * A logback turbo filter for lines any client can cause at will (pekko-http's "Illegal request"
 * warnings for malformed HTTP): of the lines of {@code loggerName} that start with one of the
 * {@code messagePrefix}es, at most {@code linesPerMinute} are written each minute; the rest are
 * counted, and the first line written after them is preceded by one saying how many were
 * suppressed. Configured in {@code logback.xml}.
 */
public final class RateLimitedLinesFilter extends TurboFilter {
    private String loggerName;
    private final List<String> messagePrefixes = new ArrayList<>();
    private int linesPerMinute = 10;
    /** Milliseconds; a test moves it. */
    java.util.function.LongSupplier clock = System::currentTimeMillis;

    private long windowStart = -1;
    private int written;
    private long suppressed;

    public void setLoggerName(String loggerName) {
        this.loggerName = loggerName;
    }

    /** May be given several times. */
    public void addMessagePrefix(String prefix) {
        messagePrefixes.add(prefix);
    }

    public void setLinesPerMinute(int linesPerMinute) {
        this.linesPerMinute = linesPerMinute;
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (format == null
                || !logger.getName().equals(loggerName)
                || messagePrefixes.stream().noneMatch(format::startsWith)) {
            return FilterReply.NEUTRAL;
        }
        long suppressedBefore;
        synchronized (this) {
            long now = clock.getAsLong();
            if (windowStart < 0 || now - windowStart >= 60_000) {
                windowStart = now;
                written = 0;
            }
            if (written >= linesPerMinute) {
                suppressed++;
                return FilterReply.DENY;
            }
            written++;
            suppressedBefore = suppressed;
            suppressed = 0;
        }
        if (suppressedBefore > 0) {
            // Matches no prefix, so it passes this filter.
            logger.log(
                    null,
                    Logger.FQCN,
                    Level.toLocationAwareLoggerInteger(level),
                    suppressedBefore + " similar line(s) suppressed (at most " + linesPerMinute + " a minute)",
                    null,
                    null);
        }
        return FilterReply.NEUTRAL;
    }
}
