package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The demo jar under MRTR and task load gets a real SIGTERM, on each journal store: every request
 * sent before the signal completes or is refused with a clean 503 (nothing started), the log has
 * no ERROR line, the process exits within {@code readiness-delay} (1 s) + {@code in-flight-timeout}
 * (10 s) + 5 s, {@code /ready}
 * answers 503 (never 500) from the signal until the management port closes, and after a restart
 * on the same data every acknowledged flow completes with its effect in the ledger once. Prints
 * its figures ({@code [drain]} lines). Runs in the {@code integration-test} phase.
 *
 * <p>The clients keep pooled keep-alive connections, so the demo runs with a readiness delay of
 * 1 s: with none, a request written on an idle connection at the moment the port closes finds the
 * connection closed unanswered (HTTP/1.1's keep-alive race; the client cannot tell whether it
 * arrived). With the delay, such a request gets the clean 503 and {@code Connection: close}.
 */
class SigtermDrainIT {
    private static final int CLIENTS = 12;
    private static final long EXIT_LIMIT_MS = 16_000;
    private static final long FINISH_LIMIT_MS = 120_000;

    @TempDir
    Path data;

    private final List<DemoProcess> processes = new ArrayList<>();
    private EmbeddedPostgres postgres;

    @AfterEach
    void stopEverything() throws Exception {
        processes.forEach(DemoProcess::kill);
        if (postgres != null) {
            postgres.close();
        }
    }

    /** What one request ended with, and when it was sent (relative to the SIGTERM). */
    private record Outcome(boolean sentBeforeSignal, String what) {}

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite", "postgres"})
    void aSigtermDrainsTheRequestsThatArrivedBeforeIt(String store) throws Exception {
        List<String> options = storeOptions(store);
        DemoProcess process = start(options);
        McpTestClient client = new McpTestClient(process.port());

        AtomicLong signalledAt = new AtomicLong(Long.MAX_VALUE);
        List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());
        DemoFlow.Exchange recording = (c, message) -> send(c, message, signalledAt, outcomes);
        List<DemoFlow> flows = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> problems = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger names = new AtomicInteger();
        ExecutorService load = Executors.newFixedThreadPool(CLIENTS);
        for (int c = 0; c < CLIENTS; c++) {
            load.execute(() -> {
                while (!stop.get()) {
                    int n = names.incrementAndGet();
                    String kind = List.of("release", "invoice", "report").get(n % 3);
                    DemoFlow flow = new DemoFlow(kind, kind + "-" + n);
                    flows.add(flow);
                    drive(flow, client, recording, stop, problems);
                }
            });
        }
        long goingBy = System.currentTimeMillis() + 60_000;
        while (acknowledged(flows) < 3L * CLIENTS && System.currentTimeMillis() < goingBy) {
            DemoFlow.pause(50);
        }

        // --- SIGTERM under load; /ready watched from that moment ---------------------------------
        List<Integer> readyAnswers = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread readyWatch = new Thread(() -> watchReady(process.managementPort(), readyAnswers, watching));
        long signalled = System.nanoTime();
        signalledAt.set(signalled);
        process.terminate();
        readyWatch.start();
        boolean exited = process.awaitExit(60);
        long exitMs = (System.nanoTime() - signalled) / 1_000_000;
        watching.set(false);
        readyWatch.join();
        stop.set(true);
        load.shutdown();
        assertTrue(load.awaitTermination(90, TimeUnit.SECONDS), "the load threads stop");

        Map<String, Integer> beforeSignal = new TreeMap<>();
        Map<String, Integer> afterSignal = new TreeMap<>();
        synchronized (outcomes) {
            for (Outcome outcome : outcomes) {
                (outcome.sentBeforeSignal() ? beforeSignal : afterSignal).merge(outcome.what(), 1, Integer::sum);
            }
        }
        List<String> errorLines = process.output()
                .lines()
                .filter(line -> line.contains(" ERROR "))
                .toList();
        System.out.printf(
                "[drain] %s: exit %d ms after SIGTERM (exit code %s); requests sent before it: %s; after: %s;"
                        + " /ready answers during the drain: %s; ERROR lines: %d%n",
                store,
                exitMs,
                exited ? process.exitValue() : "none",
                beforeSignal,
                afterSignal,
                summary(readyAnswers),
                errorLines.size());
        assertTrue(exited, () -> "the process exits; output:\n" + process.output());
        assertTrue(
                exitMs <= EXIT_LIMIT_MS,
                () -> "exit within readiness-delay + in-flight-timeout + 5 s, not " + exitMs + " ms");
        assertEquals(List.of(), errorLines, "no ERROR line");
        assertEquals(List.of(), problems, "every reply was one the flow expected");
        for (String what : beforeSignal.keySet()) {
            assertTrue(
                    what.equals("answered") || what.equals("refused 503"),
                    () -> "a request sent before SIGTERM ended " + what + ": " + beforeSignal);
        }
        for (String what : afterSignal.keySet()) {
            assertTrue(
                    what.equals("answered") || what.equals("refused 503") || what.equals("connection failed"),
                    () -> "a request sent after SIGTERM ended " + what + ": " + afterSignal);
        }
        // The first probes may still beat the signal to the JVM; from the first 503 on, only 503.
        int firstRefusal = readyAnswers.indexOf(503);
        assertTrue(firstRefusal >= 0, () -> "/ready said 503 while draining: " + readyAnswers);
        assertEquals(
                List.of(503),
                readyAnswers.subList(firstRefusal, readyAnswers.size()).stream()
                        .distinct()
                        .toList(),
                () -> "/ready during the drain: " + readyAnswers);
        assertTrue(
                readyAnswers.subList(0, firstRefusal).stream().allMatch(status -> status == 200),
                () -> "/ready before the drain began: " + readyAnswers);

        // --- the next process: every acknowledged flow completes, each effect once ----------------
        List<DemoFlow> acknowledged =
                flows.stream().filter(DemoFlow::acknowledged).toList();
        DemoFlow.completeAll(acknowledged, start(options), FINISH_LIMIT_MS);
        Map<String, Integer> effects = DemoFlow.effectsPerFlow(new DemoLedger(data));
        for (DemoFlow flow : acknowledged) {
            assertEquals(1, effects.getOrDefault(flow.effectKey(), 0), flow.name + " has its effect once");
        }
        System.out.printf(
                "[drain] %s: %d acknowledged flows completed after the restart%n", store, acknowledged.size());
    }

    private List<String> storeOptions(String store) throws Exception {
        String readinessDelay = "-Dparley.lifecycle.readiness-delay=1s";
        if (!store.equals("postgres")) {
            return List.of(readinessDelay, "-Dparley.journal.database=" + store);
        }
        postgres = EmbeddedPostgres.start();
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE parley");
        }
        return List.of(
                readinessDelay,
                "-Dparley.journal.database=postgres",
                "-Dparley.journal.postgres.url=jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/parley",
                "-Dparley.journal.postgres.user=postgres",
                "-Dparley.journal.postgres.password=postgres");
    }

    /** Sends {@code message} and records how it ended: answered, refused with 503, or the connection failed. */
    private static Reply send(
            McpTestClient client, ObjectNode message, AtomicLong signalledAt, List<Outcome> outcomes) {
        boolean before = System.nanoTime() < signalledAt.get();
        try {
            Reply reply = client.send(message);
            String what = reply.status() == 200
                    ? "answered"
                    : reply.status() == 503 && (reply.json() == null || reply.errorCode() != -30503)
                            ? "refused 503"
                            : "HTTP " + reply.status() + " " + reply.body();
            outcomes.add(new Outcome(before, what));
            return reply;
        } catch (RuntimeException e) {
            outcomes.add(new Outcome(before, "connection failed"));
            throw e;
        }
    }

    /** Drives {@code flow} until it is done, the load stops or the server is gone. */
    private static void drive(
            DemoFlow flow,
            McpTestClient client,
            DemoFlow.Exchange exchange,
            AtomicBoolean stop,
            List<Throwable> problems) {
        while (!flow.done() && !stop.get()) {
            try {
                flow.advance(client, exchange);
            } catch (DemoFlow.Refused refused) {
                DemoFlow.pause(200); // Retry-After: the flow goes on after the restart
                return;
            } catch (AssertionError unexpected) {
                problems.add(unexpected);
                return;
            } catch (RuntimeException serverGone) {
                DemoFlow.pause(200);
                return;
            }
        }
    }

    /** Asks {@code /ready} every 50 ms until the port closes; adds each status. */
    private static void watchReady(int port, List<Integer> answers, AtomicBoolean watching) {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready"))
                .timeout(Duration.ofSeconds(5))
                .build();
        while (watching.get()) {
            try {
                int status =
                        http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode();
                answers.add(status);
            } catch (java.io.IOException closed) {
                return; // the management endpoint has stopped
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            DemoFlow.pause(50);
        }
    }

    /** The statuses in order, runs collapsed: "200 x2, 503 x57". */
    private static String summary(List<Integer> statuses) {
        List<String> runs = new ArrayList<>();
        int i = 0;
        while (i < statuses.size()) {
            int j = i;
            while (j < statuses.size() && statuses.get(j).equals(statuses.get(i))) {
                j++;
            }
            runs.add(statuses.get(i) + " x" + (j - i));
            i = j;
        }
        return String.join(", ", runs);
    }

    private static long acknowledged(List<DemoFlow> flows) {
        synchronized (flows) {
            return flows.stream().filter(DemoFlow::acknowledged).count();
        }
    }

    private DemoProcess start(List<String> options) {
        DemoProcess process = DemoProcess.start(data, options);
        processes.add(process);
        return process;
    }
}
