package dev.parley.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.NodeSharding;
import dev.parley.actors.internal.ServerNotifications;
import dev.parley.actors.internal.SessionEntity;
import dev.parley.actors.internal.TaskEntity;
import dev.parley.actors.internal.TaskResumer;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.actors.internal.journal.DiskWatermark;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.actors.internal.journal.OpenEntities;
import dev.parley.actors.internal.ops.CallMdc;
import dev.parley.actors.internal.ops.JournalGauges;
import dev.parley.actors.internal.ops.NodeHealth;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.actors.internal.pipeline.McpPipeline;
import dev.parley.actors.internal.pipeline.TaskRequests;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalCompaction;
import dev.parley.persistence.internal.JournalEvent;
import dev.parley.persistence.internal.JournalQueries;
import dev.parley.persistence.internal.JournalRetention;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallerRuns;
import dev.parley.runtime.internal.engine.FailureReports;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.state.RequestStateKey;
import dev.parley.runtime.internal.state.SealedPointers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Parley node: the actor system (a cluster member; of one when no seed nodes are set), the
 * journal, the sharded call entities, the tool executor and the request pipeline. Transport-free.
 */
public final class ParleyNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ParleyNode.class);

    private final ActorSystem<Void> system;
    private final ExecutorService toolExecutor;
    private final McpPipeline pipeline;
    private final ScheduledExecutorService housekeeping;

    private ParleyNode(
            ActorSystem<Void> system,
            ExecutorService toolExecutor,
            McpPipeline pipeline,
            ScheduledExecutorService housekeeping) {
        this.system = system;
        this.toolExecutor = toolExecutor;
        this.pipeline = pipeline;
        this.housekeeping = housekeeping;
    }

    /**
     * Starts building a node that serves {@code server}:
     *
     * <pre>{@code
     * ParleyNode node = ParleyNode.builder(server)
     *         .config(ConfigFactory.parseResourcesAnySyntax("application"))
     *         .journal(new JournalDatabase.SqliteFile(Path.of("data")))
     *         .stateKeyFile(Path.of("data", "request-state.key"))
     *         .start();
     * }</pre>
     */
    public static Builder builder(McpServerDefinition server) {
        return new Builder(server);
    }

    /** What a node is started with; {@link #journal} is required, the rest has defaults. */
    public static final class Builder {
        private final McpServerDefinition server;
        private String systemName = "parley";
        private Config config = ConfigFactory.empty();
        private JournalDatabase journal;
        private Path stateKeyFile;
        private Consumer<ActorSystem<Void>> whenSystemStarted = system -> {};

        private Builder(McpServerDefinition server) {
            this.server = Objects.requireNonNull(server, "server");
        }

        /** The actor system's name, {@code parley} unless set; every member of a cluster needs the same. */
        public Builder systemName(String systemName) {
            this.systemName = Objects.requireNonNull(systemName, "systemName");
            return this;
        }

        /**
         * The application's settings (without reference.conf), none unless set; {@link NodeConfig}
         * layers them with the system properties, the journal's settings and the defaults.
         */
        public Builder config(Config config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Where the journal lives; required. */
        public Builder journal(JournalDatabase journal) {
            this.journal = Objects.requireNonNull(journal, "journal");
            return this;
        }

        /**
         * Where a standalone node keeps its requestState key when {@code parley.request-state.keys}
         * is empty: read from this file, or generated and written there on the first start. Without
         * it, the node needs configured keys (a cluster's members must share them).
         */
        public Builder stateKeyFile(Path stateKeyFile) {
            this.stateKeyFile = Objects.requireNonNull(stateKeyFile, "stateKeyFile");
            return this;
        }

        /**
         * Runs {@code first} as soon as the actor system exists, before the cluster and sharding
         * start: work that needs only the system (the management endpoint) starts beside them.
         */
        public Builder whenSystemStarted(Consumer<ActorSystem<Void>> first) {
            this.whenSystemStarted = Objects.requireNonNull(first, "first");
            return this;
        }

        /**
         * Creates the journal schema, starts the actor system with the configuration
         * {@link NodeConfig} layers, joins the cluster (itself, without seed nodes) and starts
         * sharding for calls.
         *
         * @throws IllegalStateException without a journal, or without a requestState key
         */
        public ParleyNode start() {
            if (journal == null) {
                throw new IllegalStateException("a node needs a journal: call journal(...) before start()");
            }
            return ParleyNode.start(this);
        }

        /** The configured shared keys, or the one kept in {@link #stateKeyFile}. */
        private List<RequestStateKey> stateKeys(Config effective) {
            List<RequestStateKey> keys = new ArrayList<>();
            for (Config key : effective.getConfigList("parley.request-state.keys")) {
                keys.add(RequestStateKey.fromBase64(key.getString("id"), key.getString("secret")));
            }
            if (!keys.isEmpty()) {
                return keys;
            }
            if (stateKeyFile == null) {
                throw new IllegalStateException(
                        "no requestState key: configure parley.request-state.keys or call stateKeyFile(...)");
            }
            try {
                return List.of(RequestStateKey.loadOrCreate(stateKeyFile));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read or create the requestState key " + stateKeyFile, e);
            }
        }
    }

    private static ParleyNode start(Builder builder) {
        JournalDatabase database = builder.journal;
        McpServerDefinition server = builder.server;
        Config effective = NodeConfig.load(builder.config, database);
        ParleySettings settings = ParleySettings.from(effective);
        List<RequestStateKey> stateKeys = builder.stateKeys(effective);
        server.tools().forEach(ToolDefinition::compileInputSchema); // a schema the validator refuses stops the start
        // The journal's schema (and an H2 journal's move to SQLite) is made while the actor system
        // starts, on a second core; nothing reads or writes the journal before the join below.
        CompletableFuture<Void> schema = CompletableFuture.runAsync(
                () -> JournalSchema.create(database), task -> new Thread(task, "parley-journal-schema").start());
        String systemName = builder.systemName;
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), systemName, effective);
        try {
            schema.join();
        } catch (CompletionException e) {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().join();
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
        builder.whenSystemStarted.accept(system);
        ParleyMetrics.get(system); // the registry exists before the first entity or request reports to it
        if (NodeSharding.clustered(system)) {
            Cluster cluster = Cluster.get(system);
            // Without seed nodes a node forms its own cluster, unless Cluster Bootstrap joins it (kubernetes profile).
            if (effective.getStringList("pekko.cluster.seed-nodes").isEmpty() && settings.joinSelf()) {
                cluster.manager().tell(Join.create(cluster.selfMember().address()));
            }
            ClusterMembershipLog.start(system);
        } else {
            log.info(
                    "running alone (parley.cluster.mode = {}): no remoting, cluster or sharding",
                    effective.getString("parley.cluster.mode"));
        }
        // Handlers log with the MDC of the call they run for (CallMdc), and with none after it.
        ExecutorService toolExecutor = CallMdc.toolExecutor(settings.toolExecutorThreads(), threads("parley-tool"));
        ParleyMetrics.get(system).bindToolExecutor(toolExecutor); // executor_* metrics
        ParleyMetrics metrics = ParleyMetrics.get(system);
        CallerRuns requestThreadRuns = new CallerRuns(toolExecutor, settings.toolExecutorThreads());
        metrics.bindHandlerRuns(requestThreadRuns);
        // An entity's rounds run their blocking handlers on the entities' dispatcher, within the same slots.
        Executor posted = requestThreadRuns.postingTo(system.executionContext());
        Executor entityRuns = work -> posted.execute(CallMdc.carrying(work));
        ReplayEngine engine = new ReplayEngine(
                toolExecutor, new FailureReports(settings.showFailureDetails()), new ReplayEngine.Observer() {
                    @Override
                    public void fallbackTaken(CallTarget target, String mode) {
                        metrics.elicitationAnswered(target.name(), mode, "unanswerable", null);
                    }

                    @Override
                    public void asked(CallTarget target, List<AskedQuestion> questions) {
                        metrics.asked(questions);
                    }
                });
        ClusterSharding sharding = NodeSharding.of(system);
        ToolCallEntity.init(system, server, engine, entityRuns, settings.stepTimeout());
        SealedPointers codec = new SealedPointers(stateKeys, settings.requestStateLifetime(), Clock.systemUTC());
        ServerNotifications notifications = ServerNotifications.start(system, server);
        TaskRequests tasks = new TaskRequests(
                JournalAvailability.get(system),
                sharding,
                settings.askTimeout(),
                settings.askAttemptTimeout(),
                settings.tasks().pollInterval());
        TaskEntity.init(
                system,
                settings.tasks(),
                server,
                engine,
                entityRuns,
                view -> notifications.publishTask(view.principal(), view.taskId(), tasks.detailed(view)));

        sharding.init(Entity.of(
                SessionEntity.ENTITY_TYPE_KEY, entityContext -> SessionEntity.create(entityContext.getEntityId())));
        NodeHealth.get(system).shardingStarted();

        ScheduledExecutorService housekeeping =
                Executors.newSingleThreadScheduledExecutor(threads("parley-housekeeping"));
        // Pekko's CoordinatedShutdown stops the node (its JVM hook on SIGTERM, or close()); the pools go with it.
        system.getWhenTerminated().whenComplete((done, failure) -> {
            housekeeping.shutdownNow();
            toolExecutor.shutdownNow();
            requestThreadRuns.stop();
        });
        List<JournalRetention> retention = List.of(
                new JournalRetention(
                        database,
                        ToolCallEntity.ENTITY_TYPE_KEY.name() + "|",
                        settings.retentionAfter(),
                        Clock.systemUTC()),
                // A call left waiting goes once its requestState expired, not after the retention time.
                JournalRetention.abandoned(
                        database,
                        ToolCallEntity.ENTITY_TYPE_KEY.name() + "|",
                        settings.requestStateLifetime().plus(settings.retentionAbandonedMargin()),
                        JournalEvent.storedNames(CallEvent.TYPES, status -> !status.open),
                        Clock.systemUTC()),
                new JournalRetention(
                        database, TaskEntity.ENTITY_TYPE_KEY.name() + "|", settings.taskRetention(), Clock.systemUTC()),
                // A 2025-11-25 session idle this long is gone: its client gets 404 and initializes again.
                new JournalRetention(
                        database,
                        SessionEntity.ENTITY_TYPE_KEY.name() + "|",
                        settings.retentionAfter(),
                        Clock.systemUTC()));
        JournalCompaction compaction = new JournalCompaction(database, settings.retentionCompactTime());
        every(
                housekeeping,
                settings.retentionInterval(),
                () -> compaction.afterRetention(
                        retention.stream().mapToInt(JournalRetention::purge).sum()));
        watchDisk(system, settings.quotas(), database);
        OpenEntities open = new OpenEntities(new JournalQueries(database));
        JournalGauges gauges = new JournalGauges(open, ParleyMetrics.get(system).registry());
        housekeeping.schedule(gauges, 0, TimeUnit.MILLISECONDS);
        scanEvery(housekeeping, settings.journalScanInterval(), gauges);
        TaskResumer resumer = new TaskResumer(open, sharding);
        housekeeping.schedule(resumer, 0, TimeUnit.MILLISECONDS);
        scanEvery(housekeeping, settings.taskResumeInterval(), resumer);
        return new ParleyNode(
                system,
                toolExecutor,
                new McpPipeline(
                        system, server, engine, codec, sharding, settings, notifications, tasks, requestThreadRuns),
                housekeeping);
    }

    /** The disk watermark watches parley.quotas.disk.path, or the embedded journal's directory. */
    private static void watchDisk(ActorSystem<?> system, QuotaSettings quotas, JournalDatabase database) {
        QuotaSettings.Disk disk = quotas.disk();
        String configured = disk.path();
        Path directory = !configured.isEmpty()
                ? Path.of(configured)
                : database instanceof JournalDatabase.H2File h2
                        ? h2.directory()
                        : database instanceof JournalDatabase.SqliteFile sqlite ? sqlite.directory() : null;
        if (quotas.enabled() && directory != null) {
            DiskWatermark.get(system).watch(directory, disk.minFreeBytes(), disk.checkInterval());
        }
    }

    /** While the journal is away every run fails; a few lines a minute say so. */
    private static final dev.parley.runtime.internal.logging.RateLimitedLog housekeepingFailures =
            dev.parley.runtime.internal.logging.RateLimitedLog.perMinute(log, org.slf4j.event.Level.WARN, 2);

    private static void every(ScheduledExecutorService executor, Duration interval, Runnable work) {
        executor.scheduleWithFixedDelay(
                () -> {
                    try {
                        work.run();
                    } catch (RuntimeException e) {
                        housekeepingFailures.log("housekeeping run failed; will retry: {}", e.toString());
                    }
                },
                interval.toMillis(),
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** A scan may take at most this share of the housekeeping thread, however large the journal grows. */
    private static final int SCAN_SHARE = 20;

    /**
     * Runs {@code scan} (a query over the whole journal) every {@code interval}, or, once one run
     * takes longer than {@code interval / 20}, 19 times that run's duration after it: a grown
     * journal makes the gauges older, never the scan a load on the node. (A profile of a node
     * under MRTR load found the gauges' scan in 15 % of its CPU samples after five minutes.)
     */
    private static void scanEvery(ScheduledExecutorService executor, Duration interval, Runnable scan) {
        executor.schedule(
                new Runnable() {
                    @Override
                    public void run() {
                        long started = System.nanoTime();
                        try {
                            scan.run();
                        } catch (RuntimeException e) {
                            housekeepingFailures.log("housekeeping run failed; will retry: {}", e.toString());
                        }
                        long took = System.nanoTime() - started;
                        try {
                            executor.schedule(this, nextScanDelayNanos(interval, took), TimeUnit.NANOSECONDS);
                        } catch (RejectedExecutionException stopped) {
                            // the node is stopping
                        }
                    }
                },
                interval.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /** How long after a scan that took {@code tookNanos} the next one starts. */
    static long nextScanDelayNanos(Duration interval, long tookNanos) {
        return Math.max(interval.toNanos(), (SCAN_SHARE - 1) * tookNanos);
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    public ActorSystem<Void> system() {
        return system;
    }

    public McpPipeline pipeline() {
        return pipeline;
    }

    /**
     * Runs Pekko's {@link CoordinatedShutdown} (not ready, drain, hand the shards over, leave the
     * cluster, stop the actor system and with it the journal's connection pool and the tool
     * executor); waits up to 60 s.
     */
    @Override
    public void close() {
        housekeeping.shutdownNow();
        CoordinatedShutdown.get(system).run(CoordinatedShutdown.unknownReason());
        try {
            system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("actor system did not stop in time", e);
        } finally {
            toolExecutor.shutdownNow();
        }
    }
}
