package dev.parley.http.internal.ops;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.ops.CallLog;
import dev.parley.actors.internal.ops.CallMdc;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A handler's log lines carry its call's MDC fields in every round, on the request's own thread,
 * on a dispatcher thread (an entity's round) and on the tool executor's, and the next call does
 * not see them.
 */
class CallMdcTest {
    private static final String HANDLERS = "dev.parley.http.internal.ops.handlers";
    private static final org.slf4j.Logger handlerLog = LoggerFactory.getLogger(HANDLERS);

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    record TextArgs(@Description("Some text") String text) {}

    @BeforeAll
    static void start() {
        McpServerDefinition definition = McpServerDefinition.builder("parley-mdc-tests", "0.0.1")
                .tool(ToolDefinition.tool("ask_and_log", TextArgs.class)
                        .description("Logs a line in every round; asks once.")
                        .handler((args, ctx) -> {
                            handlerLog.info("running {}", args.text());
                            ElicitAnswer answer = ctx.elicit(
                                    "who",
                                    Elicitation.form("Who?")
                                            .field("name", FormField.string("Name"))
                                            .build());
                            return ToolResult.text(answer instanceof ElicitAnswer.Accepted ? "done" : "no");
                        }))
                .tool(ToolDefinition.tool("log_once", TextArgs.class)
                        .description("Logs a line.")
                        .handler((args, ctx) -> {
                            handlerLog.info("running {}", args.text());
                            return ToolResult.text("logged");
                        }))
                .build();
        // One tool thread, and one run at a time on dispatcher threads.
        server = McpHttpServer.builder(definition)
                .dataDirectory(data)
                .port(0)
                .config(ConfigFactory.parseString("parley.tool-executor.threads = 1\nparley.management.enabled = off"))
                .start();
        client = new McpTestClient(server.port());
        lines.start();
        for (String name : List.of(HANDLERS, CallLog.class.getName())) {
            Logger logger = (Logger) LoggerFactory.getLogger(name);
            logger.setLevel(Level.INFO);
            logger.addAppender(lines);
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyRoundsLogLinesCarryTheCallAndTheNextCallDoesNot() {
        ObjectNode first = client.toolCall("ask_and_log", Json.object().put("text", "first"));
        String state = assertInputRequired(client.send(first), first)
                .get("requestState")
                .asText();
        ObjectNode retry =
                client.retry(first, state, accept("who", Json.object().put("name", "Ada")));
        assertCompleted(client.send(retry), retry);
        // With a progress token the call is a stream, whose handler runs on the tool executor.
        ObjectNode other = client.toolCall("log_once", Json.object().put("text", "other"));
        ((ObjectNode) other.path("params").path("_meta")).put("progressToken", "p-1");
        McpTestClient.Reply streamed = client.send(other);
        assertEquals("text/event-stream", streamed.contentType());
        assertTrue(streamed.body().contains("\"logged\""), streamed::body);
        ObjectNode last = client.toolCall("log_once", Json.object().put("text", "last"));
        assertCompleted(client.send(last), last);

        List<ILoggingEvent> handlerLines = lines.list.stream()
                .filter(e -> e.getLoggerName().equals(HANDLERS))
                .toList();
        assertEquals(4, handlerLines.size(), () -> "one line per run: " + handlerLines);
        Map<String, String> round1 = handlerLines.get(0).getMDCPropertyMap();
        Map<String, String> round2 = handlerLines.get(1).getMDCPropertyMap();
        Map<String, String> next = handlerLines.get(2).getMDCPropertyMap();
        Map<String, String> onRequestThread = handlerLines.get(3).getMDCPropertyMap();
        String anonymous = CallMdc.principalDigest("anonymous");

        // A first round that waits for its answer alone runs on the request's own thread (CallerRuns).
        assertTrue(
                handlerLines.get(0).getThreadName().contains("default-dispatcher"), handlerLines.get(0)::getThreadName);
        assertEquals("1", round1.get(CallMdc.ROUND));
        assertEquals("ask_and_log", round1.get(CallMdc.TOOL));
        assertEquals(anonymous, round1.get(CallMdc.PRINCIPAL));
        assertFalse(round1.containsKey(CallMdc.CALL_ID), "a first round has no call id yet");

        assertEquals("2", round2.get(CallMdc.ROUND));
        String callId = round2.get(CallMdc.CALL_ID);
        assertNotNull(callId);
        assertEquals(anonymous, round2.get(CallMdc.PRINCIPAL));

        // The entity's round is posted to the dispatcher (CallerRuns.postingTo); a streamed first round goes to the
        // tool executor.
        assertTrue(
                handlerLines.get(1).getThreadName().contains("default-dispatcher"), handlerLines.get(1)::getThreadName);
        assertTrue(handlerLines.get(2).getThreadName().startsWith("parley-tool"), handlerLines.get(2)::getThreadName);
        assertEquals("log_once", next.get(CallMdc.TOOL));
        assertFalse(next.containsKey(CallMdc.CALL_ID), () -> "the previous call's id is gone: " + next);
        assertTrue(
                handlerLines.get(3).getThreadName().contains("default-dispatcher"), handlerLines.get(3)::getThreadName);
        assertEquals(
                Map.of(
                        CallMdc.METHOD,
                        "tools/call",
                        CallMdc.TOOL,
                        "log_once",
                        CallMdc.ROUND,
                        "1",
                        CallMdc.PRINCIPAL,
                        anonymous),
                onRequestThread);

        ILoggingEvent ended = lines.list.stream()
                .filter(e -> e.getLoggerName().equals(CallLog.class.getName()))
                .findFirst()
                .orElseThrow();
        assertEquals(Level.INFO, ended.getLevel());
        assertEquals(callId, ended.getMDCPropertyMap().get(CallMdc.CALL_ID));
        // The call's fields alone: none of the fields Pekko keeps on the entity's thread.
        assertEquals(
                java.util.Set.of(CallMdc.METHOD, CallMdc.TOOL, CallMdc.CALL_ID, CallMdc.ROUND, CallMdc.PRINCIPAL),
                ended.getMDCPropertyMap().keySet());
        assertTrue(
                ended.getFormattedMessage().startsWith("call ended: completed after 2 rounds"),
                ended::getFormattedMessage);
        assertTrue(org.slf4j.MDC.getCopyOfContextMap() == null
                || org.slf4j.MDC.getCopyOfContextMap().isEmpty());
    }
}
