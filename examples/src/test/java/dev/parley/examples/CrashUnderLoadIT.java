package dev.parley.examples;

import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo jar SIGKILLed again and again under MRTR and task load: after each restart every
 * flow the server had acknowledged (a requestState or a taskId the client holds) completes, and
 * the ledger holds every effect once. A kill lands at a random moment, so some steps die after
 * their action and before their result is journaled: they run again with the same idempotency
 * key, and the ledger keeps one entry per key. {@code -Dparley.crash.kills=N} (default 3) sets
 * how many kills; runs in the {@code integration-test} phase, after the shaded jar is built.
 */
class CrashUnderLoadIT {
    private static final int KILLS = Integer.getInteger("parley.crash.kills", 3);
    private static final int CLIENTS = 12;
    private static final long FINISH_LIMIT_MS = 120_000;

    @TempDir
    Path data;

    private final List<DemoProcess> processes = new ArrayList<>();
    private final Random random = new Random(Long.getLong("parley.crash.seed", 17));

    @AfterEach
    void killLeftovers() {
        processes.forEach(DemoProcess::kill);
    }

    /** One client flow: one-round MRTR (release, invoice) or a task with an approval (report). */
    private static final class Flow {
        final String kind;
        final String name;
        ObjectNode first;
        String requestState;
        String taskId;
        boolean approved;
        String result;

        Flow(String kind, String name) {
            this.kind = kind;
            this.name = name;
        }

        boolean acknowledged() {
            return requestState != null || taskId != null;
        }

        boolean done() {
            return result != null;
        }

        /** One request further; a failure (the server died) leaves the flow where it was. */
        void advance(McpTestClient client) {
            switch (kind) {
                case "release", "invoice" -> advanceRound(client);
                default -> advanceTask(client);
            }
        }

        private void advanceRound(McpTestClient client) {
            if (requestState == null) {
                first = kind.equals("release")
                        ? client.toolCall("schedule_release", Json.object().put("service", name))
                        : client.toolCall(
                                "create_invoice",
                                Json.object().put("client", name).put("amount", 10));
                Reply reply = client.send(first);
                assertEquals("input_required", reply.resultType(), reply::body);
                requestState = reply.requestState();
                return;
            }
            ObjectNode answer = kind.equals("release")
                    ? accept("window", Json.object().put("window", "2027-02-01T10:00:00Z"))
                    : accept("currency", Json.object().put("currency", "CHF"));
            Reply reply = client.send(client.retry(first, requestState, answer));
            assertEquals("complete", reply.resultType(), reply::body);
            result = reply.text();
        }

        private void advanceTask(McpTestClient client) {
            if (taskId == null) {
                Reply reply = client.send(
                        client.toolCall("publish_report", Json.object().put("title", name), McpTestClient.WITH_TASKS));
                assertEquals("task", reply.resultType(), reply::body);
                taskId = reply.taskId();
                return;
            }
            Reply polled = client.send(client.taskRequest("tasks/get", taskId));
            JsonNode task = polled.result();
            switch (task.path("status").asText()) {
                case "input_required" -> {
                    if (!approved || task.path("inputRequests").has("approval")) {
                        Reply updated = client.send(client.taskUpdate(
                                taskId, accept("approval", Json.object().put("channel", "website"))));
                        assertEquals(200, updated.status(), updated::body);
                        approved = true;
                    }
                }
                case "completed" ->
                    result = task.path("result")
                            .path("content")
                            .path(0)
                            .path("text")
                            .asText();
                case "working" -> pause(100);
                default -> fail("task " + taskId + " ended " + task);
            }
        }
    }

    @Test
    void everyAcknowledgedFlowCompletesAndNoEffectIsInTheLedgerTwice() throws Exception {
        List<Flow> flows = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Throwable> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger names = new AtomicInteger();
        int killed = 0;
        for (int round = 0; round < KILLS; round++) {
            DemoProcess process = start();
            McpTestClient client = new McpTestClient(process.port());
            // Flows left over from before the kill go on alongside new ones.
            List<Flow> carried = new ArrayList<>(flows);
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService load = Executors.newFixedThreadPool(CLIENTS);
            for (int c = 0; c < CLIENTS; c++) {
                load.execute(() -> {
                    while (!stop.get()) {
                        String kind = List.of("release", "invoice", "report").get(names.get() % 3);
                        Flow flow = new Flow(kind, kind + "-" + names.incrementAndGet());
                        flows.add(flow);
                        runUntilStopped(flow, client, stop, problems);
                    }
                });
            }
            for (Flow old : carried) {
                load.execute(() -> runUntilStopped(old, client, stop, problems));
            }
            // Once this round's load got going (CLIENTS more acknowledged flows), kill at a random
            // moment: some steps are then between their action and their journal write.
            int wanted = (round + 1) * CLIENTS;
            long goingBy = System.currentTimeMillis() + 60_000;
            while (acknowledgedSoFar(flows) < wanted && System.currentTimeMillis() < goingBy) {
                pause(50);
            }
            pause(500 + random.nextInt(2500));
            process.kill();
            killed++;
            assertEquals(128 + 9, process.exitValue(), "died of SIGKILL");
            stop.set(true);
            load.shutdown();
            assertTrue(load.awaitTermination(90, TimeUnit.SECONDS), "the load threads stop");
        }

        assertEquals(List.of(), problems, "every reply under load was one the flow expected");

        // --- the last process: every acknowledged flow completes ----------------------------------
        DemoProcess last = start();
        McpTestClient client = new McpTestClient(last.port());
        long deadline = System.currentTimeMillis() + FINISH_LIMIT_MS;
        List<Flow> acknowledged = flows.stream().filter(Flow::acknowledged).toList();
        for (Flow flow : acknowledged) {
            while (!flow.done()) {
                if (System.currentTimeMillis() > deadline) {
                    fail("flow " + flow.name + " did not complete; server output:\n" + last.output());
                }
                flow.advance(client);
            }
        }

        // --- every effect once -------------------------------------------------------------------
        DemoLedger ledger = new DemoLedger(data);
        Map<String, Integer> effectsPerFlow = new HashMap<>();
        for (DemoLedger.Entry entry : ledger.entries()) {
            // release: [id, service, window]; invoice: [id, client, ...]; report: [id, channel, title]
            String flowName = entry.kind().equals("report")
                    ? entry.fields().get(2)
                    : entry.fields().get(1);
            effectsPerFlow.merge(entry.kind() + " " + flowName, 1, Integer::sum);
        }
        List<String> duplicates = effectsPerFlow.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .toList();
        for (Flow flow : acknowledged) {
            assertEquals(
                    1,
                    effectsPerFlow.getOrDefault(flow.kind + " " + flow.name, 0),
                    () -> flow.name + " has its effect once; ledger: " + ledger.lines());
        }
        // Steps that ran again after a kill and found their key in the ledger (the at-least-once window).
        long absorbed = processes.stream()
                .mapToLong(p -> p.output()
                        .lines()
                        .filter(line -> line.contains("is in the ledger already"))
                        .count())
                .sum();
        System.out.printf(
                "crash under load: %d kills, %d flows started, %d acknowledged and completed, "
                        + "%d ledger entries, %d effects re-run after a kill and kept once, %d duplicate effects%n",
                killed, flows.size(), acknowledged.size(), ledger.entries().size(), absorbed, duplicates.size());
        assertEquals(List.of(), duplicates, "no effect twice");
        assertTrue(acknowledged.size() >= KILLS * CLIENTS, () -> "the load got going: " + acknowledged.size());
    }

    private static long acknowledgedSoFar(List<Flow> flows) {
        synchronized (flows) { // the load threads add to it meanwhile
            return flows.stream().filter(Flow::acknowledged).count();
        }
    }

    /** Drives {@code flow} until it is done or the server died (the flow keeps its state). */
    private static void runUntilStopped(Flow flow, McpTestClient client, AtomicBoolean stop, List<Throwable> problems) {
        try {
            while (!flow.done() && !stop.get()) {
                flow.advance(client);
            }
        } catch (RuntimeException serverGone) {
            // The kill: this flow goes on after the restart from what was acknowledged.
            pause(50);
        } catch (AssertionError unexpected) {
            // A reply the flow did not expect: never part of a kill (a dead server does not answer).
            problems.add(unexpected);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private DemoProcess start() {
        DemoProcess process = DemoProcess.start(data, List.of());
        processes.add(process);
        return process;
    }
}
