package dev.parley.runtime.internal.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.parley.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

class RateLimitedLogTest {

    @Test
    void linesOverTheBurstAreCountedAndTheCountIsLoggedWithTheNextLine() {
        Logger logger = (Logger) LoggerFactory.getLogger("rate-limited-test");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
        RateLimitedLog log = new RateLimitedLog(logger, Level.INFO, 3, Duration.ofMinutes(1), clock);
        try {
            for (int i = 0; i < 1000; i++) {
                log.log("refused {}", i);
            }
            assertEquals(List.of("refused 0", "refused 1", "refused 2"), messages(lines));

            clock.advance(Duration.ofSeconds(61));
            log.log("refused {}", "later");
            assertEquals(
                    List.of(
                            "refused 0",
                            "refused 1",
                            "refused 2",
                            "997 similar line(s) suppressed in the last 60 s",
                            "refused later"),
                    messages(lines));
        } finally {
            logger.detachAppender(lines);
        }
    }

    private static List<String> messages(ListAppender<ILoggingEvent> lines) {
        return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
}
