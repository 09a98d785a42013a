package dev.parley.http.internal.ops;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * The embedded journal's disk fills up, honestly, on SQLite (the default) and on H2: the data directory is a small
 * tmpfs mounted for the test (root only; elsewhere the test is skipped, and
 * {@code scripts/full-disk-drill.sh} runs the same drill against the demo jar), filled with a
 * file until the file system refuses writes. Requests that need the journal get 503 with
 * {@code Retry-After}, one-round calls are served, {@code /ready} is false, the node says so in
 * one line; once the file is deleted, the node is ready again and every waiting call completes.
 */
class JournalOutageOnFullDiskTest {
    private static final long REFUSAL_BOUND_MS = 20_000;

    @TempDir
    Path scratch;

    record CallerArgs(@Description("Who calls") String caller) {}

    private static McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-full-disk-tests", "0.0.1")
                .tool(ToolDefinition.tool("echo", CallerArgs.class)
                        .description("One round, nothing journaled.")
                        .handler((args, ctx) -> ToolResult.text("echo " + args.caller())))
                .tool(ToolDefinition.tool("confirm", CallerArgs.class)
                        .description("Asks for a yes, then records a journaled step with a large result.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "go",
                                    Elicitation.form("Go?")
                                            .field("ok", FormField.bool("Go"))
                                            .build());
                            if (!(answer instanceof ElicitAnswer.Accepted)) {
                                return ToolResult.text("not done");
                            }
                            String receipt =
                                    ctx.step("receipt", String.class, () -> "R".repeat(64 * 1024) + args.caller());
                            return ToolResult.text("confirmed " + args.caller() + " " + receipt.length());
                        }))
                .build();
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"sqlite", "h2"})
    void aFullDiskIsAClean503AndTheNodeRecoversWhenSpaceIsFreed(String store) throws Exception {
        Path disk = Files.createDirectories(scratch.resolve("disk"));
        assumeTrue(
                run("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", disk.toString()),
                "mounting a small tmpfs needs root; scripts/full-disk-drill.sh runs this drill where it can");
        Logger availabilityLog = (Logger) LoggerFactory.getLogger(JournalAvailability.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        availabilityLog.addAppender(lines);
        McpHttpServer server = null;
        try {
            server = McpHttpServer.builder(definition())
                    .dataDirectory(disk)
                    .port(0)
                    .config(ConfigFactory.parseString(
                            // The watermark off: this test is what happens when the disk does fill up.
                            "parley.management.port = 0\nparley.journal-outage.retry-after = 2s\n"
                                    + "parley.quotas.disk.min-free = 0\nparley.journal.database = " + store))
                    .start();
            int management = server.managementPort();
            McpTestClient client = new McpTestClient(server.port());
            eventually("ready", () -> readiness(management) == 200);
            Map<String, ObjectNode> waiting = new LinkedHashMap<>();
            Map<String, String> states = new LinkedHashMap<>();
            for (int i = 0; i < 4; i++) {
                ObjectNode first = client.toolCall("confirm", Json.object().put("caller", "c" + i));
                Reply reply = client.send(first);
                assertInputRequired(reply, first);
                waiting.put("c" + i, first);
                states.put("c" + i, reply.requestState());
            }

            Path filler = disk.resolve("filler");
            fill(filler);
            long asked = System.nanoTime();
            Reply refused = client.send(client.retry(waiting.get("c0"), states.get("c0"), yes()));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
            assertJournalUnavailable(refused);
            assertTrue(tookMs < REFUSAL_BOUND_MS, "answered in " + tookMs + " ms");
            assertJournalUnavailable(client.send(client.retry(waiting.get("c1"), states.get("c1"), yes())));
            ObjectNode echo = client.toolCall("echo", Json.object().put("caller", "full"));
            assertEquals(
                    "echo full",
                    assertCompleted(client.send(echo), echo)
                            .path("content")
                            .path(0)
                            .path("text")
                            .asText());
            eventually("not ready while the disk is full", () -> readiness(management) == 503);
            for (int i = 0; i < 20; i++) {
                client.send(client.retry(waiting.get("c2"), states.get("c2"), yes())); // a client retrying in a loop
            }

            Files.delete(filler);
            long freedAt = System.nanoTime();
            eventually("ready once space is freed", () -> readiness(management) == 200);
            long readyAgainMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - freedAt);
            for (Map.Entry<String, ObjectNode> call : waiting.entrySet()) {
                ObjectNode retry = client.retry(call.getValue(), states.get(call.getKey()), yes());
                String text = assertCompleted(retryWhileUnavailable(client, retry), retry)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText();
                assertEquals(
                        "confirmed " + call.getKey() + " "
                                + (64 * 1024 + call.getKey().length()),
                        text);
            }
            long outageLines = lines.list.stream()
                    .filter(line -> line.getFormattedMessage().startsWith("journal unavailable"))
                    .count();
            long failureLines = lines.list.stream()
                    .filter(line -> line.getFormattedMessage().startsWith("journal failure"))
                    .count();
            assertEquals(1, outageLines, "one line says the journal is unavailable");
            String outage = lines.list.stream()
                    .map(line -> line.getFormattedMessage())
                    .filter(line -> line.startsWith("journal unavailable"))
                    .findFirst()
                    .orElseThrow();
            // SQLite's probe names the full disk. H2 closes its database on the failed write: the line
            // names the closed database, or the failed write when the probe ran before the close.
            assertTrue(
                    outage.toLowerCase(java.util.Locale.ROOT)
                            .matches(
                                    store.equals("sqlite")
                                            ? "(?s).*disk is full.*"
                                            : "(?s).*(database has been closed|writing to .* failed).*"),
                    () -> "the line says why: " + outage);
            assertTrue(failureLines <= 5, "failure reports are rate-limited: " + failureLines);
            System.out.printf(
                    "full disk on %s: first refusal in %d ms, ready %d ms after space was freed; log lines: %d outage, "
                            + "%d failure reports%n",
                    store, tookMs, readyAgainMs, outageLines, failureLines);
        } finally {
            availabilityLog.detachAppender(lines);
            if (server != null) {
                server.close();
            }
            run("umount", "-l", disk.toString());
        }
    }

    /** Writes {@code file} until the file system has no space left. */
    private static void fill(Path file) throws IOException {
        byte[] chunk = new byte[256 * 1024];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int i = 0; i < 1_000; i++) {
                out.write(chunk);
                out.flush();
            }
            throw new AssertionError("the file system did not fill up");
        } catch (IOException full) {
            assertTrue(String.valueOf(full.getMessage()).contains("space"), full::toString);
        }
    }

    private static ObjectNode yes() {
        return accept("go", Json.object().put("ok", true));
    }

    private static void assertJournalUnavailable(Reply reply) {
        assertEquals(503, reply.status(), reply::body);
        assertEquals("2", reply.headers().firstValue("retry-after").orElse(null), reply::body);
        assertEquals(ErrorCodes.JOURNAL_UNAVAILABLE, reply.errorCode(), reply::body);
    }

    private static Reply retryWhileUnavailable(McpTestClient client, ObjectNode request) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Reply reply = client.send(request);
        while (reply.status() == 503 && System.nanoTime() < deadline) {
            Thread.sleep(500);
            reply = client.send(request);
        }
        return reply;
    }

    /** The status of /ready; -1 when it does not answer in time (a loaded machine right after start). */
    private static int readiness(int managementPort) {
        try {
            return Prometheus.status(managementPort, "/ready");
        } catch (RuntimeException slow) {
            return -1;
        }
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 60 s: " + what);
            }
            Thread.sleep(200);
        }
    }

    /** Runs a command; true when it exits 0 within 30 s. */
    private static boolean run(String... command) {
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
