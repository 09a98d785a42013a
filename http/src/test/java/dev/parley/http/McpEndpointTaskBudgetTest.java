package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An optional-task tool with a time budget: synchronous when quick, a task when not. */
class McpEndpointTaskBudgetTest {
    private static final String TASKS = "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";
    private static final AtomicInteger PREPARED = new AtomicInteger();

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    record Work(long millis) {}

    @BeforeAll
    static void start() {
        ToolDefinition<Work> work = ToolDefinition.tool("work", Work.class)
                .description("Works for the given time after one journaled step")
                .taskBudget(Duration.ofMillis(300))
                .handler((args, ctx) -> {
                    ctx.step("prepare", Integer.class, PREPARED::incrementAndGet);
                    long end =
                            System.nanoTime() + Duration.ofMillis(args.millis()).toNanos();
                    // Only the task's run works to the end; the synchronous run stops when cancelled.
                    while (System.nanoTime() < end) {
                        if (ctx.isCancelled()) {
                            throw new InterruptedException("cancelled");
                        }
                        Thread.sleep(10);
                    }
                    return ToolResult.text("worked " + args.millis() + " ms; task=" + ctx.isTask());
                });
        server = McpHttpServer.builder(
                        McpServerDefinition.builder("budget", "1").tool(work).build())
                .dataDirectory(data)
                .port(0)
                .start();
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aCallThatFinishesWithinTheBudgetAnswersSynchronously() {
        JsonNode result = Json.parse(
                        client.send(client.toolCall("work", Json.object().put("millis", 10), TASKS))
                                .body())
                .path("result");
        assertEquals("complete", result.path("resultType").asText(), result.toString());
        assertEquals(
                "worked 10 ms; task=false",
                result.path("content").path(0).path("text").asText());
    }

    @Test
    void aCallThatOutrunsItsBudgetBecomesATaskThatDoesNotRepeatItsStep() throws Exception {
        int before = PREPARED.get();
        JsonNode created = Json.parse(
                        client.send(client.toolCall("work", Json.object().put("millis", 1500), TASKS))
                                .body())
                .path("result");
        assertEquals("task", created.path("resultType").asText(), created.toString());
        assertFalse(created.has("requestState"));
        String taskId = created.path("taskId").asText();
        JsonNode task = Json.object();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            task = Json.parse(client.send(
                                    client.request("tasks/get", Json.object().put("taskId", taskId), TASKS))
                            .body())
                    .path("result");
            if (task.path("status").asText().equals("completed")) {
                break;
            }
            Thread.sleep(100);
        }
        assertEquals("completed", task.path("status").asText(), task.toString());
        assertEquals(
                "worked 1500 ms; task=true",
                task.path("result").path("content").path(0).path("text").asText());
        assertEquals(before + 1, PREPARED.get(), "the step journaled by the synchronous run is not run again");
    }

    @Test
    void withoutTheExtensionTheBudgetDoesNotApplyAndTheCallRunsToTheEnd() {
        JsonNode result = Json.parse(
                        client.send(client.toolCall("work", Json.object().put("millis", 600), "{}"))
                                .body())
                .path("result");
        assertTrue(result.path("content").path(0).path("text").asText().startsWith("worked 600 ms"), result.toString());
    }
}
