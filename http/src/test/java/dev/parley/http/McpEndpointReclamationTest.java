package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disk that comes back: a flood of waiting calls that are never answered ends when their
 * requestState expires; their rows are deleted at the next retention run after that (not after
 * the retention time of ended calls), and the journal on disk (on the default SQLite, its file and
 * WAL) shrinks back to within 10 % of its size before the flood.
 */
class McpEndpointReclamationTest {
    private static final int FLOOD = 200;
    private static final int KEPT = 40;

    @TempDir
    Path directory;

    @Test
    void aFloodOfAbandonedWaitingCallsIsDeletedAfterItsStateExpiresAndTheFileShrinks() throws Exception {
        try (McpHttpServer server = McpHttpServer.builder(new TestTools().definition())
                .dataDirectory(directory)
                .port(0)
                .config(ConfigFactory.parseString("""
                        parley.request-state.lifetime = 30 seconds
                        parley.retention.abandoned-margin = 1 second
                        parley.retention.interval = 1 second
                        parley.retention.compact-time = 5 seconds
                        parley.quotas.per-principal.waiting-calls = 1000
                        """))
                .start()) {
            McpTestClient client = new McpTestClient(server.port());
            // A node with some history: ended calls stay for parley.retention.after, they are not abandoned.
            String argument = "a".repeat(16 * 1024);
            for (int i = 0; i < KEPT; i++) {
                ObjectNode call = greet(client, argument + "ended" + i);
                Reply first = client.send(call);
                Reply ended = client.send(client.retry(
                        call,
                        first.requestState(),
                        McpTestClient.accept(
                                "who", Json.object().put("name", "Ada").put("age", 36))));
                assertEquals(200, ended.status(), ended.body());
            }
            long before = awaitSteadySize();

            for (int i = 0; i < FLOOD; i++) {
                Reply waiting = client.send(greet(client, argument + i));
                assertEquals("input_required", waiting.resultType(), waiting.body());
            }
            // Sent well within the state's lifetime: the whole flood is in the journal (the last starts are
            // written just behind their answers).
            JournalRows.awaitCalls(directory, FLOOD + KEPT);
            assertEquals(
                    FLOOD + KEPT, JournalRows.entityIds(directory, "ToolCall|").size());
            long flooded = fileSize();
            assertTrue(flooded > before + FLOOD * 16 * 1024L, "flooded: " + flooded + ", before: " + before);

            long deadline = System.nanoTime() + 180_000_000_000L;
            while (JournalRows.entityIds(directory, "ToolCall|").size() > KEPT && System.nanoTime() < deadline) {
                Thread.sleep(250);
            }
            assertEquals(KEPT, JournalRows.entityIds(directory, "ToolCall|").size(), "only the ended calls are left");
            long after = fileSize();
            while (after > before * 1.1 && System.nanoTime() < deadline) {
                Thread.sleep(250);
                after = fileSize();
            }
            System.out.printf("journal file: before %d, flooded %d, after %d bytes%n", before, flooded, after);
            assertTrue(after <= before * 1.1, "before " + before + ", flooded " + flooded + ", after " + after);
        }
    }

    private static ObjectNode greet(McpTestClient client, String greeting) {
        return client.toolCall("greet", Json.object().put("greeting", greeting));
    }

    /** The journal's size once it stopped changing (H2 writes in the background, SQLite checkpoints). */
    private long awaitSteadySize() throws Exception {
        long size = fileSize();
        for (int i = 0; i < 20; i++) {
            Thread.sleep(250);
            long now = fileSize();
            if (now == size) {
                return size;
            }
            size = now;
        }
        return size;
    }

    private long fileSize() throws Exception {
        return JournalRows.bytesOnDisk(directory);
    }
}
