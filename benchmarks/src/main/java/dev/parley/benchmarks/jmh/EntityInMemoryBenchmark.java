package dev.parley.benchmarks.jmh;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The MRTR flow through a real {@link ToolCallEntity}, spawned directly (no sharding, no
 * cluster), on Pekko's in-memory journal ({@link PersistenceTestKitPlugin}, which still
 * serializes every event with Parley's journal serializer). Per flow, as the pipeline does it:
 * the first round runs through the engine, the entity starts and persists {@code CallStarted};
 * the retry persists the answers, re-runs the handler (two steps journaled through the entity)
 * and persists the completion. 16 JMH threads keep 16 flows in flight.
 */
@State(Scope.Benchmark)
public class EntityInMemoryBenchmark extends ParleyBenchmark {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The guardian: spawns call entities and stops them when their flow is done. */
    sealed interface GuardianCommand {}

    record Spawn(String callId, ActorRef<ActorRef<ToolCallEntity.Command>> replyTo) implements GuardianCommand {}

    record Stop(ActorRef<ToolCallEntity.Command> entity) implements GuardianCommand {}

    static Behavior<GuardianCommand> guardian(
            McpServerDefinition server, ReplayEngine engine, ExecutorService executor) {
        return Behaviors.setup(context -> Behaviors.receive(GuardianCommand.class)
                .onMessage(Spawn.class, spawn -> {
                    spawn.replyTo()
                            .tell(context.spawnAnonymous(ToolCallEntity.create(
                                    spawn.callId(),
                                    context.getSystem().ignoreRef(),
                                    server,
                                    engine,
                                    executor,
                                    Duration.ofSeconds(10))));
                    return Behaviors.same();
                })
                .onMessage(Stop.class, stop -> {
                    context.stop(stop.entity());
                    return Behaviors.same();
                })
                .build());
    }

    private ActorSystem<GuardianCommand> system;
    private ExecutorService toolExecutor;
    private ReplayEngine engine;
    private PersistenceTestKit journal;
    private final ToolDefinition<?> createInvoice = BenchTools.createInvoice();
    private final ObjectNode arguments = BenchTools.object(BenchTools.INVOICE_ARGUMENTS);
    private final ObjectNode inputResponses = BenchTools.object(BenchTools.INVOICE_ANSWERS);

    @Setup(Level.Trial)
    public void start() {
        initLogging();
        Config config = ConfigFactory.parseString("""
            pekko.loglevel = "WARNING"
            pekko.actor.provider = local
            """)
                .withFallback(PersistenceTestKitPlugin.getInstance().config())
                .withFallback(ConfigFactory.load());
        toolExecutor = Executors.newFixedThreadPool(16);
        engine = new ReplayEngine(toolExecutor);
        system = ActorSystem.create(guardian(BenchTools.server(), engine, toolExecutor), "bench-in-memory", config);
        journal = PersistenceTestKit.create(system);
    }

    /** The in-memory journal keeps every event: empty it between iterations. */
    @TearDown(Level.Iteration)
    public void clearJournal() {
        journal.clearAll();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        toolExecutor.shutdownNow();
    }

    @Benchmark
    @Threads(CONCURRENT_THREADS)
    public ToolCallEntity.Reply mrtrFlow() {
        RunOutcome first = engine.run(
                        createInvoice,
                        arguments,
                        RunEnvironment.of(BenchTools.PRINCIPAL, BenchTools.CAPABILITIES),
                        CallHistory.EMPTY,
                        StepJournal.NONE)
                .toCompletableFuture()
                .join();
        RunOutcome.NeedsInput needs = EngineBenchmark.expect(RunOutcome.NeedsInput.class, first);
        String callId = UUID.randomUUID().toString();
        ActorRef<ToolCallEntity.Command> entity = AskPattern.<GuardianCommand, ActorRef<ToolCallEntity.Command>>ask(
                        system, replyTo -> new Spawn(callId, replyTo), TIMEOUT, system.scheduler())
                .toCompletableFuture()
                .join();
        try {
            ToolCallEntity.Reply asked = AskPattern.<ToolCallEntity.Command, ToolCallEntity.Reply>ask(
                            entity,
                            replyTo -> new ToolCallEntity.Start(
                                    "tools/call",
                                    createInvoice.name(),
                                    arguments,
                                    BenchTools.PRINCIPAL,
                                    needs.newSteps(),
                                    needs.questions(),
                                    replyTo),
                            TIMEOUT,
                            system.scheduler())
                    .toCompletableFuture()
                    .join();
            EngineBenchmark.expect(ToolCallEntity.Asked.class, asked);
            ToolCallEntity.Reply finished = AskPattern.<ToolCallEntity.Command, ToolCallEntity.Reply>ask(
                            entity,
                            replyTo -> new ToolCallEntity.SubmitAnswers(
                                    1,
                                    inputResponses,
                                    BenchTools.PRINCIPAL,
                                    BenchTools.CAPABILITIES_JSON,
                                    false,
                                    null,
                                    replyTo),
                            TIMEOUT,
                            system.scheduler())
                    .toCompletableFuture()
                    .join();
            return EngineBenchmark.expect(ToolCallEntity.Finished.class, finished);
        } finally {
            system.tell(new Stop(entity));
        }
    }
}
