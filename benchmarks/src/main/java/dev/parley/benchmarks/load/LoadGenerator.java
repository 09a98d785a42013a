package dev.parley.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.benchmarks.load.LoadOptions.ClientKind;
import dev.parley.benchmarks.load.LoadOptions.Protocol;
import dev.parley.runtime.Json;
import java.io.Console;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Drives an MCP server with closed-loop workers, one concurrency level after another. Each
 * worker has its own connection (or shares the JDK client) and runs one flow after another:
 * first for the warm-up (not measured), then until the level's duration or flow count is
 * reached. Every level, and the whole run, ends by itself.
 *
 * <p>Open loop ({@code --rate}): flow {@code i} of a level is due at {@code start + i / rate}
 * whatever the server's latency; the workers take due flows in order, and a flow's latency
 * counts from when it was due, not from when a worker was free to send it. A server that falls
 * behind shows it in the latency instead of slowing the load down (the closed loop's
 * coordinated omission).
 */
public final class LoadGenerator {
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final LoadOptions options;
    private final PrintStream out;
    private final Console console;
    private Map<String, String> paramHeaders = Map.of();

    public LoadGenerator(LoadOptions options, PrintStream out, Console console) {
        this.options = options;
        this.out = out;
        this.console = options.progress() ? console : null;
    }

    /** Runs every level; the results in order. */
    public List<LevelResult> run() throws InterruptedException {
        options.checkTargetAllowed();
        discoverTool();
        List<LevelResult> results = new ArrayList<>();
        if (options.openLoop()) {
            for (double rate : options.rates()) {
                results.add(runLevel(options.concurrency().get(0), rate));
            }
            return results;
        }
        for (int concurrency : options.concurrency()) {
            results.add(runLevel(concurrency, 0));
        }
        return results;
    }

    /**
     * 2026-07-28: looks the tool up with tools/list, for its {@code Mcp-Param-*} headers and to
     * say early when it does not exist. A server that does not list is still driven.
     */
    private void discoverTool() throws InterruptedException {
        if (options.protocol() != Protocol.V2026_07_28) {
            return;
        }
        try (McpSession session = newSession(newTransport(null), (kind, start, end) -> {})) {
            String cursor = null;
            for (int page = 0; page < 100; page++) {
                ObjectNode params = Json.object();
                if (cursor != null) {
                    params.put("cursor", cursor);
                }
                ObjectNode result = session.call("tools/list", "tools/list", params, null, Map.of());
                for (JsonNode tool : result.path("tools")) {
                    if (options.tool().equals(tool.path("name").asText())) {
                        paramHeaders = McpSession.paramHeaders(tool.path("inputSchema"), options.arguments());
                        return;
                    }
                }
                cursor = result.path("nextCursor").asText(null);
                if (cursor == null) {
                    break;
                }
            }
            out.println("warning: tools/list does not list " + options.tool() + "; calling it anyway");
        } catch (McpSession.Failure failure) {
            out.println(
                    "warning: tools/list failed (" + failure.errorKind() + "); calling " + options.tool() + " anyway");
        }
    }

    private JdkTransport sharedJdk;

    private HttpTransport newTransport(Integer threads) {
        if (options.client() == ClientKind.SOCKET) {
            return new SocketTransport(options.url(), options.timeout());
        }
        if (sharedJdk == null || threads != null) {
            JdkTransport fresh = JdkTransport.shared(options.url(), options.timeout(), threads == null ? 2 : threads);
            if (threads == null) {
                return fresh;
            }
            sharedJdk = fresh;
        }
        return sharedJdk.forWorker();
    }

    private McpSession newSession(HttpTransport transport, McpSession.Timings timings) {
        return new McpSession(
                transport, options.protocol(), options.flow() == LoadOptions.FlowKind.TASK, options.headers(), timings);
    }

    /**
     * One level: connect, warm up, measure, stop; bounded by the level's deadline. {@code rate}
     * is the open loop's flows per second (0: closed loop).
     */
    LevelResult runLevel(int concurrency, double rate) throws InterruptedException {
        if (options.client() == ClientKind.JDK) {
            newTransport(Math.min(64, Math.max(2, Runtime.getRuntime().availableProcessors() * 2)));
        }
        Flows flows = new Flows(options, paramHeaders);
        long warmupNanos = options.warmup().toNanos();
        long limitNanos = (options.duration() != null ? options.duration() : LoadOptions.MAX_DURATION).toNanos();
        boolean countMode = options.requests() != null;
        AtomicLong claimed = new AtomicLong();
        Schedule schedule = rate > 0 ? new Schedule(rate) : null;
        LongAdder liveFlows = new LongAdder();
        LongAdder liveErrors = new LongAdder();
        CountDownLatch ready = new CountDownLatch(concurrency);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(concurrency);
        long[] clock = new long[3]; // start of measurement, end of measurement, hard deadline (set before go)
        List<Worker> workers = new ArrayList<>();
        List<LevelStats> stats = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            Worker worker =
                    new Worker(i, flows, ready, go, done, clock, countMode, claimed, schedule, liveFlows, liveErrors);
            workers.add(worker);
            worker.thread.start();
        }
        // Connections (and 2025-11-25 sessions) are set up before the clock starts.
        if (!ready.await(options.timeout().toMillis() + 10_000, TimeUnit.MILLISECONDS)) {
            out.println("warning: not every worker connected in time; starting anyway");
        }
        long start = System.nanoTime();
        if (schedule != null) {
            schedule.start = start;
        }
        clock[0] = start + warmupNanos;
        clock[1] = clock[0] + limitNanos;
        clock[2] = clock[1] + options.flowTimeout().toNanos() + GRACE_NANOS;
        for (Worker worker : workers) {
            worker.stats = new LevelStats(clock[0], clock[1], schedule != null);
            stats.add(worker.stats);
        }
        CpuSampler.Sample cpuStart = warmupNanos == 0 ? CpuSampler.sample(options.serverPid()) : null;
        go.countDown();
        Progress progress =
                new Progress(concurrency, start, clock[0], clock[1], countMode, claimed, liveFlows, liveErrors);
        CpuSampler.Sample cpuEnd = null;
        while (!done.await(250, TimeUnit.MILLISECONDS)) {
            long now = System.nanoTime();
            if (cpuStart == null && now >= clock[0]) {
                cpuStart = CpuSampler.sample(options.serverPid());
            }
            if (cpuEnd == null && now >= clock[1]) {
                cpuEnd = CpuSampler.sample(options.serverPid());
            }
            if (now > clock[2]) {
                out.println();
                out.println("warning: workers still busy at the level's deadline; stopping them");
                workers.forEach(Worker::abort);
                done.await(10, TimeUnit.SECONDS);
                break;
            }
            progress.print();
        }
        long finishedAt = System.nanoTime();
        if (cpuStart == null) {
            cpuStart = CpuSampler.sample(options.serverPid());
        }
        if (cpuEnd == null) {
            cpuEnd = CpuSampler.sample(options.serverPid());
        }
        progress.finish();
        workers.forEach(Worker::closeSession);
        if (sharedJdk != null) {
            sharedJdk.close();
            sharedJdk = null;
        }
        LevelStats merged = new LevelStats(clock[0], clock[1], schedule != null);
        stats.forEach(merged::merge);
        // A counted level ends when its last flow did (or failed); a timed one at its end.
        long windowEnd = countMode && claimed.get() >= options.requests()
                ? Math.max(clock[0], Math.min(finishedAt, clock[1]))
                : clock[1];
        if (schedule != null) {
            // Open loop: the flows due in the window took until the last of them ended (achieved rate, not offered).
            windowEnd = Math.max(windowEnd, merged.lastFlowEnd());
        }
        double seconds = Math.max(0, windowEnd - clock[0]) / 1e9;
        return new LevelResult(
                concurrency, rate, seconds, merged, CpuSampler.between(cpuStart, cpuEnd), merged.timeline((int)
                        Math.floor(seconds)));
    }

    /** The open loop's timetable: flow {@code i} is due at {@code start + i * period}. */
    private static final class Schedule {
        private final double periodNanos;
        private final AtomicLong next = new AtomicLong();
        volatile long start;

        Schedule(double rate) {
            this.periodNanos = 1e9 / rate;
        }

        /** When the next flow nobody has taken yet is due. */
        long takeNext() {
            return start + (long) (next.getAndIncrement() * periodNanos);
        }
    }

    /** One client: a closed loop, or in the open loop one of the workers that take due flows. */
    private final class Worker implements Runnable {
        final Thread thread;
        private final Flows flows;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        private final CountDownLatch done;
        private final long[] clock;
        private final boolean countMode;
        private final AtomicLong claimed;
        private final Schedule schedule;
        private final LongAdder liveFlows;
        private final LongAdder liveErrors;
        private final McpSession session;
        volatile LevelStats stats;
        private volatile boolean aborted;

        Worker(
                int index,
                Flows flows,
                CountDownLatch ready,
                CountDownLatch go,
                CountDownLatch done,
                long[] clock,
                boolean countMode,
                AtomicLong claimed,
                Schedule schedule,
                LongAdder liveFlows,
                LongAdder liveErrors) {
            this.flows = flows;
            this.ready = ready;
            this.go = go;
            this.done = done;
            this.clock = clock;
            this.countMode = countMode;
            this.claimed = claimed;
            this.schedule = schedule;
            this.liveFlows = liveFlows;
            this.liveErrors = liveErrors;
            this.session = newSession(newTransport(null), (kind, start, end) -> {
                LevelStats current = stats; // null while connecting, before the clock starts
                if (current != null) {
                    current.request(kind, start, end);
                }
            });
            this.thread = new Thread(this, "load-worker-" + index);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                try {
                    session.initialize();
                } catch (McpSession.Failure failure) {
                    // Counted once the clock runs; the worker retries initialize in its loop.
                    pendingInitFailure = failure;
                } finally {
                    ready.countDown();
                }
                go.await();
                loop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                done.countDown();
            }
        }

        private McpSession.Failure pendingInitFailure;

        private void loop() throws InterruptedException {
            boolean initialized = pendingInitFailure == null;
            if (!initialized) {
                stats.error(pendingInitFailure.kind(), pendingInitFailure.errorKind(), System.nanoTime());
                liveErrors.increment();
            }
            while (!aborted) {
                long now = System.nanoTime();
                if (schedule != null) {
                    // Open loop: the next due flow; wait for its time, or start it late (its latency counts from when
                    // it was due).
                    long due = schedule.takeNext();
                    if (due >= clock[1]) {
                        return;
                    }
                    for (long wait = due - System.nanoTime(); wait > 0 && !aborted; wait = due - System.nanoTime()) {
                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    }
                    now = due;
                }
                if (now >= clock[1] || now >= clock[2]) {
                    return;
                }
                if (now >= clock[0] && countMode && claimed.incrementAndGet() > options.requests()) {
                    return;
                }
                try {
                    if (!initialized) {
                        session.initialize();
                        initialized = true;
                    }
                    long deadline = now + options.flowTimeout().toNanos();
                    flows.run(session, Math.min(deadline, clock[2]), () -> aborted || System.nanoTime() >= clock[2]);
                    long end = System.nanoTime();
                    stats.flow(now, end);
                    liveFlows.increment();
                } catch (McpSession.Failure failure) {
                    stats.error(failure.kind(), failure.errorKind(), now);
                    liveErrors.increment();
                    if (failure.connectionProblem || !initialized) {
                        Thread.sleep(20); // a refused connection or a server that will not initialize: don't spin
                    }
                }
            }
        }

        void abort() {
            aborted = true;
            thread.interrupt();
            session.close();
        }

        void closeSession() {
            session.close();
        }
    }

    /** The live progress line: only on a terminal, once a second, on one line. */
    private final class Progress {
        private final int concurrency;
        private final long start;
        private final long measureStart;
        private final long measureEnd;
        private final boolean countMode;
        private final AtomicLong claimed;
        private final LongAdder flows;
        private final LongAdder errors;
        private long lastPrint;
        private long lastFlows;

        Progress(
                int concurrency,
                long start,
                long measureStart,
                long measureEnd,
                boolean countMode,
                AtomicLong claimed,
                LongAdder flows,
                LongAdder errors) {
            this.concurrency = concurrency;
            this.start = start;
            this.measureStart = measureStart;
            this.measureEnd = measureEnd;
            this.countMode = countMode;
            this.claimed = claimed;
            this.flows = flows;
            this.errors = errors;
            this.lastPrint = start;
        }

        void print() {
            if (console == null) {
                return;
            }
            long now = System.nanoTime();
            if (now - lastPrint < 1_000_000_000L) {
                return;
            }
            long total = flows.sum();
            double rate = (total - lastFlows) / ((now - lastPrint) / 1e9);
            lastFlows = total;
            lastPrint = now;
            String phase;
            if (now < measureStart) {
                phase = String.format(
                        Locale.ROOT, "warm-up %.0fs/%.0fs", (now - start) / 1e9, (measureStart - start) / 1e9);
            } else if (countMode) {
                phase = String.format(
                        Locale.ROOT, "%d/%d flows", Math.min(claimed.get(), options.requests()), options.requests());
            } else {
                phase = String.format(
                        Locale.ROOT, "%.0fs/%.0fs", (now - measureStart) / 1e9, (measureEnd - measureStart) / 1e9);
            }
            console.format(
                    "%s",
                    String.format(
                            Locale.ROOT,
                            "\r  c=%-4d %-22s %9.1f flows/s  errors %-8d",
                            concurrency,
                            phase,
                            rate,
                            errors.sum()));
            console.flush();
        }

        void finish() {
            if (console != null) {
                console.printf("\r%80s\r", "");
                console.flush();
            }
        }
    }

    /** For the report: the options that shaped the run, as given. */
    public LoadOptions options() {
        return options;
    }
}
