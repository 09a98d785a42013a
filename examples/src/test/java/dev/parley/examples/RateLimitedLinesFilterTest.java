package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimitedLinesFilterTest {

    @Test
    void malformedRequestWarningsAreLimitedPerMinuteAndTheSuppressedOnesCounted() {
        LoggerContext context = new LoggerContext();
        AtomicLong now = new AtomicLong(1_000_000);
        RateLimitedLinesFilter filter = new RateLimitedLinesFilter();
        filter.setLoggerName("org.apache.pekko.actor.ActorSystemImpl");
        filter.addMessagePrefix("Illegal request");
        filter.setLinesPerMinute(3);
        filter.clock = now::get;
        filter.start();
        context.addTurboFilter(filter);
        Logger logger = context.getLogger("org.apache.pekko.actor.ActorSystemImpl");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.setContext(context);
        lines.start();
        logger.addAppender(lines);

        for (int i = 0; i < 500; i++) {
            logger.warn("Illegal request, responding with status '400 Bad Request': #" + i);
        }
        logger.warn("Shard region stopped"); // other lines of the logger pass
        now.addAndGet(61_000);
        logger.warn("Illegal request, responding with status '400 Bad Request': later");

        assertEquals(
                List.of(
                        "Illegal request, responding with status '400 Bad Request': #0",
                        "Illegal request, responding with status '400 Bad Request': #1",
                        "Illegal request, responding with status '400 Bad Request': #2",
                        "Shard region stopped",
                        "497 similar line(s) suppressed (at most 3 a minute)",
                        "Illegal request, responding with status '400 Bad Request': later"),
                lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
    }
}
