package dev.parley.examples.cluster;

import static dev.parley.examples.cluster.ClusterClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.examples.cluster.ClusterClient.Reply;
import dev.parley.examples.cluster.Effects.Line;
import dev.parley.runtime.Json;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Three Parley nodes in three JVMs on loopback, one embedded PostgreSQL journal (DESIGN.md §7):
 * any node answers any retry and any {@code tasks/*} request; a listen stream on one node
 * receives notifications raised on another; after SIGKILL of a node that holds waiting calls and
 * working tasks, retries complete on the survivors and the tasks go on by themselves elsewhere,
 * without repeating a journaled step; the killed node comes back, and another one is stopped
 * with SIGTERM as in a rolling restart, with the same outcome. The tests run in order: the last
 * two stop nodes. Each prints what it measured ({@code [cluster-it]} lines).
 *
 * <p>Every wait is bounded ({@link #WAIT}); {@code @AfterAll} kills whatever still runs, and a
 * node halts by itself when this JVM goes away (see {@link ClusterTestNode}). Node logs and the
 * shared effects file are kept in {@code target/cluster-it/<run>/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIT {
    /** The bound of every wait. */
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** The bound of a node JVM's start: seconds on a quiet machine, minutes on a loaded one. */
    private static final Duration STARTUP = Duration.ofSeconds(240);

    private static final String STEP_RECORDED = "parley.task.step-recorded.v1";

    private EmbeddedPostgres postgres;
    private String jdbcUrl;
    private Path run;
    private Effects effects;
    private final List<NodeProcess> nodes = new ArrayList<>();
    private Map<String, String> environment;
    private List<Integer> seeds;
    private final ClusterClient client = new ClusterClient();

    // --- the cluster ----------------------------------------------------------------------

    @BeforeAll
    void startCluster() throws Exception {
        long started = System.nanoTime();
        run = Path.of(
                        "target",
                        "cluster-it",
                        LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")))
                .toAbsolutePath();
        Files.createDirectories(run);
        Path effectsFile = run.resolve("effects.log");
        effects = new Effects(effectsFile);

        postgres = EmbeddedPostgres.start();
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE parley");
        }
        jdbcUrl = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/parley";
        // No migration first: the three nodes create the schema as they start together.

        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        environment = Map.of(
                "PG_URL",
                jdbcUrl,
                "PG_USER",
                "postgres",
                "PG_PASSWORD",
                "postgres",
                "PARLEY_STATE_KEY_ID",
                "cluster-it",
                "PARLEY_STATE_KEY",
                Base64.getEncoder().encodeToString(secret));
        int[] http = freePorts(3);
        int[] artery = freePorts(3);
        seeds = List.of(artery[0], artery[1]);
        for (int i = 0; i < 3; i++) {
            nodes.add(NodeProcess.start("n" + (i + 1), http[i], artery[i], seeds, effectsFile, run, environment));
        }
        for (NodeProcess node : nodes) {
            if (!node.awaitReady(STARTUP)) {
                fail("node " + node + " was not ready within " + STARTUP.toSeconds() + " s:\n" + node.logTail(60));
            }
        }
        awaitMembers(3);
        log(
                "[cluster] 3 nodes up in %d ms: %s (PostgreSQL %s; logs in %s)",
                (System.nanoTime() - started) / 1_000_000, nodes, jdbcUrl, run);
    }

    /** Every node sees {@code count} members Up. */
    private void awaitMembers(int count) {
        for (NodeProcess node : nodes) {
            await(count + " members Up as seen by " + node.name, () -> {
                try {
                    return client.send(
                                    node.httpPort,
                                    client.toolCall("cluster_status", Json.object()),
                                    Duration.ofSeconds(10))
                            .text()
                            .endsWith(" up=" + count);
                } catch (ClusterClient.NodeUnavailable e) {
                    return false;
                }
            });
        }
    }

    @AfterAll
    void stopCluster() throws IOException {
        for (NodeProcess node : nodes) {
            if (node.isAlive()) {
                node.kill();
            }
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }

    private NodeProcess node(String name) {
        return nodes.stream().filter(node -> node.name.equals(name)).findFirst().orElseThrow();
    }

    // --- any node answers any retry ------------------------------------------------------

    @Test
    @Order(1)
    @Timeout(120)
    void anyNodeAnswersAnyRetryWithTheSameAnswer() {
        NodeProcess a = nodes.get(0);
        NodeProcess b = nodes.get(1);
        NodeProcess c = nodes.get(2);
        ObjectNode call = client.toolCall("two_step", Json.object().put("id", "retry-1"));

        Reply first = client.send(a.httpPort, call);
        assertEquals("input_required", first.resultType(), first::toString);
        assertTrue(first.result().path("inputRequests").has("first"), first::toString);

        ObjectNode answerFirst = client.retry(call, first.requestState(), accept("first", "value", "alpha"));
        Reply secondOnB = client.send(b.httpPort, answerFirst);
        assertEquals("input_required", secondOnB.resultType(), secondOnB::toString);
        assertTrue(secondOnB.result().path("inputRequests").has("second"), secondOnB::toString);
        Reply secondOnC =
                client.send(c.httpPort, client.retry(call, first.requestState(), accept("first", "value", "alpha")));
        assertEquals(
                secondOnB.result().path("inputRequests"),
                secondOnC.result().path("inputRequests"),
                "the repeated round-1 retry on another node gets the same questions");

        Reply doneOnC = client.send(
                c.httpPort, client.retry(call, secondOnB.requestState(), accept("second", "value", "beta")));
        assertEquals("complete", doneOnC.resultType(), doneOnC::toString);
        assertTrue(doneOnC.text().startsWith("call retry-1: alpha+beta"), doneOnC::toString);
        for (NodeProcess node : nodes) {
            Reply again = client.send(
                    node.httpPort, client.retry(call, secondOnC.requestState(), accept("second", "value", "beta")));
            assertEquals(doneOnC.result(), again.result(), "the retry on " + node.name + " gets the recorded result");
        }
        assertEquals(
                1, effects.of("call-where", "retry-1").size(), () -> "round 2 ran its step once: " + effects.lines());
        List<Line> effect = effects.of("call-effect", "retry-1");
        assertEquals(1, effect.size(), () -> "the effect happened once: " + effects.lines());
        assertEquals("alpha beta", effect.get(0).detail());
        log(
                "[retry] round 1 on %s, round 2 on %s and %s, result on every node: %s",
                a.name, b.name, c.name, doneOnC.text());
    }

    // --- tasks through another node ------------------------------------------------------

    @Test
    @Order(2)
    @Timeout(120)
    void taskCreatedOnOneNodeIsPolledUpdatedAndCancelledThroughAnother() {
        NodeProcess a = nodes.get(0);

        // A task with an input round: created on A, polled and answered through B, a node that
        // neither created it nor runs it.
        Reply created = client.send(
                a.httpPort, client.toolCall("ask_task", Json.object().put("id", "ask-1")));
        assertEquals("task", created.resultType(), created::toString);
        String asking = created.taskId();
        await("ask-1 running", () -> effects.first("ask-before", "ask-1").isPresent());
        NodeProcess askHost =
                node(effects.first("ask-before", "ask-1").orElseThrow().node());
        NodeProcess b = through(a, askHost);
        Reply waiting = pollTask(b, asking, "input_required");
        assertTrue(waiting.result().path("inputRequests").has("confirm"), waiting::toString);
        Reply updated = client.send(b.httpPort, client.taskUpdate(asking, accept("confirm", "go", true)));
        assertEquals("complete", updated.resultType(), updated::toString);
        Reply completed = pollTask(b, asking, "completed");
        String text = completed
                .result()
                .path("result")
                .path("content")
                .path(0)
                .path("text")
                .asText();
        assertTrue(text.startsWith("task ask-1: go=true"), completed::toString);
        for (NodeProcess node : nodes) {
            assertEquals(
                    completed.result().path("result"),
                    client.send(node.httpPort, client.task("tasks/get", asking))
                            .result()
                            .path("result"),
                    node.name);
        }
        assertEquals(
                1,
                effects.of("ask-before", "ask-1").size(),
                () -> effects.lines().toString());
        assertEquals(
                List.of("true"),
                effects.of("ask-after", "ask-1").stream().map(Line::detail).toList());

        // A long task: created on A, seen working and cancelled through another node; it stops.
        Reply longTask = client.send(
                a.httpPort,
                client.toolCall(
                        "work",
                        Json.object().put("id", "cancel-1").put("steps", 100).put("stepMillis", 200)));
        assertEquals("task", longTask.resultType(), longTask::toString);
        String working = longTask.taskId();
        await(
                "a first step of cancel-1",
                () -> !effects.of("task-step", "cancel-1").isEmpty());
        NodeProcess workHost =
                node(effects.first("task-run", "cancel-1").orElseThrow().node());
        NodeProcess c = through(a, workHost);
        assertEquals(
                "working",
                client.send(c.httpPort, client.task("tasks/get", working)).status());
        Reply cancel = client.send(c.httpPort, client.task("tasks/cancel", working));
        assertEquals("complete", cancel.resultType(), cancel::toString);
        for (NodeProcess node : nodes) {
            assertEquals(
                    "cancelled",
                    client.send(node.httpPort, client.task("tasks/get", working))
                            .status(),
                    node.name);
        }
        sleep(Duration.ofMillis(700));
        int stepsAfterCancel = effects.of("task-step", "cancel-1").size();
        sleep(Duration.ofMillis(1000));
        assertEquals(
                stepsAfterCancel, effects.of("task-step", "cancel-1").size(), "the cancelled task stopped working");
        assertTrue(stepsAfterCancel < 100);
        log(
                "[tasks] ask-1 created on %s, running on %s, polled, answered and completed through %s; cancel-1 created on "
                        + "%s, running on %s, cancelled through %s after %d steps",
                a.name, askHost.name, b.name, a.name, workHost.name, c.name, stepsAfterCancel);
    }

    /** A node other than the one that created a task and the one that runs it (or at least not the latter). */
    private NodeProcess through(NodeProcess creator, NodeProcess host) {
        return nodes.stream()
                .filter(node -> node != creator && node != host)
                .findFirst()
                .orElseGet(() ->
                        nodes.stream().filter(node -> node != host).findFirst().orElseThrow());
    }

    private Reply pollTask(NodeProcess node, String taskId, String status) {
        Reply[] last = new Reply[1];
        await("task " + taskId + " " + status + " seen through " + node.name, () -> {
            last[0] = client.send(node.httpPort, client.task("tasks/get", taskId));
            return status.equals(last[0].status());
        });
        return last[0];
    }

    // --- notifications across nodes ------------------------------------------------------

    @Test
    @Order(3)
    @Timeout(120)
    void listenStreamOnOneNodeReceivesNotificationsRaisedOnAnother() throws Exception {
        Reply created = client.send(
                nodes.get(0).httpPort,
                client.toolCall(
                        "work",
                        Json.object().put("id", "notify-1").put("steps", 6).put("stepMillis", 500)));
        String taskId = created.taskId();
        assertNotNull(taskId, created::toString);
        await("notify-1 running", () -> effects.first("task-run", "notify-1").isPresent());
        NodeProcess runner =
                node(effects.first("task-run", "notify-1").orElseThrow().node());
        NodeProcess listening =
                nodes.stream().filter(node -> node != runner).findFirst().orElseThrow();

        ObjectNode filter = Json.object().put("toolsListChanged", true);
        filter.putArray("taskIds").add(taskId);
        try (ClusterClient.Listener listener = client.listen(listening.httpPort, filter)) {
            JsonNode ack = listener.next("notifications/subscriptions/acknowledged", Duration.ofSeconds(10));
            assertNotNull(ack, "acknowledged");

            // A tool added at runtime on the task's node: list_changed reaches the other node's stream.
            Reply added = client.send(
                    runner.httpPort, client.toolCall("add_tool", Json.object().put("name", "added_on_" + runner.name)));
            assertEquals("added added_on_" + runner.name + " on " + runner.name, added.text(), added::toString);
            JsonNode listChanged = listener.next("notifications/tools/list_changed", Duration.ofSeconds(20));
            assertNotNull(listChanged, "tools/list_changed raised on " + runner.name + " reached " + listening.name);

            JsonNode done = null;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (done == null && System.nanoTime() < deadline) {
                JsonNode notice = listener.next("notifications/tasks", Duration.ofNanos(deadline - System.nanoTime()));
                assertNotNull(notice, "notifications/tasks of " + taskId + " reached " + listening.name);
                assertEquals(taskId, notice.path("params").path("taskId").asText(), notice::toString);
                if ("completed".equals(notice.path("params").path("status").asText())) {
                    done = notice;
                }
            }
            assertNotNull(done, "the completed task was announced");
            assertEquals(
                    "task notify-1: 6 steps, sum 21",
                    done.path("params")
                            .path("result")
                            .path("content")
                            .path(0)
                            .path("text")
                            .asText(),
                    done::toString);
            log(
                    "[notify] listen stream on %s got tools/list_changed raised on %s and notifications/tasks (completed) of a "
                            + "task running on %s",
                    listening.name, runner.name, runner.name);
        }
    }

    // --- a 2025-11-25 session on three nodes -----------------------------------------------

    @Test
    @Order(4)
    @Timeout(120)
    void aLegacySessionIsServedByEveryNodeAndItsQuestionsAreAnsweredAnywhere() throws Exception {
        NodeProcess a = nodes.get(0);
        NodeProcess b = nodes.get(1);
        NodeProcess c = nodes.get(2);
        String session = client.initialize(a.httpPort);
        assertEquals(
                202,
                client.postOnSession(
                                b.httpPort,
                                session,
                                Json.object().put("jsonrpc", "2.0").put("method", "notifications/initialized"))
                        .statusCode());

        ObjectNode call = Json.object().put("jsonrpc", "2.0").put("id", 7).put("method", "tools/call");
        call.set(
                "params",
                Json.object()
                        .put("name", "two_step")
                        .set("arguments", Json.object().put("id", "legacy-1")));
        try (ClusterClient.Listener stream = client.streamOnSession(b.httpPort, session, call)) {
            JsonNode first = stream.next("elicitation/create", WAIT);
            assertNotNull(first, "the first question arrives on B's stream");
            assertEquals(
                    202,
                    client.postOnSession(c.httpPort, session, answer(first, "alpha"))
                            .statusCode(),
                    "answered on C");
            JsonNode second = stream.next("elicitation/create", WAIT);
            assertNotNull(second, "the second round's question arrives on the same stream");
            assertEquals(
                    202,
                    client.postOnSession(a.httpPort, session, answer(second, "beta"))
                            .statusCode(),
                    "answered on A");
            JsonNode result = stream.nextResponse(WAIT);
            assertNotNull(result, "the result ends B's stream");
            assertEquals(7, result.path("id").asInt());
            assertTrue(
                    result.at("/result/content/0/text").asText().startsWith("call legacy-1: alpha+beta"),
                    result::toString);
        }
        assertEquals(
                1, effects.of("call-effect", "legacy-1").size(), () -> "the effect happened once: " + effects.lines());
        ObjectNode ping = Json.object().put("jsonrpc", "2.0").put("id", 8).put("method", "ping");
        for (NodeProcess node : nodes) {
            assertEquals(
                    "{}",
                    Json.parse(client.postOnSession(node.httpPort, session, ping)
                                    .body())
                            .path("result")
                            .toString(),
                    "the session is known on " + node.name);
        }
        // Every node now keeps a copy of the session; DELETE on one drops them all, well before a
        // copy's lifetime (parley.session-view-lifetime, 10 s) would.
        assertEquals(200, client.deleteSession(c.httpPort, session));
        for (NodeProcess node : nodes) {
            long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            int status;
            do {
                status = client.postOnSession(node.httpPort, session, ping).statusCode();
            } while (status != 404 && System.nanoTime() < deadline);
            assertEquals(404, status, "the deleted session is gone on " + node.name);
        }
        log("[legacy] initialize on %s, stream on %s, answers on %s and %s", a.name, b.name, c.name, a.name);
    }

    private static ObjectNode answer(JsonNode request, String value) {
        ObjectNode response = Json.object().put("jsonrpc", "2.0");
        response.set("id", request.path("id"));
        ObjectNode result = response.putObject("result").put("action", "accept");
        result.putObject("content").put("value", value);
        return response;
    }

    // --- failover (SIGKILL) and rolling restart (SIGTERM) ---------------------------------

    /** A call waiting in round 2, and where its entity lives. */
    private record WaitingCall(String id, ObjectNode original, String requestState, String node) {}

    /** A working task and where it runs. */
    private record WorkingTask(String id, String taskId, String node) {}

    private static final int TASK_STEPS = 10;
    private static final int STEP_MILLIS = 1000;

    @Test
    @Order(5)
    @Timeout(180)
    void killedNodesCallsAndTasksGoOnOnTheSurvivors() throws Exception {
        stopANodeThatHoldsCallsAndTasks("sigkill", false);
    }

    /**
     * The node killed above comes back (a new JVM on its ports) and joins; then another node is
     * stopped with SIGTERM, as in a rolling restart: it leaves the cluster and hands its entities
     * over; its calls and tasks go on elsewhere.
     */
    @Test
    @Order(6)
    @Timeout(180)
    void rollingRestartLosesNoCallAndNoTask() throws Exception {
        restartTheStoppedNode("rolling");
        stopANodeThatHoldsCallsAndTasks("rolling", true);
    }

    /** The node stopped last comes back (a new JVM on its ports) and the cluster has 3 members again. */
    private void restartTheStoppedNode(String label) throws Exception {
        NodeProcess dead = nodes.stream()
                .filter(node -> !node.isAlive())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no node was stopped"));
        long started = System.nanoTime();
        NodeProcess back = NodeProcess.start(
                "n" + (nodes.size() + 1), dead.httpPort, dead.arteryPort, seeds, effects.file(), run, environment);
        nodes.set(nodes.indexOf(dead), back);
        if (!back.awaitReady(STARTUP)) {
            fail("node " + back + " was not ready within " + STARTUP.toSeconds() + " s:\n" + back.logTail(60));
        }
        awaitMembers(3);
        log(
                "[%s] %s restarted as %s and the cluster has 3 members again after %d ms",
                label, dead.name, back.name, (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * A 2025-11-25 session over three nodes, and the node holding its call's stream SIGKILLed while
     * the call waits for an answer: initialize on A, the call's stream on B, the first answer on C;
     * B dies while round 2's question waits; the client resumes on C with the id of the last event it
     * is sure of (the first question's: round 2's question may have died with B), gets round 2's
     * question again from the call's journal, answers on A, and the result ends the resumed stream.
     * No step ran twice.
     */
    @Test
    @Order(7)
    @Timeout(240)
    void aLegacyStreamWhoseNodeWasKilledIsResumedOnAnotherNodeFromTheJournal() throws Exception {
        restartTheStoppedNode("resume");
        NodeProcess a = nodes.get(0);
        NodeProcess b = nodes.get(1);
        NodeProcess c = nodes.get(2);
        String session = client.initialize(a.httpPort);
        ObjectNode call = Json.object().put("jsonrpc", "2.0").put("id", 17).put("method", "tools/call");
        call.set(
                "params",
                Json.object()
                        .put("name", "two_step")
                        .set("arguments", Json.object().put("id", "resume-1")));
        String firstQuestionEventId;
        JsonNode second;
        try (ClusterClient.Listener stream = client.streamOnSession(b.httpPort, session, call)) {
            JsonNode first = stream.next("elicitation/create", WAIT);
            assertNotNull(first, "the first question arrives on B's stream");
            assertNotNull(stream.primingId(), "the stream starts with a priming event");
            firstQuestionEventId = stream.eventIdOf(first);
            assertNotNull(firstQuestionEventId, "every event carries an id");
            assertEquals(
                    202,
                    client.postOnSession(c.httpPort, session, answer(first, "alpha"))
                            .statusCode(),
                    "answered on C");
            second = stream.next("elicitation/create", WAIT);
            assertNotNull(second, "round 2's question arrives on B's stream");
            await(
                    "round 1 journaled its step",
                    () -> effects.of("call-where", "resume-1").size() == 1);
            long killedAt = System.currentTimeMillis();
            assertEquals(128 + 9, b.kill(), b.name + " exit code");
            log("[resume] %s (holding the stream) SIGKILLed while the call waits for round 2's answer", b.name);

            try (ClusterClient.Listener resumed = client.resume(c.httpPort, session, firstQuestionEventId)) {
                JsonNode again = resumed.next("elicitation/create", WAIT);
                assertNotNull(again, "the pending question comes again on C, from the journal");
                assertEquals(second.path("params"), again.path("params"));
                String key = second.path("id")
                        .asText()
                        .substring(0, second.path("id").asText().lastIndexOf('.'));
                assertTrue(again.path("id").asText().startsWith(key + "."), again::toString);
                assertEquals(
                        202,
                        client.postOnSession(a.httpPort, session, answer(again, "beta"))
                                .statusCode(),
                        "answered on A");
                JsonNode result = resumed.nextResponse(WAIT);
                assertNotNull(result, "the result ends the resumed stream");
                assertEquals(17, result.path("id").asInt(), result::toString);
                assertTrue(
                        result.at("/result/content/0/text").asText().startsWith("call resume-1: alpha+beta"),
                        result::toString);
                log(
                        "[resume] initialize on %s, stream on %s (killed), resumed on %s, answers on %s and %s; result %d ms after the kill",
                        a.name, b.name, c.name, c.name, a.name, System.currentTimeMillis() - killedAt);
            }
        }
        assertEquals(
                1, effects.of("call-where", "resume-1").size(), () -> "round 1's step ran once: " + effects.lines());
        assertEquals(
                1, effects.of("call-effect", "resume-1").size(), () -> "the effect happened once: " + effects.lines());
    }

    /**
     * Opens waiting calls and starts working tasks until a node holds both, stops it (SIGKILL, or
     * SIGTERM when {@code graceful}), then: retries of every call complete on the others; every
     * task finishes by itself (only the effects file is watched until then), the stopped node's
     * tasks resumed on another node; no journaled step ran twice.
     */
    private void stopANodeThatHoldsCallsAndTasks(String label, boolean graceful) throws Exception {
        List<WaitingCall> calls = new ArrayList<>();
        List<WorkingTask> tasks = new ArrayList<>();
        NodeProcess victim = null;
        List<WorkingTask> batchTasks = new ArrayList<>();
        for (int batch = 0; batch < 3 && victim == null; batch++) {
            for (int i = 0; i < 6; i++) {
                calls.add(waitingCall(label + "-call-" + batch + "-" + i, nodes.get(i % 3), nodes.get((i + 1) % 3)));
            }
            List<String[]> started = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String id = label + "-task-" + batch + "-" + i;
                Reply created = client.send(
                        nodes.get(i % 3).httpPort,
                        client.toolCall(
                                "work",
                                Json.object()
                                        .put("id", id)
                                        .put("steps", TASK_STEPS)
                                        .put("stepMillis", STEP_MILLIS)));
                assertEquals("task", created.resultType(), created::toString);
                started.add(new String[] {id, created.taskId()});
            }
            batchTasks = new ArrayList<>();
            for (String[] task : started) {
                await(
                        task[0] + " running",
                        () -> effects.first("task-run", task[0]).isPresent());
                batchTasks.add(new WorkingTask(
                        task[0],
                        task[1],
                        effects.first("task-run", task[0]).orElseThrow().node()));
            }
            tasks.addAll(batchTasks);
            List<WorkingTask> fresh = batchTasks; // an earlier batch's tasks may be about done
            victim = nodes.stream()
                    .filter(node -> calls.stream().anyMatch(call -> call.node().equals(node.name))
                            && fresh.stream().anyMatch(task -> task.node().equals(node.name)))
                    .max((x, y) -> Integer.compare(hosted(x, calls, tasks), hosted(y, calls, tasks)))
                    .orElse(null);
        }
        assertNotNull(victim, "no node hosts both a waiting call and a working task: " + calls + " " + tasks);
        NodeProcess stopped = victim;
        List<WaitingCall> victimCalls =
                calls.stream().filter(call -> call.node().equals(stopped.name)).toList();
        List<WorkingTask> onVictim =
                tasks.stream().filter(task -> task.node().equals(stopped.name)).toList();
        List<WorkingTask> freshOnVictim = batchTasks.stream()
                .filter(task -> task.node().equals(stopped.name))
                .toList();
        List<NodeProcess> survivors =
                nodes.stream().filter(node -> node != stopped).toList();

        // Stop while the victim's new tasks have journaled some steps and have more to do, preferably
        // in the middle of a step's work (not between its effect and its journal write).
        await(
                "every new task on " + stopped.name + " has journaled 2 steps",
                () -> freshOnVictim.stream()
                        .allMatch(task -> effects.of("task-step", task.id()).size() >= 2));
        long quietUntil = System.currentTimeMillis() + 2 * STEP_MILLIS;
        while (System.currentTimeMillis() < quietUntil && !quiet(onVictim)) {
            sleep(Duration.ofMillis(10));
        }
        long stoppedAt = System.currentTimeMillis();
        int exit = graceful ? stopped.terminate() : stopped.kill();
        long exitedAfter = System.currentTimeMillis() - stoppedAt;
        assertEquals(graceful ? 128 + 15 : 128 + 9, exit, stopped.name + " exit code");
        Map<String, Integer> journaledAtStop = new LinkedHashMap<>();
        Map<String, Integer> doneAtStop = new LinkedHashMap<>();
        for (WorkingTask task : onVictim) {
            journaledAtStop.put(task.id(), journaledSteps(task.taskId()));
            doneAtStop.put(task.id(), effects.of("task-step", task.id()).size());
        }
        // The tasks that were working when their node stopped: they must go on elsewhere.
        List<WorkingTask> victimTasks = onVictim.stream()
                .filter(task -> journaledAtStop.get(task.id()) < TASK_STEPS)
                .toList();
        for (WorkingTask task : freshOnVictim) {
            assertTrue(victimTasks.contains(task), task.id() + " was still working when its node stopped");
        }
        log(
                "[%s] %s %s (pid %d, exited after %d ms): it held %d waiting calls %s and %d working tasks %s; steps "
                        + "journaled when it stopped %s",
                label,
                graceful ? "SIGTERM" : "SIGKILL",
                stopped.name,
                stopped.pid(),
                exitedAfter,
                victimCalls.size(),
                victimCalls.stream().map(WaitingCall::id).toList(),
                victimTasks.size(),
                victimTasks.stream().map(WorkingTask::id).toList(),
                journaledAtStop);

        // Retries of every waiting call, on the other nodes, until they complete (a real client
        // retries a request that timed out or failed).
        ExecutorService retries = Executors.newFixedThreadPool(Math.max(1, calls.size()));
        Map<String, CompletableFuture<Long>> retried = new LinkedHashMap<>();
        try {
            for (int i = 0; i < calls.size(); i++) {
                WaitingCall call = calls.get(i);
                int offset = i;
                retried.put(
                        call.id(),
                        CompletableFuture.supplyAsync(
                                () -> retryUntilComplete(call, survivors, offset, stoppedAt), retries));
            }
            // The tasks go on by themselves: only the effects file is watched, nobody polls them.
            await(
                    "every task did all its steps",
                    () -> tasks.stream()
                            .allMatch(task -> effects.of("task-step", task.id()).stream()
                                            .map(Line::detail)
                                            .distinct()
                                            .count()
                                    == TASK_STEPS));
            long stepsDoneAt = System.currentTimeMillis();
            Map<String, Long> callMillis = new LinkedHashMap<>();
            for (Map.Entry<String, CompletableFuture<Long>> entry : retried.entrySet()) {
                callMillis.put(entry.getKey(), entry.getValue().get());
            }

            // --- the calls: completed on another node, every effect once --------------------------
            for (WaitingCall call : calls) {
                List<Line> where = effects.of("call-where", call.id());
                assertEquals(1, where.size(), () -> call.id() + " ran round 2's step once: " + where);
                assertEquals(call.node(), where.get(0).node());
                List<Line> effect = effects.of("call-effect", call.id());
                assertEquals(1, effect.size(), () -> call.id() + " did its effect once: " + effect);
                assertEquals(
                        "one-" + call.id() + " two-" + call.id(), effect.get(0).detail());
                assertNotEquals(stopped.name, effect.get(0).node(), "the effect ran on a node still up");
            }

            // --- the tasks: resumed elsewhere, no journaled step repeated -------------------------
            Map<String, Long> resumeMillis = new LinkedHashMap<>();
            for (WorkingTask task : tasks) {
                List<Line> steps = effects.of("task-step", task.id());
                Map<String, List<Line>> byStep = steps.stream().collect(Collectors.groupingBy(Line::detail));
                boolean moved = victimTasks.contains(task);
                int journaled = journaledAtStop.getOrDefault(task.id(), TASK_STEPS);
                for (int step = 1; step <= TASK_STEPS; step++) {
                    List<Line> runs = byStep.getOrDefault(String.valueOf(step), List.of());
                    // Only the step in flight at the stop (its effect done, its journal write not) may run again.
                    int allowed = moved && step == journaled + 1 && doneAtStop.get(task.id()) > journaled ? 2 : 1;
                    int number = step;
                    assertTrue(
                            runs.size() >= 1 && runs.size() <= allowed,
                            () -> task.id() + " step " + number + " ran " + runs.size()
                                    + " times (journaled at the stop: " + journaled + "): " + steps);
                }
                if (moved) {
                    Line resumed = effects.of("task-run", task.id()).stream()
                            .filter(line -> line.at() >= stoppedAt)
                            .findFirst()
                            .orElseThrow(() -> new AssertionError(task.id() + " never resumed"));
                    assertNotEquals(stopped.name, resumed.node(), task.id() + " resumed on another node");
                    resumeMillis.put(task.id() + "@" + resumed.node(), resumed.at() - stoppedAt);
                    for (Line line : steps) {
                        if (Integer.parseInt(line.detail()) > journaled + 1) {
                            assertEquals(
                                    resumed.node(),
                                    line.node(),
                                    () -> "steps after the stop ran where it resumed: " + steps);
                        }
                    }
                } else if (!task.node().equals(stopped.name)) {
                    assertEquals(1, effects.of("task-run", task.id()).size(), task.id() + " kept running where it was");
                }
            }
            // Now that the steps are done, the tasks are completed, seen through every node still up.
            for (WorkingTask task : tasks) {
                for (NodeProcess survivor : survivors) {
                    Reply done = pollTask(survivor, task.taskId(), "completed");
                    assertEquals(
                            "task " + task.id() + ": " + TASK_STEPS + " steps, sum "
                                    + (TASK_STEPS * (TASK_STEPS + 1) / 2),
                            done.result()
                                    .path("result")
                                    .path("content")
                                    .path(0)
                                    .path("text")
                                    .asText(),
                            done::toString);
                }
            }
            Set<String> repeated = new HashSet<>();
            for (WorkingTask task : victimTasks) {
                if (effects.of("task-step", task.id()).size() > TASK_STEPS) {
                    repeated.add(task.id());
                }
            }
            log(
                    "[%s] retries of %s's calls completed on the other nodes after %s ms (all calls: %s)",
                    label,
                    stopped.name,
                    victimCalls.stream().map(call -> callMillis.get(call.id())).toList(),
                    callMillis.values());
            log(
                    "[%s] %s's tasks resumed by themselves after %s ms (from the signal to the resumed run); all steps done "
                            + "%d ms after it; in-flight step repeated (not journaled at the stop): %s",
                    label, stopped.name, resumeMillis, stepsDoneAt - stoppedAt, repeated.isEmpty() ? "none" : repeated);
        } finally {
            retries.shutdownNow();
        }
    }

    private static int hosted(NodeProcess node, List<WaitingCall> calls, List<WorkingTask> tasks) {
        return (int) (calls.stream()
                        .filter(call -> call.node().equals(node.name))
                        .count()
                + tasks.stream().filter(task -> task.node().equals(node.name)).count());
    }

    /** Round 1 on {@code first}, answered on {@code second}: the call now waits in round 2. */
    private WaitingCall waitingCall(String id, NodeProcess first, NodeProcess second) {
        ObjectNode call = client.toolCall("two_step", Json.object().put("id", id));
        Reply asked = client.send(first.httpPort, call);
        assertEquals("input_required", asked.resultType(), asked::toString);
        Reply askedAgain = client.send(
                second.httpPort, client.retry(call, asked.requestState(), accept("first", "value", "one-" + id)));
        assertEquals("input_required", askedAgain.resultType(), askedAgain::toString);
        Line where =
                effects.first("call-where", id).orElseThrow(() -> new AssertionError("no call-where line for " + id));
        return new WaitingCall(id, call, askedAgain.requestState(), where.node());
    }

    /** Retries round 2 of {@code call} on the survivors in turn; returns the ms from the stop to the answer. */
    private long retryUntilComplete(WaitingCall call, List<NodeProcess> survivors, int offset, long killedAt) {
        long deadline = killedAt + WAIT.toMillis();
        int attempt = offset;
        String last = "nothing";
        while (System.currentTimeMillis() < deadline) {
            NodeProcess node = survivors.get(attempt++ % survivors.size());
            try {
                Reply reply = client.send(
                        node.httpPort,
                        client.retry(
                                call.original(), call.requestState(), accept("second", "value", "two-" + call.id())),
                        Duration.ofSeconds(5));
                if ("complete".equals(reply.resultType())) {
                    assertTrue(
                            reply.text().startsWith("call " + call.id() + ": one-" + call.id() + "+two-" + call.id()),
                            reply::toString);
                    return System.currentTimeMillis() - killedAt;
                }
                last = reply.toString();
            } catch (ClusterClient.NodeUnavailable e) {
                last = e.getMessage();
            }
            sleep(Duration.ofMillis(250));
        }
        throw new AssertionError(
                "retry of " + call.id() + " did not complete within " + WAIT.toSeconds() + " s; last: " + last);
    }

    /**
     * The last step effect of every unfinished task on the victim is 100..650 ms old: it is journaled
     * and the next one is far off.
     */
    private boolean quiet(List<WorkingTask> onVictim) {
        long now = System.currentTimeMillis();
        for (WorkingTask task : onVictim) {
            List<Line> steps = effects.of("task-step", task.id());
            if (steps.size() >= TASK_STEPS) {
                continue;
            }
            if (steps.isEmpty()) {
                return false;
            }
            long age = now - steps.get(steps.size() - 1).at();
            if (age < 100 || age > STEP_MILLIS * 65L / 100) {
                return false;
            }
        }
        return true;
    }

    /** How many steps of task {@code taskId} the journal holds. */
    private int journaledSteps(String taskId) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                PreparedStatement query = connection.prepareStatement(
                        "SELECT count(*) FROM event_journal WHERE persistence_id = ? AND event_ser_manifest = ?")) {
            query.setString(1, "Task|" + taskId);
            query.setString(2, STEP_RECORDED);
            try (ResultSet result = query.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        }
    }

    // --- helpers --------------------------------------------------------------------------

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + WAIT.toSeconds() + " s waiting for " + what);
            }
            sleep(Duration.ofMillis(100));
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

    private static void log(String format, Object... args) {
        System.out.printf("[cluster-it] " + format + "%n", args);
    }
}
