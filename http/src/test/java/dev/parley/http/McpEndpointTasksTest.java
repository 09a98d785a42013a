package dev.parley.http;

import static dev.parley.http.StreamAssertions.SUBSCRIPTION_ID;
import static dev.parley.http.StreamAssertions.assertEventStream;
import static dev.parley.http.StreamAssertions.assertTagged;
import static dev.parley.http.TaskTools.EXTENSION;
import static dev.parley.http.TaskTools.WITHOUT_TASKS;
import static dev.parley.http.TaskTools.WITH_TASKS;
import static dev.parley.http.TaskTools.args;
import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertResult;
import static dev.parley.testing.McpTestClient.accept;
import static dev.parley.testing.McpTestClient.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import dev.parley.testing.SpecSchema;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tasks extension on the wire ({@code io.modelcontextprotocol/tasks}, spec §3): the server
 * decides which calls become tasks, per request; the flat {@code CreateTaskResult};
 * {@code tasks/get|update|cancel} and their errors; MRTR before a task; {@code notifications/tasks}
 * on listen streams; expiry after {@code ttlMs}.
 *
 * <p>The task shapes are not in the core schema: they are checked member by member here; the
 * envelopes, inlined results, input requests and errors are validated against the schema.
 */
class McpEndpointTasksTest {
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final Set<String> STATUSES = Set.of("working", "input_required", "completed", "failed", "cancelled");
    private static final Set<String> TERMINAL = Set.of("completed", "failed", "cancelled");
    private static final ObjectNode ACK = object("{\"resultType\":\"complete\"}");

    @TempDir
    static Path data;

    private static TaskTools tools;
    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        tools = new TaskTools();
        server = TaskTools.start(tools, data, "");
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    // --- negotiation and creation ---------------------------------------------------------

    @Test
    void discoverAdvertisesTheTasksExtensionAndNoTasksCapability() {
        ObjectNode request = client.request("server/discover", null, "{}");
        JsonNode capabilities =
                assertResult(client.send(request), request, "DiscoverResult").path("capabilities");
        assertTrue(capabilities.path("extensions").path(EXTENSION).isObject(), () -> "capabilities: " + capabilities);
        assertFalse(capabilities.has("tasks"), () -> "no 2025-style tasks capability: " + capabilities);
    }

    @Test
    void optionalToolBecomesATaskWhenTheRequestDeclaredTheExtension() {
        ObjectNode call = client.toolCall("count_words", args("text", "one two three"), WITH_TASKS);
        String taskId =
                assertCreateTaskResult(client.send(call), call).path("taskId").asText();

        JsonNode done = awaitTerminal(taskId);
        assertEquals("completed", done.path("status").asText());
        assertEquals(
                "3 words (task)",
                done.path("result").path("content").path(0).path("text").asText());
    }

    @Test
    void optionalToolRunsSynchronouslyWithoutTheExtension() {
        ObjectNode call = client.toolCall("count_words", args("text", "one two three"), WITHOUT_TASKS);
        JsonNode result = assertCompleted(client.send(call), call);
        assertEquals("3 words", result.path("content").path(0).path("text").asText());
        assertFalse(result.has("taskId"), () -> "no task: " + result);
    }

    @Test
    void legacyTaskParamIsIgnored() {
        ObjectNode sync = client.toolCall("echo", args("text", "hi"), WITH_TASKS);
        ((ObjectNode) sync.get("params")).set("task", object("{\"ttl\":60000,\"pollInterval\":100}"));
        assertEquals(
                "echo: hi",
                assertCompleted(client.send(sync), sync)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText());

        ObjectNode withoutExtension = client.toolCall("count_words", args("text", "a b"), WITHOUT_TASKS);
        ((ObjectNode) withoutExtension.get("params")).set("task", object("{\"ttl\":60000}"));
        assertEquals(
                "2 words",
                assertCompleted(client.send(withoutExtension), withoutExtension)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText());
    }

    @Test
    void requiredToolWithoutTheExtensionIsRefusedBeforeItsHandlerRuns() {
        int runs = tools.watchRuns.get();
        ObjectNode call = client.toolCall("watch_feed", args("feed", "refused"), WITHOUT_TASKS);
        JsonNode error = assertError(client.send(call), 400, -32021, call);
        assertTrue(
                error.path("data")
                        .path("requiredCapabilities")
                        .path("extensions")
                        .path(EXTENSION)
                        .isObject(),
                () -> "names the extension: " + error);
        assertEquals(runs, tools.watchRuns.get(), "the handler never ran");
    }

    @Test
    void legacyTasksCapabilityIsNotTheExtension() {
        String legacy = "{\"elicitation\":{},\"tasks\":{\"requests\":{\"tools\":{\"call\":{}}}}}";
        ObjectNode optional = client.toolCall("count_words", args("text", "old client"), legacy);
        assertEquals(
                "2 words",
                assertCompleted(client.send(optional), optional)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText());
        ObjectNode required = client.toolCall("watch_feed", args("feed", "legacy"), legacy);
        assertError(client.send(required), 400, -32021, required);
    }

    // --- tasks/get ------------------------------------------------------------------------

    @Test
    void toolErrorEndsTheTaskCompletedWithAnErrorResult() {
        String taskId = createTask("check_stock", args("order", "A-1"));
        JsonNode done = awaitTerminal(taskId);
        assertEquals("completed", done.path("status").asText(), () -> "a tool error is not a failed task: " + done);
        assertTrue(done.path("result").path("isError").asBoolean(), () -> "isError: " + done);
        assertEquals(
                "Order A-1: out of stock",
                done.path("result").path("content").path(0).path("text").asText());
    }

    @Test
    void jsonRpcErrorEndsTheTaskFailedWithTheErrorInlined() {
        String taskId = createTask("post_ledger", args("order", "A-2"));
        JsonNode done = awaitTerminal(taskId);
        assertEquals("failed", done.path("status").asText(), () -> "failed: " + done);
        JsonNode error = done.path("error");
        assertEquals(TaskTools.LEDGER_UNAVAILABLE, error.path("code").asInt());
        assertEquals("Ledger unavailable for order A-2", error.path("message").asText());
        assertEquals("A-2", error.path("data").path("order").asText());
        assertTrue(done.path("statusMessage").isTextual(), () -> "a failed task explains itself: " + done);
    }

    @Test
    void inputRequiredTaskListsEveryOutstandingRequestAndTakesPartialAnswers() {
        String taskId = createTask("approve_order", args("order", "7"));
        JsonNode waiting = awaitStatus(taskId, "input_required");
        assertEquals(Set.of("approver", "ship"), keys(waiting.path("inputRequests")));
        waiting.path("inputRequests")
                .forEach(request -> assertEquals(
                        "elicitation/create", request.path("method").asText(), () -> "an elicitation: " + request));

        // One answer, plus a key the task never issued: the answer is kept, the stranger ignored.
        ObjectNode partial = accept("approver", object("{\"name\":\"Ann\"}"));
        partial.set("never_asked", object("{\"action\":\"accept\",\"content\":{\"x\":1}}"));
        assertAck(update(taskId, partial));
        JsonNode stillWaiting = get(taskId);
        assertEquals("input_required", stillWaiting.path("status").asText());
        assertEquals(Set.of("ship"), keys(stillWaiting.path("inputRequests")), "the answered key is gone");

        // The answered key again (ignored: a key is never reused) and the open one.
        ObjectNode rest = accept("ship", object("{\"ok\":true}"));
        rest.setAll(accept("approver", object("{\"name\":\"Bob\"}")));
        assertAck(update(taskId, rest));
        JsonNode done = awaitTerminal(taskId);
        assertEquals("completed", done.path("status").asText());
        assertEquals(
                "Order 7 shipped, approved by Ann",
                done.path("result").path("content").path(0).path("text").asText());
    }

    // --- tasks/cancel ---------------------------------------------------------------------

    @Test
    void cancelEndsAWorkingTaskCancelledAndStopsItsRun() throws InterruptedException {
        String taskId = createTask("watch_feed", args("feed", "cancelled"));
        assertTrue(tools.started("cancelled").await(SETTLE.toSeconds(), TimeUnit.SECONDS), "the task's run started");
        JsonNode working = get(taskId);
        assertEquals("working", working.path("status").asText());
        assertEquals("Watching cancelled", working.path("statusMessage").asText(), "progress is the status message");

        assertAck(cancel(taskId));
        assertEquals("cancelled", awaitTerminal(taskId).path("status").asText());
        assertTrue(tools.stopped("cancelled").await(SETTLE.toSeconds(), TimeUnit.SECONDS), "the run stopped");
        assertAck(cancel(taskId)); // a terminal task: the same ack
        assertEquals("cancelled", get(taskId).path("status").asText());
    }

    @Test
    void cancelOfACompletedTaskIsAcknowledgedAndChangesNothing() {
        String taskId = createTask("count_words", args("text", "done"));
        assertEquals("completed", awaitTerminal(taskId).path("status").asText());
        assertAck(cancel(taskId));
        assertEquals("completed", get(taskId).path("status").asText());
    }

    // --- errors ---------------------------------------------------------------------------

    @Test
    void removedTaskMethodsAreNotFound() {
        for (String method : List.of("tasks/result", "tasks/list")) {
            ObjectNode request =
                    client.request(method, method.equals("tasks/list") ? null : taskParams("t-1"), WITH_TASKS);
            assertError(client.send(request), 404, -32601, request);
        }
    }

    @Test
    void taskMethodsWithoutTheExtensionAreRefused() {
        String taskId = createTask("count_words", args("text", "gated"));
        for (ObjectNode request : taskRequests(taskId, WITHOUT_TASKS)) {
            JsonNode error = assertError(client.send(request), 400, -32021, request);
            assertTrue(
                    error.path("data")
                            .path("requiredCapabilities")
                            .path("extensions")
                            .path(EXTENSION)
                            .isObject(),
                    () -> "names the extension: " + error);
        }
    }

    @Test
    void unknownTaskIdIsInvalidParams() {
        for (ObjectNode request : taskRequests("no-such-task", WITH_TASKS)) {
            assertError(client.send(request), 200, -32602, request);
        }
    }

    @Test
    void anotherPrincipalsTaskDoesNotExistForThem() {
        String taskId = createTask("approve_order", args("order", "8"));
        awaitStatus(taskId, "input_required");
        for (ObjectNode request : taskRequests(taskId, WITH_TASKS)) {
            assertError(client.send(request, Map.of(TestTools.USER_HEADER, "bob")), 200, -32602, request);
        }
        assertEquals("input_required", get(taskId).path("status").asText(), "bob's update and cancel changed nothing");
        assertEquals(Set.of("approver", "ship"), keys(get(taskId).path("inputRequests")));
        assertAck(cancel(taskId));
    }

    @Test
    void mcpNameHeaderMustRepeatTheTaskId() {
        String taskId = createTask("count_words", args("text", "routed"));
        ObjectNode request = client.request("tasks/get", taskParams(taskId), WITH_TASKS);
        assertError(client.send(request, Map.of("Mcp-Name", "another-task")), 400, -32020, request);
        assertError(client.send(request, Collections.singletonMap("Mcp-Name", null)), 400, -32020, request);
    }

    // --- MRTR, then a task ----------------------------------------------------------------

    @Test
    void inputRoundsBeforeTheTaskAreSynchronous() {
        ObjectNode call = client.toolCall("book_trip", args("city", "Lisbon"), WITH_TASKS);
        JsonNode round1 = assertInputRequired(client.send(call), call);
        assertFalse(round1.has("taskId"), () -> "no task yet: " + round1);
        assertEquals(Set.of("traveller"), keys(round1.path("inputRequests")));

        String state = round1.path("requestState").asText();
        ObjectNode answer = accept("traveller", object("{\"name\":\"Ann\"}"));
        ObjectNode retry = client.retry(call, state, answer);
        String taskId =
                assertCreateTaskResult(client.send(retry), retry).path("taskId").asText();
        JsonNode done = awaitTerminal(taskId);
        assertEquals("completed", done.path("status").asText());
        assertEquals(
                "Booked Lisbon for Ann (task)",
                done.path("result").path("content").path(0).path("text").asText());

        ObjectNode again = client.retry(call, state, answer);
        Reply repeated = client.send(again);
        SpecSchema.assertValid("JSONRPCResultResponse", repeated.json());
        assertEquals(taskId, repeated.result().path("taskId").asText(), "a repeated retry gets the same task");
    }

    // --- notifications/tasks --------------------------------------------------------------

    @Test
    void taskNotificationsReachOnlyTheCreatorsListenStreamThatAskedForTheTask() {
        String taskId = createTask("approve_order", args("order", "9"));
        awaitStatus(taskId, "input_required");
        try (Listening alice = Listening.open(taskId, "alice");
                Listening bob = Listening.open(taskId, "bob")) {
            ObjectNode answers = accept("approver", object("{\"name\":\"Ann\"}"));
            answers.setAll(accept("ship", object("{\"ok\":false}")));
            assertAck(update(taskId, answers));

            JsonNode completed = alice.nextTask(taskId, "completed");
            assertEquals(
                    "Order 9 held, approved by Ann",
                    completed
                            .path("result")
                            .path("content")
                            .path(0)
                            .path("text")
                            .asText());
            bob.assertNothingBeforeSync();
        }
    }

    @Test
    void listenForTaskIdsWithoutTheExtensionIsRefused() {
        ObjectNode params = Json.object();
        params.putObject("notifications").putArray("taskIds").add("any-task");
        ObjectNode listen = client.request("subscriptions/listen", params, WITHOUT_TASKS);
        JsonNode error = assertError(client.send(listen), 400, -32021, listen);
        assertTrue(
                error.path("data")
                        .path("requiredCapabilities")
                        .path("extensions")
                        .path(EXTENSION)
                        .isObject(),
                () -> "names the extension: " + error);
    }

    // --- ttl ------------------------------------------------------------------------------

    @Test
    void taskThatOutlivesItsTtlEndsFailed(@TempDir Path shortLived) throws InterruptedException {
        TaskTools expiring = new TaskTools();
        try (McpHttpServer ttlServer = TaskTools.start(expiring, shortLived, "parley.tasks.ttl = 1s")) {
            McpTestClient ttlClient = new McpTestClient(ttlServer.port());
            ObjectNode call = ttlClient.toolCall("watch_feed", args("feed", "expiring"), WITH_TASKS);
            JsonNode created = assertCreateTaskResult(ttlClient.send(call), call);
            assertEquals(1000, created.path("ttlMs").asLong());

            JsonNode done = awaitTerminal(ttlClient, created.path("taskId").asText());
            assertEquals("failed", done.path("status").asText(), () -> "expired: " + done);
            assertTrue(done.path("statusMessage").isTextual(), () -> "says why: " + done);
            assertTrue(expiring.stopped("expiring").await(SETTLE.toSeconds(), TimeUnit.SECONDS), "the run stopped");
        }
    }

    // --- memory ---------------------------------------------------------------------------

    @Test
    void anEndedTaskLeavesMemoryOnceItsOwnerReadItsEndAndTasksGetReadsItFromTheJournal(@TempDir Path dir)
            throws Exception {
        try (McpHttpServer server = TaskTools.start(new TaskTools(), dir, "parley.tasks.ended-idle-timeout = 1h")) {
            McpTestClient on = new McpTestClient(server.port());
            ObjectNode call = on.toolCall("check_stock", args("order", "A-1"), WITH_TASKS);
            String taskId =
                    assertCreateTaskResult(on.send(call), call).path("taskId").asText();
            JsonNode ended = awaitTerminal(on, taskId);

            MeterRegistry metrics = ParleyMetrics.get(server.node().system()).registry();
            awaitPassivations(metrics, 1);
            assertEquals(1, passivations(metrics), "the ended task left memory long before its idle timeout");
            assertEquals(ended, get(on, taskId), "read again from the journal, the same task");
        }
    }

    @Test
    void anEndedTaskNobodyReadsLeavesMemoryAfterTheEndedIdleTimeout(@TempDir Path dir) throws Exception {
        try (McpHttpServer server = TaskTools.start(new TaskTools(), dir, "parley.tasks.ended-idle-timeout = 200ms")) {
            McpTestClient on = new McpTestClient(server.port());
            ObjectNode call = on.toolCall("check_stock", args("order", "A-1"), WITH_TASKS);
            String taskId =
                    assertCreateTaskResult(on.send(call), call).path("taskId").asText();

            MeterRegistry metrics = ParleyMetrics.get(server.node().system()).registry();
            awaitPassivations(metrics, 1); // no tasks/get: only the timeout can passivate it
            assertEquals(1, endedTasks(metrics), "it ended before it left memory");
            JsonNode ended = get(on, taskId);
            assertEquals("completed", ended.path("status").asText(), () -> "from the journal: " + ended);
            assertTrue(ended.path("result").isObject(), () -> "with its result: " + ended);
        }
    }

    private static void awaitPassivations(MeterRegistry metrics, int count) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (passivations(metrics) < count && System.nanoTime() < deadline) {
            sleep(Duration.ofMillis(50));
        }
    }

    private static long endedTasks(MeterRegistry metrics) {
        return metrics.find("parley.task.duration").timers().stream()
                .mapToLong(Timer::count)
                .sum();
    }

    private static double passivations(MeterRegistry metrics) {
        Counter counter =
                metrics.find("parley.entity.passivations").tag("type", "Task").counter();
        return counter == null ? 0 : counter.count();
    }

    // --- helpers: requests ----------------------------------------------------------------

    private static ObjectNode taskParams(String taskId) {
        return Json.object().put("taskId", taskId);
    }

    /** {@code tasks/get}, {@code tasks/update} (nothing answered) and {@code tasks/cancel} of {@code taskId}. */
    private static List<ObjectNode> taskRequests(String taskId, String capabilities) {
        ObjectNode update = taskParams(taskId);
        update.putObject("inputResponses");
        return List.of(
                client.request("tasks/get", taskParams(taskId), capabilities),
                client.request("tasks/update", update, capabilities),
                client.request("tasks/cancel", taskParams(taskId), capabilities));
    }

    private static String createTask(String tool, ObjectNode arguments) {
        ObjectNode call = client.toolCall(tool, arguments, WITH_TASKS);
        return assertCreateTaskResult(client.send(call), call).path("taskId").asText();
    }

    private static JsonNode get(String taskId) {
        return get(client, taskId);
    }

    private static JsonNode get(McpTestClient on, String taskId) {
        ObjectNode request = on.request("tasks/get", taskParams(taskId), WITH_TASKS);
        return assertDetailedTask(on.send(request), request, taskId);
    }

    private static Reply update(String taskId, ObjectNode inputResponses) {
        ObjectNode params = taskParams(taskId);
        params.set("inputResponses", inputResponses);
        ObjectNode request = client.request("tasks/update", params, WITH_TASKS);
        Reply reply = client.send(request);
        assertEquals(
                Json.write(request.get("id")),
                Json.write(reply.json().get("id")),
                "the response echoes the request id");
        return reply;
    }

    private static Reply cancel(String taskId) {
        return client.send(client.request("tasks/cancel", taskParams(taskId), WITH_TASKS));
    }

    private static JsonNode awaitTerminal(String taskId) {
        return awaitTerminal(client, taskId);
    }

    private static JsonNode awaitTerminal(McpTestClient on, String taskId) {
        return await(on, taskId, TERMINAL);
    }

    private static JsonNode awaitStatus(String taskId, String status) {
        return await(client, taskId, Set.of(status));
    }

    /** Polls {@code tasks/get} every 50 ms until the status is one of {@code statuses}; bounded by {@link #SETTLE}. */
    private static JsonNode await(McpTestClient on, String taskId, Set<String> statuses) {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            JsonNode task = get(on, taskId);
            if (statuses.contains(task.path("status").asText())) {
                return task;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "task " + taskId + " did not reach " + statuses + " within " + SETTLE + ": " + task);
            }
            sleep(Duration.ofMillis(50));
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Set<String> keys(JsonNode object) {
        Set<String> keys = new TreeSet<>();
        object.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    // --- helpers: shapes (the task types are not in the core schema) -----------------------

    /**
     * A flat {@code CreateTaskResult}: {@code resultType: "task"} and the task's members at the
     * top; no {@code task} wrapper, no result, error, input requests or requestState, no legacy keys.
     */
    private static JsonNode assertCreateTaskResult(Reply reply, ObjectNode request) {
        assertEquals(200, reply.status(), () -> "HTTP status; body: " + reply.body());
        SpecSchema.assertValid("JSONRPCResultResponse", reply.json());
        assertEquals(
                Json.write(request.get("id")),
                Json.write(reply.json().get("id")),
                "the response echoes the request id");
        JsonNode result = reply.result();
        assertEquals("task", result.path("resultType").asText(), () -> "a CreateTaskResult: " + result);
        assertTaskBasics(result);
        for (String absent :
                List.of("task", "result", "error", "inputRequests", "requestState", "ttl", "pollInterval")) {
            assertFalse(result.has(absent), () -> "no " + absent + " in " + result);
        }
        return result;
    }

    /** A {@code tasks/get} result: the {@code DetailedTask} of {@code taskId}, shaped by its status. */
    private static JsonNode assertDetailedTask(Reply reply, ObjectNode request, String taskId) {
        JsonNode task = assertResult(reply, request, "Result");
        assertEquals("complete", task.path("resultType").asText());
        assertEquals(taskId, task.path("taskId").asText());
        assertTaskBasics(task);
        assertFalse(task.has("requestState"), () -> "never a requestState: " + task);
        String status = task.path("status").asText();
        assertEquals(status.equals("completed"), task.has("result"), () -> "a result exactly when completed: " + task);
        assertEquals(status.equals("failed"), task.has("error"), () -> "an error exactly when failed: " + task);
        assertEquals(
                status.equals("input_required"),
                task.has("inputRequests"),
                () -> "input requests exactly when input_required: " + task);
        if (task.has("result")) {
            SpecSchema.assertValid("CallToolResult", task.get("result"));
            assertFalse(
                    task.get("result").path("_meta").has("io.modelcontextprotocol/related-task"),
                    () -> "no related-task key on the inlined result: " + task);
        }
        if (task.has("error")) {
            SpecSchema.assertValid("Error", task.get("error"));
        }
        if (task.has("inputRequests")) {
            SpecSchema.assertValid("InputRequests", task.get("inputRequests"));
            assertFalse(task.get("inputRequests").isEmpty(), () -> "at least one open request: " + task);
        }
        return task;
    }

    /** {@code taskId}, a known status, ISO 8601 times, integer milliseconds. */
    private static void assertTaskBasics(JsonNode task) {
        assertTrue(
                task.path("taskId").isTextual() && !task.path("taskId").asText().isEmpty(), () -> "a taskId: " + task);
        assertTrue(STATUSES.contains(task.path("status").asText()), () -> "a task status: " + task);
        Instant created = Instant.parse(task.path("createdAt").asText());
        Instant updated = Instant.parse(task.path("lastUpdatedAt").asText());
        assertFalse(updated.isBefore(created), () -> "updated after created: " + task);
        assertTrue(task.path("ttlMs").isIntegralNumber() && task.path("ttlMs").asLong() > 0, () -> "ttlMs: " + task);
        assertTrue(
                task.path("pollIntervalMs").isIntegralNumber()
                        && task.path("pollIntervalMs").asLong() > 0,
                () -> "pollIntervalMs: " + task);
    }

    /** The bare ack of {@code tasks/update} and {@code tasks/cancel}. */
    private static void assertAck(Reply reply) {
        assertEquals(200, reply.status(), () -> "HTTP status; body: " + reply.body());
        SpecSchema.assertValidResultResponse("EmptyResult", reply.json());
        assertEquals(ACK, reply.result(), "nothing but resultType");
    }

    // --- helpers: listen streams ----------------------------------------------------------

    /**
     * A listen stream of {@code principal} asking for one task's notifications, plus a resource
     * of its own it syncs on: a test waits until changes reach the stream before it acts.
     */
    private record Listening(ObjectNode request, SseConnection stream, String syncUri) implements AutoCloseable {
        static Listening open(String taskId, String principal) {
            String syncUri = "test://sync/" + principal + "/" + taskId;
            ObjectNode params = Json.object();
            ObjectNode filter = params.putObject("notifications");
            filter.putArray("taskIds").add(taskId);
            filter.putArray("resourceSubscriptions").add(syncUri);
            ObjectNode request = client.request("subscriptions/listen", params, WITH_TASKS);
            Map<String, String> headers = McpTestClient.standardHeaders(request);
            headers.put(TestTools.USER_HEADER, principal);
            Listening listening = new Listening(request, SseConnection.open(server.port(), request, headers), syncUri);
            try {
                assertEventStream(listening.stream());
                JsonNode ack = assertTagged(
                        listening.stream().nextMessage(), "notifications/subscriptions/acknowledged", request);
                assertEquals(filter, ack.path("notifications"), "the task ids and the resource are honoured");
                listening.awaitSync();
                return listening;
            } catch (RuntimeException | Error e) {
                listening.close();
                throw e;
            }
        }

        /** Announces the sync resource until the stream gets it (bounded); nothing else may come first. */
        void awaitSync() {
            long deadline = System.nanoTime() + SETTLE.toNanos();
            while (true) {
                server.node().pipeline().server().resourceUpdated(syncUri);
                JsonNode message = stream.pollMessage(Duration.ofMillis(250));
                if (message != null) {
                    assertTagged(message, "notifications/resources/updated", request);
                    assertEquals(
                            syncUri,
                            message.path("params").path("uri").asText(),
                            () -> "only the sync update: " + message);
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the listen stream did not receive its sync update within " + SETTLE);
                }
            }
        }

        /** Reads task notifications until {@code status}; each is a tagged {@code DetailedTask} of {@code taskId}. */
        JsonNode nextTask(String taskId, String status) {
            List<String> seen = new ArrayList<>();
            while (true) {
                JsonNode message = stream.nextMessage(SETTLE);
                SpecSchema.assertValid("JSONRPCNotification", message);
                assertEquals(
                        "notifications/tasks",
                        message.path("method").asText(),
                        () -> "a task notification: " + message);
                JsonNode task = message.path("params");
                assertEquals(
                        Json.write(request.get("id")),
                        Json.write(task.path("_meta").get(SUBSCRIPTION_ID)),
                        () -> "tagged with the listen id: " + message);
                assertEquals(taskId, task.path("taskId").asText());
                assertTrue(STATUSES.contains(task.path("status").asText()), () -> "a status: " + message);
                assertFalse(task.has("resultType") || task.has("requestState"), () -> "a DetailedTask: " + message);
                seen.add(task.path("status").asText());
                if (task.path("status").asText().equals(status)) {
                    return task;
                }
                assertFalse(TERMINAL.contains(task.path("status").asText()), () -> "ended otherwise: " + seen);
            }
        }

        /** No task notification came: the next message is the sync update (one hub, one order). */
        void assertNothingBeforeSync() {
            server.node().pipeline().server().resourceUpdated(syncUri);
            JsonNode message = stream.nextMessage(SETTLE);
            assertNotEquals(
                    "notifications/tasks", message.path("method").asText(), () -> "not for this stream: " + message);
            assertEquals(syncUri, message.path("params").path("uri").asText(), () -> "the sync update: " + message);
        }

        @Override
        public void close() {
            stream.close();
        }
    }
}
