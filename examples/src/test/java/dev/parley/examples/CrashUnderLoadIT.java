package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.ArrayList;
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

    @Test
    void everyAcknowledgedFlowCompletesAndNoEffectIsInTheLedgerTwice() throws Exception {
        List<DemoFlow> flows = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Throwable> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger names = new AtomicInteger();
        int killed = 0;
        for (int round = 0; round < KILLS; round++) {
            DemoProcess process = start();
            McpTestClient client = new McpTestClient(process.port());
            // Flows left over from before the kill go on alongside new ones.
            List<DemoFlow> carried = new ArrayList<>(flows);
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService load = Executors.newFixedThreadPool(CLIENTS);
            for (int c = 0; c < CLIENTS; c++) {
                load.execute(() -> {
                    while (!stop.get()) {
                        String kind = List.of("release", "invoice", "report").get(names.get() % 3);
                        DemoFlow flow = new DemoFlow(kind, kind + "-" + names.incrementAndGet());
                        flows.add(flow);
                        runUntilStopped(flow, client, stop, problems);
                    }
                });
            }
            for (DemoFlow old : carried) {
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
        List<DemoFlow> acknowledged =
                flows.stream().filter(DemoFlow::acknowledged).toList();
        DemoFlow.completeAll(acknowledged, start(), FINISH_LIMIT_MS);

        // --- every effect once -------------------------------------------------------------------
        DemoLedger ledger = new DemoLedger(data);
        Map<String, Integer> effectsPerFlow = DemoFlow.effectsPerFlow(ledger);
        List<String> duplicates = effectsPerFlow.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .toList();
        for (DemoFlow flow : acknowledged) {
            assertEquals(
                    1,
                    effectsPerFlow.getOrDefault(flow.effectKey(), 0),
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

    private static long acknowledgedSoFar(List<DemoFlow> flows) {
        synchronized (flows) { // the load threads add to it meanwhile
            return flows.stream().filter(DemoFlow::acknowledged).count();
        }
    }

    /** Drives {@code flow} until it is done or the server died (the flow keeps its state). */
    private static void runUntilStopped(
            DemoFlow flow, McpTestClient client, AtomicBoolean stop, List<Throwable> problems) {
        try {
            while (!flow.done() && !stop.get()) {
                flow.advance(client, McpTestClient::send);
            }
        } catch (DemoFlow.Refused refused) {
            problems.add(refused); // a SIGKILL leaves no time for a 503
        } catch (RuntimeException serverGone) {
            // The kill: this flow goes on after the restart from what was acknowledged.
            pause(50);
        } catch (AssertionError unexpected) {
            // A reply the flow did not expect: never part of a kill (a dead server does not answer).
            problems.add(unexpected);
        }
    }

    private static void pause(long millis) {
        DemoFlow.pause(millis);
    }

    private DemoProcess start() {
        DemoProcess process = DemoProcess.start(data, List.of());
        processes.add(process);
        return process;
    }
}
