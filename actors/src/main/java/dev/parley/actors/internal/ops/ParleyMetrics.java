package dev.parley.actors.internal.ops;

import dev.parley.actors.internal.NodeSharding;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.CallerRuns;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.dispatch.Dispatcher;

/**
 * The metrics of one node (one registry per actor system, so several nodes in one JVM keep
 * apart), scraped as Prometheus text from the management port's {@code /metrics}. Request
 * metrics follow the OpenTelemetry MCP semantic conventions; the rest are Parley's own
 * ({@code parley.*}): what only Parley has, rounds, durable calls and tasks.
 *
 * <p>Why it is long: every meter the node exports is named, described and labelled here, so the
 * whole metrics surface (and its label sets, which a client must not be able to grow) reads in
 * one file; docs/operations.md lists the same names.
 */
public final class ParleyMetrics implements Extension {
    /** OpenTelemetry MCP conventions: the server-side duration of one request, in seconds. */
    public static final String OPERATION_DURATION = "mcp.server.operation.duration";
    /** Bucket boundaries the MCP conventions recommend for {@value #OPERATION_DURATION}. */
    private static final Duration[] OPERATION_BUCKETS =
            seconds(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300);

    private static final ExtensionId<ParleyMetrics> ID = new ExtensionId<>() {
        @Override
        public ParleyMetrics createExtension(ActorSystem<?> system) {
            // Pekko creates an extension from the actor system alone: the setting is read here, once,
            // from the system's configuration (the one NodeConfig layered; actors' reference.conf defines it).
            return new ParleyMetrics(system, system.settings().config().getBoolean("parley.metrics.enabled"));
        }
    };

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, AtomicInteger> liveEntities = new ConcurrentHashMap<>();
    /**
     * Meters on the request path, built once per label tuple: building a meter (tags sorted and
     * merged, the registry's id map) on every request cost about 2.5 % of a one-round call's CPU.
     * The callers' labels are bounded (known methods and tools, result types, error codes).
     */
    private final Map<RequestLabels, Timer> requestTimers = new ConcurrentHashMap<>();

    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> answerTimers = new ConcurrentHashMap<>();
    private final Map<String, Timer> taskDurationTimers = new ConcurrentHashMap<>();

    /** Registered with the first call that ends, as before (a scrape shows no empty summary). */
    private volatile DistributionSummary callRounds;

    private record RequestLabels(
            String method, String tool, String protocolVersion, String resultType, String errorCode) {}

    private final JournalMeters journal = new JournalMeters(registry);
    /** {@code parley.metrics.enabled}: off, Parley records nothing of its own (JVM and cluster meters stay). */
    private final boolean enabled;

    private ParleyMetrics(ActorSystem<?> system, boolean enabled) {
        this.enabled = enabled;
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        system.getWhenTerminated().whenComplete((done, failure) -> gc.close());
        if (NodeSharding.clustered(system)) {
            registerClusterGauges(system);
        }
        if (enabled
                && system.classicSystem().dispatchers().defaultGlobalDispatcher() instanceof Dispatcher dispatcher) {
            // Pekko basics: the default dispatcher's pool (threads, queued and stolen tasks).
            new ExecutorServiceMetrics(
                            dispatcher.executorService().executor(), "pekko-default-dispatcher", Tags.empty())
                    .bindTo(registry);
        }
    }

    /** The pool that runs tool handlers: its active threads, queued and completed tasks. */
    public void bindToolExecutor(ExecutorService toolExecutor) {
        if (enabled) {
            new ExecutorServiceMetrics(toolExecutor, "parley-tool", Tags.empty()).bindTo(registry);
        }
    }

    /**
     * Where blocking handlers run ({@code CallerRuns}): runs under way on dispatcher threads, and
     * runs by thread: a request's own, the dispatcher (an entity's round), the tool executor (the
     * rest, and every run once the dispatcher's slots are taken).
     */
    public void bindHandlerRuns(CallerRuns runs) {
        if (!enabled) {
            return;
        }
        Gauge.builder("parley.handler.runs.on.dispatcher", runs, CallerRuns::runsUnderWay)
                .description("Blocking handler runs under way on dispatcher threads, as managed blocks")
                .register(registry);
        Map<String, ToDoubleFunction<CallerRuns>> byThread = Map.of(
                "request_thread", CallerRuns::ranOnRequestThreads,
                "dispatcher", CallerRuns::ranPosted,
                "tool_executor", CallerRuns::handedToToolExecutor);
        for (Map.Entry<String, ToDoubleFunction<CallerRuns>> where : byThread.entrySet()) {
            FunctionCounter.builder("parley.handler.runs", runs, where.getValue())
                    .description("Blocking handler runs started, by the thread they ran on")
                    .tag("thread", where.getKey())
                    .register(registry);
        }
    }

    /** Pekko basics: this node's view of the cluster. */
    private void registerClusterGauges(ActorSystem<?> system) {
        Cluster cluster = Cluster.get(system);
        for (MemberStatus status : new MemberStatus[] {
            MemberStatus.up(),
            MemberStatus.joining(),
            MemberStatus.leaving(),
            MemberStatus.exiting(),
            MemberStatus.weaklyUp()
        }) {
            Gauge.builder(
                            "pekko.cluster.members",
                            cluster,
                            c -> StreamSupport.stream(c.state().getMembers().spliterator(), false)
                                    .filter(member -> member.status().equals(status))
                                    .count())
                    .description("Cluster members this node sees, by status")
                    .tag("status", status.toString().toLowerCase(java.util.Locale.ROOT))
                    .register(registry);
        }
        Gauge.builder(
                        "pekko.cluster.unreachable",
                        cluster,
                        c -> c.state().getUnreachable().size())
                .description("Cluster members this node cannot reach")
                .register(registry);
    }

    public static ParleyMetrics get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The whole registry in the Prometheus text format. */
    public String scrape() {
        return registry.scrape();
    }

    /**
     * One answered JSON-RPC request.
     *
     * @param tool the tool name of a {@code tools/call}, else empty
     * @param resultType {@code complete}, {@code input_required}, {@code task} or {@code error}
     * @param errorCode the JSON-RPC error code, empty unless {@code resultType} is {@code error}
     */
    public void requestEnded(
            String method, String tool, String protocolVersion, String resultType, String errorCode, long nanos) {
        if (!enabled) {
            return;
        }
        requestTimers
                .computeIfAbsent(
                        new RequestLabels(method, tool, protocolVersion, resultType, errorCode),
                        labels -> Timer.builder(OPERATION_DURATION)
                                .description(
                                        "MCP request duration as observed on the server, from the request received to the response sent")
                                .tag("mcp.method.name", labels.method())
                                .tag("gen_ai.tool.name", labels.tool())
                                .tag("mcp.protocol.version", labels.protocolVersion())
                                .tag("parley.result_type", labels.resultType())
                                .tag("rpc.response.status_code", labels.errorCode())
                                .serviceLevelObjectives(OPERATION_BUCKETS)
                                .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A request the HTTP edge answered before any dispatch (bad Host, wrong method, draining, ...). */
    public void refusedAtEdge(String reason) {
        if (!enabled) {
            return;
        }
        counter(
                        "parley.edge.refused|" + reason,
                        () -> Counter.builder("parley.edge.refused")
                                .description("Requests refused by the HTTP edge before dispatch, by reason")
                                .tag("reason", reason)
                                .register(registry))
                .increment();
    }

    /** A durable call ended ({@code completed}, {@code failed} or {@code became_task}) after {@code rounds} rounds. */
    public void callEnded(String outcome, int rounds) {
        if (!enabled) {
            return;
        }
        counter(
                        "parley.calls.ended|" + outcome,
                        () -> Counter.builder("parley.calls.ended")
                                .description("Durable (multi-round) calls that ended, by outcome")
                                .tag("outcome", outcome)
                                .register(registry))
                .increment();
        DistributionSummary summary = callRounds;
        if (summary == null) {
            summary = callRounds = DistributionSummary.builder("parley.call.rounds")
                    .description("Rounds per durable call, recorded when the call ends")
                    .register(registry);
        }
        summary.record(rounds);
    }

    /** A task reached {@code status} ({@code working} when created, then a terminal status). */
    public void taskStatus(String status) {
        if (!enabled) {
            return;
        }
        counter(
                        "parley.tasks|" + status,
                        () -> Counter.builder("parley.tasks")
                                .description(
                                        "Tasks that reached a status (working when created; completed, failed, cancelled at the end)")
                                .tag("status", status)
                                .register(registry))
                .increment();
    }

    /** A task ended with {@code status}, {@code duration} after it was created. */
    public void taskEnded(String status, Duration duration) {
        if (!enabled) {
            return;
        }
        taskStatus(status);
        taskDurationTimers
                .computeIfAbsent(
                        status,
                        key -> Timer.builder("parley.task.duration")
                                .description("Task duration from creation to its terminal status")
                                .tag("status", key)
                                .register(registry))
                .record(duration.isNegative() ? Duration.ZERO : duration);
    }

    /** An entity of {@code type} started (fresh or recovered from the journal). */
    public void entityStarted(String type) {
        if (!enabled) {
            return;
        }
        live(type).incrementAndGet();
    }

    /** An entity of {@code type} stopped (passivated, or its node shut down). */
    public void entityStopped(String type) {
        if (!enabled) {
            return;
        }
        live(type).decrementAndGet();
    }

    /** An entity asked its shard to passivate it. */
    public void passivated(String type) {
        if (!enabled) {
            return;
        }
        counter(
                        "parley.entity.passivations|" + type,
                        () -> Counter.builder("parley.entity.passivations")
                                .description("Entities that asked to leave memory, by type")
                                .tag("type", type)
                                .register(registry))
                .increment();
    }

    /** Counted answers to elicitations: {@code action} is accept, decline, cancel, or unanswerable (the fallback ran). */
    public static final String ELICITATION_ANSWERS = "parley.elicitation.answers";
    /** The time from a question to its answer, by mode. */
    public static final String ELICITATION_ANSWER_TIME = "parley.elicitation.answer.duration";
    /** Requests that use a feature deprecated in 2026-07-28, by feature and method. */
    public static final String DEPRECATED_REQUESTS = "parley.deprecated.requests";

    /**
     * The answer to an elicitation of {@code tool} in {@code mode} (form, url); {@code waited}
     * is the time since the question was asked, null when unknown (an unanswerable question, or
     * a question asked before this node took the call over).
     */
    public void elicitationAnswered(String tool, String mode, String action, Duration waited) {
        if (!enabled) {
            return;
        }
        counter(
                        ELICITATION_ANSWERS + "|" + tool + "|" + mode + "|" + action,
                        () -> Counter.builder(ELICITATION_ANSWERS)
                                .description("Answers to elicitations by tool, mode and action (unanswerable: the "
                                        + "client could not be asked and the tool's fallback ran)")
                                .tag("tool", tool)
                                .tag("mode", mode)
                                .tag("action", action)
                                .register(registry))
                .increment();
        if (waited != null) {
            answerTimers
                    .computeIfAbsent(
                            mode,
                            key -> Timer.builder(ELICITATION_ANSWER_TIME)
                                    .description("Time from an elicitation to its answer, by mode")
                                    .tag("mode", key)
                                    .publishPercentileHistogram()
                                    .register(registry))
                    .record(waited.isNegative() ? Duration.ZERO : waited);
        }
    }

    /** Counts the answers {@code answers} gives to the elicitations among {@code questions} of {@code tool}. */
    public void elicitationAnswers(
            String tool,
            List<AskedQuestion> questions,
            Map<String, CallHistory.RecordedAnswer> answers,
            Duration waited) {
        for (AskedQuestion question : questions) {
            CallHistory.RecordedAnswer answer = answers.get(question.key());
            if (answer != null && question.request().method().equals(Methods.ELICITATION_CREATE)) {
                elicitationAnswered(
                        tool,
                        question.request().params().path("mode").asText("form"),
                        answer.response().path("action").asText(),
                        waited);
            }
        }
    }

    /** Counts the questions of a round that use a deprecated feature (sampling, roots). */
    public void asked(List<AskedQuestion> questions) {
        for (AskedQuestion question : questions) {
            String method = question.request().method();
            if (method.equals(Methods.SAMPLING_CREATE_MESSAGE)) {
                deprecatedRequest("sampling", method);
            } else if (method.equals(Methods.ROOTS_LIST)) {
                deprecatedRequest("roots", method);
            }
        }
    }

    /**
     * A request that uses a deprecated feature: {@code feature} is sampling, roots, logging or
     * server_request (a 2025-11-25 server→client request); {@code method} its JSON-RPC method.
     */
    public void deprecatedRequest(String feature, String method) {
        if (!enabled) {
            return;
        }
        counter(
                        DEPRECATED_REQUESTS + "|" + feature + "|" + method,
                        () -> Counter.builder(DEPRECATED_REQUESTS)
                                .description("Requests that use a feature deprecated in 2026-07-28, by feature and "
                                        + "method")
                                .tag("feature", feature)
                                .tag("method", method)
                                .register(registry))
                .increment();
    }

    /** The counter registered under {@code key} (its name and tag values), built once. */
    private Counter counter(String key, java.util.function.Supplier<Counter> build) {
        Counter counter = counters.get(key);
        return counter != null ? counter : counters.computeIfAbsent(key, k -> build.get());
    }

    private AtomicInteger live(String type) {
        return liveEntities.computeIfAbsent(type, key -> {
            AtomicInteger count = new AtomicInteger();
            Gauge.builder("parley.entities.live", count, AtomicInteger::get)
                    .description("Entities in memory on this node, by type")
                    .tag("type", key)
                    .register(registry);
            return count;
        });
    }

    /** The journal's meters ({@link MeteredJdbcJournal}, {@link MeteredJournalDao}). */
    public JournalMeters journal() {
        return enabled ? journal : JournalMeters.OFF;
    }

    /**
     * Journal writes, database batches and recovery replays. The meters are made once: the
     * journal reports on every write, so no builder runs per event.
     */
    public static final class JournalMeters {
        private static final Duration[] LATENCY_BUCKETS =
                seconds(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5);
        private static final double[] ROW_BUCKETS = {1, 2, 5, 10, 20, 50, 100, 200, 400};

        /** Records nothing (metrics off). */
        static final JournalMeters OFF = new JournalMeters(null);

        private final Timer writeOk;
        private final Timer writeFailed;
        private final Counter eventsWritten;
        private final Timer batchOk;
        private final Timer batchFailed;
        private final DistributionSummary batchRows;
        private final Timer replayOk;
        private final Timer replayFailed;
        private final Counter eventsReplayed;

        JournalMeters(MeterRegistry registry) {
            if (registry == null) {
                writeOk = writeFailed = batchOk = batchFailed = replayOk = replayFailed = null;
                eventsWritten = eventsReplayed = null;
                batchRows = null;
                return;
            }
            writeOk = latency(
                    registry,
                    "parley.journal.write.duration",
                    "An entity's journal write, from handing it to the journal to its acknowledgement",
                    "ok");
            writeFailed = latency(
                    registry,
                    "parley.journal.write.duration",
                    "An entity's journal write, from handing it to the journal to its acknowledgement",
                    "failed");
            eventsWritten = Counter.builder("parley.journal.events.written")
                    .description("Events the journal acknowledged as written")
                    .register(registry);
            batchOk = latency(
                    registry,
                    "parley.journal.batch.duration",
                    "One database transaction of the journal's write queue",
                    "ok");
            batchFailed = latency(
                    registry,
                    "parley.journal.batch.duration",
                    "One database transaction of the journal's write queue",
                    "failed");
            batchRows = DistributionSummary.builder("parley.journal.batch.rows")
                    .description(
                            "Rows per database transaction of the journal's write queue (events of many entities' writes)")
                    .serviceLevelObjectives(ROW_BUCKETS)
                    .register(registry);
            replayOk = latency(
                    registry, "parley.journal.replay.duration", "Reading an entity's events when it recovers", "ok");
            replayFailed = latency(
                    registry,
                    "parley.journal.replay.duration",
                    "Reading an entity's events when it recovers",
                    "failed");
            eventsReplayed = Counter.builder("parley.journal.events.replayed")
                    .description("Events read back from the journal by recovering entities")
                    .register(registry);
        }

        private static Timer latency(MeterRegistry registry, String name, String description, String outcome) {
            return Timer.builder(name)
                    .description(description)
                    .tag("outcome", outcome)
                    .serviceLevelObjectives(LATENCY_BUCKETS)
                    .register(registry);
        }

        /** One entity's write ended; {@code events} of its events are in the journal. */
        public void written(boolean ok, long events, long nanos) {
            if (this == OFF) {
                return;
            }
            (ok ? writeOk : writeFailed).record(nanos, TimeUnit.NANOSECONDS);
            eventsWritten.increment(events);
        }

        /** One database transaction of {@code rows} rows ended. */
        public void batch(boolean ok, int rows, long nanos) {
            if (this == OFF) {
                return;
            }
            (ok ? batchOk : batchFailed).record(nanos, TimeUnit.NANOSECONDS);
            if (ok) {
                batchRows.record(rows);
            }
        }

        /** One recovering entity read {@code events} events. */
        public void replayed(boolean ok, long events, long nanos) {
            if (this == OFF) {
                return;
            }
            (ok ? replayOk : replayFailed).record(nanos, TimeUnit.NANOSECONDS);
            eventsReplayed.increment(events);
        }
    }

    private static Duration[] seconds(double... values) {
        Duration[] durations = new Duration[values.length];
        for (int i = 0; i < values.length; i++) {
            durations[i] = Duration.ofNanos((long) (values[i] * 1_000_000_000L));
        }
        return durations;
    }
}
