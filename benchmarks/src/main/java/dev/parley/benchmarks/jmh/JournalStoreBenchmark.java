package dev.parley.benchmarks.jmh;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.EntityIds;
import dev.parley.actors.internal.NodeSharding;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalEventSerializer;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.AnswerValidation;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The embedded journal store candidates ({@link StoreUnderTest}) under what a durable two-round
 * MRTR flow writes, in flows per second (3 events per flow).
 *
 * <p>{@code entityFlows}: {@value #IN_FLIGHT} flows in flight, each through a real
 * {@link ToolCallEntity} reached by cluster sharding on a {@link ParleyNode} whose journal is
 * pekko-persistence-jdbc on the store: a fresh persistence id is recovered as the node recovers a
 * new call, {@code Start} persists {@code CallStarted}, then the answer re-runs
 * the handler and persists {@code AnswersReceived} + {@code CallCompleted} in one atomic write.
 * {@code plainBatchedInserts}: the same rows, serialized by the same {@link JournalEventSerializer},
 * inserted into the same table with plain batched JDBC: {@value #IN_FLIGHT} flows' first rows in one
 * transaction, then their two-row writes in another (the ceiling of one writer on the store).
 * Call ids are time-ordered ({@link EntityIds}), as a node makes them.
 *
 * <p>Each measured iteration prints the CPU per flow: this JVM's CPU time plus, for PostgreSQL, its
 * server processes', over the iteration, divided by the flows it finished.
 */
@State(Scope.Benchmark)
public class JournalStoreBenchmark extends ParleyBenchmark {
    static final int IN_FLIGHT = 64;
    static final int FLOWS = 256;
    static final String TOOL = "confirm_invoice";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** {@code h2}, {@code sqlite}, {@code postgres} or {@code postgres-async} (see {@link StoreUnderTest}). */
    @Param({"h2", "sqlite", "postgres", "postgres-async"})
    public String store;

    private final AtomicLong flows = new AtomicLong();
    private final ObjectNode arguments = BenchTools.object(BenchTools.INVOICE_ARGUMENTS);
    private final ObjectNode answers = BenchTools.object(BenchTools.INVOICE_ANSWERS);
    private List<AskedQuestion> questions;
    private StoreUnderTest storeUnderTest;

    /**
     * The two-round tool of the flow: asks the currency, then completes. Unlike
     * {@link BenchTools#createInvoice()} it records no steps, so a flow journals exactly its three
     * events.
     */
    static ToolDefinition<BenchTools.CreateInvoice> confirmInvoice() {
        return ToolDefinition.tool(TOOL, BenchTools.CreateInvoice.class)
                .description("Confirms an invoice; asks for the currency.")
                .handler((args, ctx) -> {
                    ElicitAnswer answer = ctx.elicit("currency", BenchTools.currencyQuestion(args.client()));
                    String currency =
                            answer instanceof ElicitAnswer.Accepted accepted ? accepted.string("currency") : "none";
                    return ToolResult.text(
                            "Invoice for " + args.client() + ": " + args.amount() + " " + currency + ".");
                });
    }

    static McpServerDefinition server() {
        return McpServerDefinition.builder("parley-bench-store", "0.1.0")
                .tool(confirmInvoice())
                .build();
    }

    @Setup(Level.Trial)
    public void start() {
        questions = EngineBenchmark.expect(RunOutcome.NeedsInput.class, firstRound(arguments))
                .questions();
        storeUnderTest = StoreUnderTest.open(store);
    }

    @TearDown(Level.Trial)
    public void stop() {
        storeUnderTest.close();
    }

    JournalDatabase storeUnderTestDatabase() {
        return storeUnderTest.database();
    }

    static RunOutcome firstRound(ObjectNode arguments) {
        return run(arguments, CallHistory.EMPTY);
    }

    static RunOutcome run(ObjectNode arguments, CallHistory history) {
        return new ReplayEngine(Runnable::run)
                .run(
                        confirmInvoice(),
                        arguments,
                        RunEnvironment.of(BenchTools.PRINCIPAL, BenchTools.CAPABILITIES),
                        history,
                        StepJournal.NONE)
                .toCompletableFuture()
                .join();
    }

    // --- through the entity ---------------------------------------------------------------

    @State(Scope.Benchmark)
    public static class EntityJournal {
        ParleyNode node;
        ClusterSharding sharding;

        @Setup(Level.Trial)
        public void start(JournalStoreBenchmark bench) throws Exception {
            initLogging();
            node = ParleyNode.builder(server())
                    .systemName("parley-bench")
                    .config(BenchTools.nodeConfig(null))
                    .journal(bench.storeUnderTest.database())
                    .stateKeyFile(bench.storeUnderTest.directory().resolve("request-state.key"))
                    .start();
            sharding = NodeSharding.of(node.system());
            bench.flow(sharding, EntityIds.next())
                    .get(60, TimeUnit.SECONDS); // waits for the cluster and the shard region
        }

        @TearDown(Level.Trial)
        public void stop() {
            node.close();
        }
    }

    /** One flow: Start (persists CallStarted), then the answer (persists AnswersReceived + CallCompleted). */
    CompletableFuture<ToolCallEntity.Finished> flow(ClusterSharding sharding, String callId) {
        EntityRef<ToolCallEntity.Command> entity = sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, callId);
        return PekkoStages.direct(entity.<ToolCallEntity.Reply>ask(
                        replyTo -> new ToolCallEntity.Start(
                                "tools/call", TOOL, arguments, BenchTools.PRINCIPAL, Map.of(), questions, replyTo),
                        TIMEOUT))
                .thenCompose(reply -> {
                    ToolCallEntity.Asked asked = expect(ToolCallEntity.Asked.class, reply);
                    return PekkoStages.direct(entity.<ToolCallEntity.Reply>ask(
                            replyTo -> new ToolCallEntity.SubmitAnswers(
                                    asked.round(),
                                    answers,
                                    BenchTools.PRINCIPAL,
                                    BenchTools.CAPABILITIES_JSON,
                                    false,
                                    null,
                                    replyTo),
                            TIMEOUT));
                })
                .thenApply(reply -> {
                    flows.incrementAndGet();
                    return expect(ToolCallEntity.Finished.class, reply);
                });
    }

    private static <T> T expect(Class<T> type, ToolCallEntity.Reply reply) {
        if (!type.isInstance(reply)) {
            throw new IllegalStateException("expected " + type.getSimpleName() + " but got " + reply);
        }
        return type.cast(reply);
    }

    /** {@value #IN_FLIGHT} chains of flows, each starting its next flow when its last one finished. */
    @Benchmark
    @OperationsPerInvocation(FLOWS)
    public void entityFlows(EntityJournal journal) throws Exception {
        CompletableFuture<?>[] chains = new CompletableFuture<?>[IN_FLIGHT];
        for (int i = 0; i < IN_FLIGHT; i++) {
            CompletableFuture<?> chain = flow(journal.sharding, EntityIds.next());
            for (int f = 1; f < FLOWS / IN_FLIGHT; f++) {
                chain = chain.thenCompose(done -> flow(journal.sharding, EntityIds.next()));
            }
            chains[i] = chain;
        }
        CompletableFuture.allOf(chains).get(120, TimeUnit.SECONDS);
    }

    // --- plain batched JDBC ---------------------------------------------------------------

    /** The three rows of a flow, serialized as the journal serializes them. */
    record FlowRows(byte[][] payloads, String[] manifests) {
        static FlowRows of(JournalStoreBenchmark bench) {
            JournalEventSerializer serializer = new JournalEventSerializer();
            CallEvent.CallStarted started = new CallEvent.CallStarted(
                    "tools/call",
                    TOOL,
                    bench.arguments,
                    BenchTools.PRINCIPAL,
                    Map.of(),
                    bench.questions,
                    Instant.now());
            Map<String, CallHistory.RecordedAnswer> recorded =
                    AnswerValidation.answersTo(bench.questions, bench.answers);
            RunOutcome.Completed completed = EngineBenchmark.expect(
                    RunOutcome.Completed.class, run(bench.arguments, CallHistory.EMPTY.withAnswers(recorded)));
            List<CallEvent> events = List.of(
                    started,
                    new CallEvent.AnswersReceived(1, recorded),
                    new CallEvent.CallCompleted(1, completed.result()));
            byte[][] payloads = new byte[events.size()][];
            String[] manifests = new String[events.size()];
            for (int i = 0; i < events.size(); i++) {
                payloads[i] = serializer.toBinary(events.get(i));
                manifests[i] = serializer.manifest(events.get(i));
            }
            return new FlowRows(payloads, manifests);
        }
    }

    @State(Scope.Benchmark)
    public static class PlainJournal {
        Connection connection;
        PreparedStatement insert;
        FlowRows rows;

        @Setup(Level.Trial)
        public void start(JournalStoreBenchmark bench) throws SQLException {
            JournalDatabase database = bench.storeUnderTest.database();
            JournalSchema.create(database);
            rows = FlowRows.of(bench);
            connection = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
            connection.setAutoCommit(false);
            insert = connection.prepareStatement(BenchTools.PLAIN_JOURNAL_INSERT);
        }

        @TearDown(Level.Trial)
        public void stop() throws SQLException {
            insert.close();
            connection.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(FLOWS)
    public void plainBatchedInserts(PlainJournal journal) throws SQLException {
        for (int round = 0; round < FLOWS / IN_FLIGHT; round++) {
            String[] calls = new String[IN_FLIGHT];
            for (int i = 0; i < IN_FLIGHT; i++) {
                calls[i] = ToolCallEntity.ENTITY_TYPE_KEY.name() + "|" + EntityIds.next();
            }
            insertBatch(journal, calls, 0, 1);
            insertBatch(journal, calls, 1, 3);
            flows.addAndGet(IN_FLIGHT);
        }
    }

    /** Rows {@code from} (inclusive) to {@code to} (exclusive) of each call, in one transaction. */
    static void insertBatch(PlainJournal journal, String[] calls, int from, int to) throws SQLException {
        long now = System.currentTimeMillis();
        for (String call : calls) {
            for (int row = from; row < to; row++) {
                journal.insert.setString(1, call);
                journal.insert.setLong(2, row + 1);
                journal.insert.setString(3, "plain");
                journal.insert.setLong(4, now);
                journal.insert.setBytes(5, journal.rows.payloads()[row]);
                journal.insert.setInt(6, JournalEventSerializer.IDENTIFIER);
                journal.insert.setString(7, journal.rows.manifests()[row]);
                journal.insert.addBatch();
            }
        }
        journal.insert.executeBatch();
        journal.connection.commit();
    }

    // --- CPU per flow ---------------------------------------------------------------------

    private long iterationCpu;
    private long iterationFlows;

    @Setup(Level.Iteration)
    public void startIteration() {
        iterationCpu = cpuNanos();
        iterationFlows = flows.get();
    }

    @TearDown(Level.Iteration)
    public void endIteration() {
        long finished = flows.get() - iterationFlows;
        if (finished > 0) {
            System.out.printf(
                    " [cpu per flow %s: %.1f µs, %d flows]%n",
                    store, (cpuNanos() - iterationCpu) / 1e3 / finished, finished);
        }
    }

    private long cpuNanos() {
        long jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        return jvm + storeUnderTest.serverCpuNanos();
    }
}
