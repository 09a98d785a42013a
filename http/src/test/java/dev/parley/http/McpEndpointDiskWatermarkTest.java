package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk watermark on a real, small file system (a 64 MiB tmpfs, mounted as root as CI runs):
 * filled to below {@code parley.quotas.disk.min-free}, new durable calls and sessions get 503
 * with Retry-After and -31503 and journal nothing, while one-round calls, lists and the answer to
 * a call opened before keep working; once space is freed durable calls are admitted again.
 */
class McpEndpointDiskWatermarkTest {
    private static final long MIB = 1024 * 1024;

    @TempDir
    Path directory;

    @Test
    void belowTheWatermarkDurableCallsAndSessionsAreRefusedUntilSpaceIsFreed() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        Path data = Files.createDirectories(directory.resolve("data"));
        run("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", data.toString());
        try (McpHttpServer server = McpHttpServer.builder(new TestTools().definition())
                .dataDirectory(data)
                .port(0)
                .config(ConfigFactory.parseString("""
                        parley.quotas.disk {
                          min-free = 24 MiB
                          check-interval = 100 ms
                          retry-after = 7 seconds
                        }
                        """))
                .start()) {
            McpTestClient client = new McpTestClient(server.port());
            Reply open = client.send(greet(client));
            assertEquals("input_required", open.resultType(), open.body());

            Path filler = data.resolve("filler");
            fill(filler, Files.getFileStore(data).getUsableSpace() - 16 * MIB);
            Reply refused = awaitStatus(client, 503);
            long journaled = JournalRows.count(data);

            for (Reply over : new Reply[] {
                refused, client.send(greet(client)), McpEndpointQuotasTest.initialize(client, Json.object())
            }) {
                assertEquals(503, over.status(), over.body());
                assertEquals("7", over.headers().firstValue("retry-after").orElseThrow());
                assertEquals(-31503, over.errorCode(), over.body());
                assertEquals(
                        "disk-min-free", over.error().path("data").path("limit").asText(), over.body());
                assertEquals(24 * MIB, over.error().path("data").path("max").asLong(), over.body());
            }
            assertEquals(journaled, JournalRows.count(data), "the refused calls and session journaled nothing");

            // One-round calls, lists and the answer to a call opened before are served.
            assertEquals(
                    "echo: hi",
                    client.send(client.toolCall("echo", Json.object().put("text", "hi")))
                            .text());
            assertEquals(
                    200,
                    client.send(client.request("tools/list", Json.object())).status());
            Reply answered = client.send(client.retry(
                    greet(client),
                    open.requestState(),
                    McpTestClient.accept("who", Json.object().put("name", "Ada").put("age", 36))));
            assertEquals(200, answered.status(), answered.body());
            assertTrue(answered.text().contains("Ada"), answered.body());

            Files.delete(filler);
            Reply admitted = awaitStatus(client, 200);
            assertEquals("input_required", admitted.resultType(), admitted.body());
        } finally {
            run("umount", "-l", data.toString());
        }
    }

    private static Reply awaitStatus(McpTestClient client, int status) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Reply reply = client.send(greet(client));
        while (reply.status() != status && System.nanoTime() < deadline) {
            Thread.sleep(100);
            reply = client.send(greet(client));
        }
        assertEquals(status, reply.status(), reply.body());
        return reply;
    }

    /** Writes {@code bytes} of real data (tmpfs allocates what is written). */
    private static void fill(Path file, long bytes) throws IOException {
        byte[] block = new byte[(int) MIB];
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            for (long written = 0; written < bytes; written += block.length) {
                out.write(block, 0, (int) Math.min(block.length, bytes - written));
            }
        }
    }

    private static ObjectNode greet(McpTestClient client) {
        return client.toolCall("greet", Json.object().put("greeting", "Hello"));
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).inheritIO().start();
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed");
        }
    }
}
