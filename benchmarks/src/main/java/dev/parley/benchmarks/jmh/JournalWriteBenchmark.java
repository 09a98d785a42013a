package dev.parley.benchmarks.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.EntityIds;
import dev.parley.actors.internal.NodeSharding;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalEventSerializer;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
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
 * Journal write rate of call events on the H2 file journal, in events per second, against the
 * practical ceiling: the same rows inserted into the same {@code event_journal} table of an H2
 * file database with plain batched JDBC (one transaction per batch).
 *
 * <p>{@code entityWrites}: {@code concurrency} calls are written at once, each through a real
 * {@link ToolCallEntity} reached by cluster sharding on a {@link ParleyNode}: {@code Start}
 * (persists {@code CallStarted}) then 15 {@code RecordStep} (each persists {@code StepRecorded}
 * and is acknowledged before the next, as a running handler does). {@code plainBatchedInserts}:
 * the same 16 events of the same {@code concurrency} calls, serialized by the same serializer,
 * inserted {@code concurrency} rows per batch and commit. Both write {@value #EVENTS} events per
 * operation (the score is events per second). Call ids are time-ordered ({@link EntityIds}) on both
 * sides, as a node makes them.
 */
@State(Scope.Benchmark)
public class JournalWriteBenchmark extends ParleyBenchmark {
    static final int EVENTS = 1024;
    static final int EVENTS_PER_CALL = 16;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Calls written at once; the plain insert's batch size. EVENTS must be a multiple of 16 × this. */
    @Param("64")
    public int concurrency;

    /** {@code shipped}: the journal settings as shipped; a number: {@code jdbc-journal.parallelism}. */
    @Param("shipped")
    public String journalParallelism;

    private CallEvent.CallStarted started;
    private List<CallEvent.StepRecorded> steps;

    // entity side
    private Path entityDirectory;
    private ParleyNode node;
    private ClusterSharding sharding;
    private ObjectNode arguments;
    private List<AskedQuestion> questions;

    // plain side
    private Path plainDirectory;
    private Connection connection;
    private PreparedStatement insert;
    private byte[] startedPayload;
    private byte[] stepPayload;
    private String startedManifest;
    private String stepManifest;

    @Setup(Level.Trial)
    public void start() throws Exception {
        if (EVENTS % (concurrency * EVENTS_PER_CALL) != 0) {
            throw new IllegalArgumentException("concurrency must divide " + EVENTS / EVENTS_PER_CALL);
        }
        arguments = BenchTools.object(BenchTools.INVOICE_ARGUMENTS);
        RunOutcome first = new ReplayEngine(Runnable::run)
                .run(
                        BenchTools.createInvoice(),
                        arguments,
                        RunEnvironment.of(BenchTools.PRINCIPAL, BenchTools.CAPABILITIES),
                        CallHistory.EMPTY,
                        StepJournal.NONE)
                .toCompletableFuture()
                .join();
        questions = EngineBenchmark.expect(RunOutcome.NeedsInput.class, first).questions();
        started = new CallEvent.CallStarted(
                "tools/call", "create_invoice", arguments, BenchTools.PRINCIPAL, Map.of(), questions, Instant.now());
        steps = new ArrayList<>();
        for (int i = 1; i < EVENTS_PER_CALL; i++) {
            steps.add(new CallEvent.StepRecorded(stepName(i), stepValue(i)));
        }
    }

    private static String stepName(int i) {
        return "step-" + i;
    }

    private static JsonNode stepValue(int i) {
        return TextNode.valueOf("INV-" + Integer.toHexString(0x10000000 + i));
    }

    // --- through the entity ---------------------------------------------------------------

    @State(Scope.Benchmark)
    public static class EntityJournal {
        @Setup(Level.Trial)
        public void start(JournalWriteBenchmark bench) {
            initLogging();
            bench.entityDirectory = BenchFiles.tempDirectory("parley-bench-journal-");
            bench.node = ParleyNode.builder(BenchTools.server())
                    .systemName("parley-bench")
                    .config(BenchTools.nodeConfig(bench.journalParallelism))
                    .journal(new JournalDatabase.H2File(bench.entityDirectory))
                    .stateKeyFile(bench.entityDirectory.resolve("request-state.key"))
                    .start();
            bench.sharding = NodeSharding.of(bench.node.system());
            bench.writeCall().join(); // waits for the cluster and the shard region
        }

        @TearDown(Level.Trial)
        public void stop(JournalWriteBenchmark bench) {
            bench.node.close();
            BenchFiles.delete(bench.entityDirectory);
        }
    }

    /** One call: Start, then 15 steps, each acknowledged before the next. */
    CompletableFuture<Void> writeCall() {
        EntityRef<ToolCallEntity.Command> entity =
                sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, EntityIds.next());
        CompletableFuture<?> chain = PekkoStages.direct(entity.<ToolCallEntity.Reply>ask(
                replyTo -> new ToolCallEntity.Start(
                        "tools/call", "create_invoice", arguments, BenchTools.PRINCIPAL, Map.of(), questions, replyTo),
                TIMEOUT));
        for (int i = 1; i < EVENTS_PER_CALL; i++) {
            String name = stepName(i);
            JsonNode value = stepValue(i);
            chain = chain.thenCompose(previous -> PekkoStages.direct(
                    entity.<Done>ask(replyTo -> new ToolCallEntity.RecordStep(name, value, replyTo), TIMEOUT)));
        }
        return chain.thenApply(done -> null);
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void entityWrites(EntityJournal journal) throws Exception {
        for (int round = 0; round < EVENTS / (concurrency * EVENTS_PER_CALL); round++) {
            CompletableFuture<?>[] calls = new CompletableFuture<?>[concurrency];
            for (int i = 0; i < concurrency; i++) {
                calls[i] = writeCall();
            }
            CompletableFuture.allOf(calls).get(60, TimeUnit.SECONDS);
        }
    }

    // --- plain batched JDBC ---------------------------------------------------------------

    @State(Scope.Benchmark)
    public static class PlainJournal {
        @Setup(Level.Trial)
        public void start(JournalWriteBenchmark bench) throws SQLException {
            bench.plainDirectory = BenchFiles.tempDirectory("parley-bench-plain-");
            JournalDatabase database = new JournalDatabase.H2File(bench.plainDirectory);
            JournalSchema.create(database);
            JournalEventSerializer serializer = new JournalEventSerializer();
            bench.startedPayload = serializer.toBinary(bench.started);
            bench.startedManifest = serializer.manifest(bench.started);
            bench.stepPayload = serializer.toBinary(bench.steps.get(0));
            bench.stepManifest = serializer.manifest(bench.steps.get(0));
            bench.connection = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
            bench.connection.setAutoCommit(false);
            bench.insert = bench.connection.prepareStatement(BenchTools.PLAIN_JOURNAL_INSERT);
        }

        @TearDown(Level.Trial)
        public void stop(JournalWriteBenchmark bench) throws SQLException {
            bench.insert.close();
            bench.connection.close();
            BenchFiles.delete(bench.plainDirectory);
        }
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void plainBatchedInserts(PlainJournal journal) throws SQLException {
        String writer = UUID.randomUUID().toString();
        for (int round = 0; round < EVENTS / (concurrency * EVENTS_PER_CALL); round++) {
            String[] calls = new String[concurrency];
            for (int i = 0; i < concurrency; i++) {
                calls[i] = ToolCallEntity.ENTITY_TYPE_KEY.name() + "|" + EntityIds.next();
            }
            for (int sequence = 1; sequence <= EVENTS_PER_CALL; sequence++) {
                long now = System.currentTimeMillis();
                for (String call : calls) {
                    insert.setString(1, call);
                    insert.setLong(2, sequence);
                    insert.setString(3, writer);
                    insert.setLong(4, now);
                    insert.setBytes(5, sequence == 1 ? startedPayload : stepPayload);
                    insert.setInt(6, JournalEventSerializer.IDENTIFIER);
                    insert.setString(7, sequence == 1 ? startedManifest : stepManifest);
                    insert.addBatch();
                }
                insert.executeBatch();
                connection.commit();
            }
        }
    }
}
