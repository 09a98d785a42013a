package dev.parley.http.internal.ops;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL journal goes away while a node serves calls, and comes back (the same
 * data directory and port). While it is away, requests that need it get a clean, retryable 503
 * with {@code Retry-After} and {@code -30503} within a bounded time, requests that need none
 * (one-round calls, lists, discover) are served, and {@code /ready} is false. Once it is back,
 * {@code /ready} is true again, every call and task acknowledged before or during the outage
 * completes, and a task whose step could not be journaled during the outage goes on by itself.
 */
class JournalOutageOnPostgresTest {
    private static final Config CONFIG = ConfigFactory.parseString("""
      parley.management.port = 0
      parley.tasks.resume-interval = 1s
      parley.journal-outage.retry-after = 3s
      """);
    /** Far below parley.ask-timeout (60 s): a refusal that took this long would be a hang. */
    private static final long REFUSAL_BOUND_MS = 20_000;

    private static final int LOAD_CLIENTS = 2;

    @TempDir
    Path data;

    @TempDir
    Path postgresData;

    /** How often each journaled step really ran, by step and caller. */
    private final Map<String, AtomicInteger> stepRuns = new ConcurrentHashMap<>();
    /** The working task waits here (in its second step) until the test lets it go on. */
    private final CountDownLatch taskMayFinish = new CountDownLatch(1);

    private final CountDownLatch taskWaiting = new CountDownLatch(1);

    record CallerArgs(@Description("Who calls") String caller) {}

    private McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-outage-tests", "0.0.1")
                .tool(ToolDefinition.tool("echo", CallerArgs.class)
                        .description("One round, nothing journaled.")
                        .handler((args, ctx) -> ToolResult.text("echo " + args.caller())))
                .tool(ToolDefinition.tool("confirm", CallerArgs.class)
                        .description("Asks for a yes, then records one journaled step.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "go",
                                    Elicitation.form("Go?")
                                            .field("ok", FormField.bool("Go"))
                                            .build());
                            if (!(answer instanceof ElicitAnswer.Accepted)) {
                                return ToolResult.text("not done");
                            }
                            int runs = ctx.step("work", Integer.class, () -> ran("confirm " + args.caller()));
                            return ToolResult.text("confirmed " + args.caller() + " " + runs);
                        }))
                .tool(ToolDefinition.tool("approve_later", CallerArgs.class)
                        .description("A task that asks for approval, then records a step.")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((args, ctx) -> {
                            ctx.becomeTask();
                            ElicitAnswer answer = ctx.elicit(
                                    "approval",
                                    Elicitation.form("Approve?")
                                            .field("ok", FormField.bool("Approve"))
                                            .build());
                            if (!(answer instanceof ElicitAnswer.Accepted)) {
                                return ToolResult.text("not approved");
                            }
                            int runs = ctx.step("publish", Integer.class, () -> ran("approve " + args.caller()));
                            return ToolResult.text("approved " + args.caller() + " " + runs);
                        }))
                .tool(ToolDefinition.tool("work_through", CallerArgs.class)
                        .description("A task with two steps; the second waits until the test lets it go on.")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((args, ctx) -> {
                            ctx.becomeTask();
                            int first = ctx.step("first", Integer.class, () -> ran("first " + args.caller()));
                            int second = ctx.step("second", Integer.class, () -> {
                                taskWaiting.countDown();
                                await(taskMayFinish);
                                return ran("second " + args.caller());
                            });
                            return ToolResult.text("worked " + args.caller() + " " + first + " " + second);
                        }))
                .build();
    }

    private int ran(String step) {
        return stepRuns.computeIfAbsent(step, key -> new AtomicInteger()).incrementAndGet();
    }

    /** An acknowledged call: its first round answered input_required with this state. */
    record Pending(ObjectNode request, String requestState) {}

    @Test
    void theJournalGoesAwayAndComesBackAndNothingAcknowledgedIsLost() throws Exception {
        int postgresPort = freePort();
        EmbeddedPostgres postgres = startPostgres(postgresPort);
        McpHttpServer server = null;
        try {
            server = McpHttpServer.builder(definition())
                    .dataDirectory(data)
                    .port(0)
                    .database(new JournalDatabase.Postgres(
                            "jdbc:postgresql://127.0.0.1:" + postgresPort + "/postgres", "postgres", "postgres"))
                    .config(CONFIG)
                    .start();
            int management = server.managementPort();
            McpTestClient client = new McpTestClient(server.port());
            eventually("ready before the outage", () -> readiness(management) == 200);

            // Before the outage: calls waiting for input, a task waiting for input, a task working.
            Map<String, Pending> pending = new ConcurrentHashMap<>();
            for (int i = 0; i < 5; i++) {
                ObjectNode first = client.toolCall("confirm", Json.object().put("caller", "before-" + i));
                Reply reply = client.send(first);
                assertInputRequired(reply, first);
                pending.put("before-" + i, new Pending(first, reply.requestState()));
            }
            String session =
                    initialize(client).headers().firstValue("mcp-session-id").orElseThrow();
            String waitingTask = createTask(client, "approve_later", "waiting");
            eventually("the task asks", () -> "input_required".equals(taskStatus(client, waitingTask)));
            String workingTask = createTask(client, "work_through", "working");
            assertTrue(taskWaiting.await(30, TimeUnit.SECONDS), "the working task reached its second step");

            // Load while the journal goes away and comes back: one-round calls and two-round flows.
            List<String> bad = new CopyOnWriteArrayList<>();
            Map<String, AtomicLong> refusedByKind = new ConcurrentHashMap<>();
            AtomicLong slowest = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> load = new ArrayList<>();
            for (int c = 0; c < LOAD_CLIENTS; c++) {
                int clientNumber = c;
                load.add(started(() -> {
                    for (int i = 0; !stop.get() && i < 10_000; i++) {
                        String caller = "load-" + clientNumber + "-" + i;
                        Reply echo = timed(
                                client, client.toolCall("echo", Json.object().put("caller", caller)), slowest, bad);
                        judge("one-round call", echo, bad, refusedByKind, true);
                        ObjectNode first =
                                client.toolCall("confirm", Json.object().put("caller", caller));
                        Reply asked = timed(client, first, slowest, bad);
                        if (!judge("first round that asks", asked, bad, refusedByKind, false)) {
                            continue;
                        }
                        pending.put(caller, new Pending(first, asked.requestState()));
                        Reply done = timed(client, client.retry(first, asked.requestState(), yes("go")), slowest, bad);
                        if (judge("retry with answers", done, bad, refusedByKind, false)) {
                            pending.remove(caller);
                        }
                        sleep(20);
                    }
                }));
            }
            sleep(500);

            postgres.close(); // pg_ctl stop -m fast: every connection of the pool breaks
            long stoppedAt = System.nanoTime();

            // A retry that needs the journal: a clean, retryable 503, in bounded time.
            Pending one = pending.get("before-0");
            long asked = System.nanoTime();
            Reply refused = client.send(client.retry(one.request(), one.requestState(), yes("go")));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
            if (refused.status() == 200) {
                // The write made it before the pool noticed; the call is complete (nothing acknowledged is lost either
                // way).
                assertCompleted(refused, one.request());
                pending.remove("before-0");
            } else {
                assertJournalUnavailable(refused);
            }
            assertTrue(tookMs < REFUSAL_BOUND_MS, "answered in " + tookMs + " ms");
            eventually("not ready while the journal is away", () -> readiness(management) == 503);
            long notReadyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);

            // Known unavailable: refused at once; what needs no journal is served.
            Pending two = pending.get("before-1");
            assertJournalUnavailable(client.send(client.retry(two.request(), two.requestState(), yes("go"))));
            assertJournalUnavailable(
                    client.send(client.toolCall("confirm", Json.object().put("caller", "during"))));
            assertJournalUnavailable(client.send(client.taskUpdate(waitingTask, yes("approval"))));
            ObjectNode echo = client.toolCall("echo", Json.object().put("caller", "during"));
            JsonText.assertText(assertCompleted(client.send(echo), echo), "echo during");
            assertEquals(
                    200,
                    client.send(client.request("tools/list", Json.object())).status());
            // 2025-11-25: a session in memory is served; opening one needs the journal.
            Reply ping = client.post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}", sessionHeaders(session));
            assertEquals(200, ping.status(), ping::body);
            long initializing = System.nanoTime();
            assertJournalUnavailable(initialize(client));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - initializing) < REFUSAL_BOUND_MS);
            assertEquals(
                    200,
                    client.send(client.request("server/discover", Json.object()))
                            .status());
            // The working task's second step runs now; its result cannot be journaled.
            taskMayFinish.countDown();
            // The outage lasts parley.outage.seconds (5 by default; the drill: 60) under the load.
            long outageMillis = TimeUnit.SECONDS.toMillis(Long.getLong("parley.outage.seconds", 5));
            sleep(Math.max(0, outageMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt)));

            EmbeddedPostgres restarted = startPostgres(postgresPort);
            postgres = restarted;
            long startedAt = System.nanoTime();
            eventually("ready again once the journal is back", () -> readiness(management) == 200);
            long readyAgainMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt);
            sleep(1_000);
            stop.set(true);
            for (Thread thread : load) {
                thread.join(TimeUnit.SECONDS.toMillis(90));
            }
            assertEquals(
                    List.of(), bad, "only JSON-RPC answers and clean 503s, no 5xx but 503, none slower than the bound");

            // Every acknowledged call completes; a retry refused with 503 just retries.
            int completedAfter = 0;
            for (Map.Entry<String, Pending> call : pending.entrySet()) {
                ObjectNode retry =
                        client.retry(call.getValue().request(), call.getValue().requestState(), yes("go"));
                Reply done = retryWhileUnavailable(client, retry);
                String text = assertCompleted(done, retry)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText();
                assertTrue(text.startsWith("confirmed " + call.getKey() + " "), text);
                completedAfter++;
            }
            // The waiting task takes its answer; the working task completes by itself (TaskResumer).
            assertEquals(
                    200,
                    retryWhileUnavailable(client, client.taskUpdate(waitingTask, yes("approval")))
                            .status());
            eventually("the waiting task completes", () -> "completed".equals(taskStatus(client, waitingTask)));
            eventually(
                    "the working task completes by itself", () -> "completed".equals(taskStatus(client, workingTask)));
            assertEquals(
                    1, stepRuns.get("first working").get(), "the step journaled before the outage did not run again");
            assertEquals(1, stepRuns.get("approve waiting").get());
            // A step whose action ran but whose result the journal did not take runs again on the retry
            // (the at-least-once window the step's idempotency key is for); no step runs more than that.
            long reRun = 0;
            for (Map.Entry<String, AtomicInteger> step : stepRuns.entrySet()) {
                assertTrue(
                        step.getValue().get() <= 2,
                        () -> step.getKey() + " ran " + step.getValue().get() + " times");
                reRun += step.getValue().get() - 1;
            }
            System.out.printf(
                    "journal outage of %d s: not ready %d ms after the stop, ready %d ms after the start; "
                            + "first refusal in %d ms; refused %s; slowest answer %d ms; %d acknowledged calls completed after it; "
                            + "%d steps re-run after a write the journal did not take (the working task's interrupted step ran %d times)%n",
                    TimeUnit.MILLISECONDS.toSeconds(outageMillis),
                    notReadyMs,
                    readyAgainMs,
                    tookMs,
                    refusedByKind,
                    slowest.get(),
                    completedAfter,
                    reRun,
                    stepRuns.get("second working").get());
        } finally {
            if (server != null) {
                server.close();
            }
            postgres.close();
        }
    }

    /** Text of a tool result's first content block. */
    private static final class JsonText {
        static void assertText(com.fasterxml.jackson.databind.JsonNode result, String expected) {
            assertEquals(expected, result.path("content").path(0).path("text").asText(), result::toString);
        }
    }

    private EmbeddedPostgres startPostgres(int port) throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(postgresData)
                .setCleanDataDirectory(false)
                .setPort(port)
                .start();
    }

    private static Reply initialize(McpTestClient client) {
        return client.post(
                "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                        + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
                        + "\"clientInfo\":{\"name\":\"outage\",\"version\":\"1\"}}}",
                Map.of("Content-Type", "application/json", "Accept", "application/json, text/event-stream"));
    }

    private static Map<String, String> sessionHeaders(String session) {
        return Map.of(
                "Content-Type",
                "application/json",
                "Accept",
                "application/json",
                "Mcp-Session-Id",
                session,
                "MCP-Protocol-Version",
                "2025-11-25");
    }

    private static String createTask(McpTestClient client, String tool, String caller) {
        ObjectNode call = client.toolCall(tool, Json.object().put("caller", caller), McpTestClient.WITH_TASKS);
        Reply reply = client.send(call);
        assertEquals("task", reply.resultType(), reply::body);
        return reply.taskId();
    }

    private static String taskStatus(McpTestClient client, String taskId) {
        Reply reply = client.send(client.taskRequest("tasks/get", taskId));
        return reply.status() == 200 ? reply.result().path("status").asText() : "http " + reply.status();
    }

    private static ObjectNode yes(String key) {
        return accept(key, Json.object().put("ok", true));
    }

    /** 503 with Retry-After and the JSON-RPC error -30503 (with data.retryAfterSeconds). */
    private static void assertJournalUnavailable(Reply reply) {
        assertEquals(503, reply.status(), reply::body);
        assertEquals("3", reply.headers().firstValue("retry-after").orElse(null), reply::body);
        assertEquals(ErrorCodes.JOURNAL_UNAVAILABLE, reply.errorCode(), reply::body);
        assertEquals(3, reply.error().path("data").path("retryAfterSeconds").asInt(), reply::body);
    }

    /**
     * A 200 with a result (or, where allowed, a JSON-RPC error) is fine; a 503 must be the clean
     * journal answer (counted by kind); anything else is recorded as bad. True for a result.
     */
    private static boolean judge(
            String kind, Reply reply, List<String> bad, Map<String, AtomicLong> refused, boolean mustComplete) {
        if (reply.status() == 200 && reply.json().has("result")) {
            return true;
        }
        if (!mustComplete
                && reply.status() == 503
                && reply.headers().firstValue("retry-after").isPresent()
                && reply.errorCode() == ErrorCodes.JOURNAL_UNAVAILABLE) {
            refused.computeIfAbsent(kind, key -> new AtomicLong()).incrementAndGet();
            return false;
        }
        bad.add(kind + ": " + reply.status() + " " + reply.body());
        return false;
    }

    private static Reply timed(McpTestClient client, ObjectNode request, AtomicLong slowest, List<String> bad) {
        long start = System.nanoTime();
        Reply reply = client.send(request);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        slowest.accumulateAndGet(took, Math::max);
        if (took > REFUSAL_BOUND_MS) {
            bad.add("an answer took " + took + " ms: " + reply.body());
        }
        return reply;
    }

    /** What a client does with the 503: wait Retry-After, send the same request again (bounded). */
    private static Reply retryWhileUnavailable(McpTestClient client, ObjectNode request) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Reply reply = client.send(request);
        while (reply.status() == 503 && System.nanoTime() < deadline) {
            sleep(500);
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

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 60 s: " + what);
            }
            sleep(200);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread started(Runnable work) {
        Thread thread = new Thread(work);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
