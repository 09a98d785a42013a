package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A step's idempotency key survives the move of its call into a task: the synchronous first
 * run starts the step's effect and is stopped by its time budget before the result is
 * journaled; the task that the call becomes runs the effect again, on a TaskEntity, with the
 * same key.
 */
class McpEndpointStepKeyTest {
    private static final String TASKS = "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";
    /** Each start of the step's effect: which run, and the key it was handed. */
    private static final List<String> EFFECTS = Collections.synchronizedList(new ArrayList<>());

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    record Charge(int cents) {}

    @BeforeAll
    static void start() {
        ToolDefinition<Charge> charge = ToolDefinition.tool("charge", Charge.class)
                .description("Charges a card under the step's idempotency key; slow, so it outruns its budget")
                .taskBudget(Duration.ofMillis(300))
                .handler((args, ctx) -> {
                    String receipt = ctx.step("charge", String.class, key -> {
                        EFFECTS.add((ctx.isTask() ? "task " : "synchronous ") + key);
                        long end = System.nanoTime() + Duration.ofMillis(800).toNanos();
                        while (System.nanoTime() < end) {
                            if (ctx.isCancelled()) {
                                throw new CancellationException("stopped between the effect and its journal write");
                            }
                            sleep();
                        }
                        return "receipt for " + key;
                    });
                    return ToolResult.text(receipt);
                });
        server = McpHttpServer.builder(
                        McpServerDefinition.builder("keys", "1").tool(charge).build())
                .dataDirectory(data)
                .port(0)
                .start();
        client = new McpTestClient(server.port());
    }

    private static void sleep() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theEffectRunAgainInTheTaskGetsTheKeyItHadInTheSynchronousRun() {
        JsonNode created = Json.parse(
                        client.send(client.toolCall("charge", Json.object().put("cents", 500), TASKS))
                                .body())
                .path("result");
        assertEquals("task", created.path("resultType").asText(), created.toString());
        String taskId = created.path("taskId").asText();
        JsonNode task = Json.object();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline && !task.path("status").asText().equals("completed")) {
            task = Json.parse(client.send(
                                    client.request("tasks/get", Json.object().put("taskId", taskId), TASKS))
                            .body())
                    .path("result");
        }
        assertEquals("completed", task.path("status").asText(), task.toString());

        assertEquals(2, EFFECTS.size(), EFFECTS::toString);
        String key = EFFECTS.get(0).substring("synchronous ".length());
        assertTrue(key.matches("[0-9a-f]{32}"), key);
        assertEquals(List.of("synchronous " + key, "task " + key), EFFECTS);
        assertEquals(
                "receipt for " + key,
                task.path("result").path("content").path(0).path("text").asText(),
                task::toString);
    }
}
