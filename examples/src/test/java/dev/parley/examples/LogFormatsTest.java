package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.ops.CallMdc;
import dev.parley.runtime.Json;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The launcher's two log formats write a call's MDC fields: as text after the message, and as JSON members. */
class LogFormatsTest {
    private static final Map<String, String> CALL = Map.of(
            CallMdc.CALL_ID, "01a2-call", CallMdc.ROUND, "2", CallMdc.PRINCIPAL, CallMdc.principalDigest("alice"));

    @Test
    void jsonLinesCarryTheCallFields() throws Exception {
        JsonNode line = Json.parse(encode("logback-json.xml", event(CALL)));
        assertEquals("call ended: completed", line.path("message").asText());
        assertEquals("INFO", line.path("level").asText());
        assertEquals("01a2-call", line.path(CallMdc.CALL_ID).asText());
        assertEquals("2", line.path(CallMdc.ROUND).asText());
        assertEquals(
                CallMdc.principalDigest("alice"), line.path(CallMdc.PRINCIPAL).asText());
    }

    @Test
    void textLinesCarryTheCallFieldsAndNothingWithoutThem() throws Exception {
        String withCall = encode("logback.xml", event(CALL));
        assertTrue(withCall.contains("- call ended: completed ["), withCall);
        assertTrue(withCall.contains("callId=01a2-call"), withCall);
        String without = encode("logback.xml", event(Map.of()));
        assertTrue(without.endsWith("- call ended: completed" + System.lineSeparator()), without);
    }

    private static ILoggingEvent event(Map<String, String> mdc) {
        LoggingEvent event = new LoggingEvent();
        event.setLoggerName("dev.parley.actors.internal.ops.CallLog");
        event.setLevel(Level.INFO);
        event.setMessage("call ended: completed");
        event.setTimeStamp(System.currentTimeMillis());
        event.setThreadName("test");
        event.setMDCPropertyMap(mdc);
        return event;
    }

    /** Configures a fresh context from {@code resource} and encodes {@code event} with its console encoder. */
    @SuppressWarnings("unchecked")
    private static String encode(String resource, ILoggingEvent event) throws Exception {
        LoggerContext context = new LoggerContext();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LogFormatsTest.class.getClassLoader().getResource(resource));
        try {
            OutputStreamAppender<ILoggingEvent> console = (OutputStreamAppender<ILoggingEvent>)
                    context.getLogger("ROOT").getAppender("STDOUT");
            if (event instanceof LoggingEvent e) {
                e.setLoggerContext(context);
            }
            return new String(console.getEncoder().encode(event), StandardCharsets.UTF_8);
        } finally {
            context.stop();
        }
    }
}
