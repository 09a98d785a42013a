package dev.parley.benchmarks.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.pipeline.McpPipeline;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.JsonRpc.Response;
import dev.parley.runtime.internal.wire.Mrtr.InputRequiredResult;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * A whole node below HTTP: a {@link ParleyNode} (cluster of one, sharding, the H2 file journal
 * in a temp directory, as the standalone server runs) answering {@link McpPipeline#handle}.
 * {@code mrtrFlow}: tools/call → input_required (entity started, {@code CallStarted} persisted,
 * {@code requestState} sealed) → retry (state opened, answers persisted, handler re-run with two
 * journaled steps, completion persisted) → complete. {@code oneRoundCall}: tools/call of a tool
 * that asks nothing (journals nothing). 16 JMH threads keep 16 requests in flight.
 */
@State(Scope.Benchmark)
public class EntityH2Benchmark extends ParleyBenchmark {
    private final AtomicLong ids = new AtomicLong();
    private final ObjectNode callArguments = BenchTools.object(BenchTools.CALL_ARGUMENTS);
    private final ObjectNode invoiceArguments = BenchTools.object(BenchTools.INVOICE_ARGUMENTS);
    private final ObjectNode inputResponses = BenchTools.object(BenchTools.INVOICE_ANSWERS);
    /** {@code shipped}: the journal settings as shipped; a number: {@code jdbc-journal.parallelism}. */
    @Param("shipped")
    public String journalParallelism;

    private Path directory;
    private ParleyNode node;
    private McpPipeline pipeline;

    @Setup(Level.Trial)
    public void start() {
        initLogging();
        directory = BenchFiles.tempDirectory("parley-bench-h2-");
        node = ParleyNode.builder(BenchTools.server())
                .systemName("parley-bench")
                .config(BenchTools.nodeConfig(journalParallelism))
                .journal(new JournalDatabase.H2File(directory))
                .stateKeyFile(directory.resolve("request-state.key"))
                .start();
        pipeline = node.pipeline();
        for (int i = 0; i < 20; i++) {
            mrtrFlow(); // the first flows wait for the cluster to be up and the shard region to start
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        node.close();
        BenchFiles.delete(directory);
    }

    private McpRequest request(ObjectNode params) {
        return new McpRequest(
                LongNode.valueOf(ids.incrementAndGet()),
                "tools/call",
                params,
                "2026-07-28",
                BenchTools.CAPABILITIES,
                BenchTools.PRINCIPAL,
                null,
                null);
    }

    static ObjectNode toolsCall(String tool, ObjectNode arguments) {
        ObjectNode params = Json.object().put("name", tool);
        params.set("arguments", arguments);
        return params;
    }

    private Response dispatch(McpRequest request) {
        try {
            return pipeline.handle(request)
                    .toCompletableFuture()
                    .get(60, TimeUnit.SECONDS)
                    .response();
        } catch (Exception e) {
            throw new IllegalStateException("dispatch failed", e);
        }
    }

    @Benchmark
    @Threads(CONCURRENT_THREADS)
    public Response mrtrFlow() {
        Response first = dispatch(request(toolsCall("create_invoice", invoiceArguments)));
        InputRequiredResult asked = EngineBenchmark.expect(InputRequiredResult.class, first.result());
        ObjectNode retry = toolsCall("create_invoice", invoiceArguments);
        retry.put("requestState", asked.requestState());
        retry.set("inputResponses", inputResponses);
        return complete(dispatch(request(retry)));
    }

    @Benchmark
    @Threads(CONCURRENT_THREADS)
    public Response oneRoundCall() {
        return complete(dispatch(request(toolsCall("check_availability", callArguments))));
    }

    /** The same call to a tool with a non-blocking handler (no hand-off to the tool executor). */
    @Benchmark
    @Threads(CONCURRENT_THREADS)
    public Response oneRoundCallAsync() {
        return complete(dispatch(request(toolsCall("check_availability_async", callArguments))));
    }

    static Response complete(Response response) {
        if (response.error() != null
                || !(response.result() instanceof JsonNode result)
                || !"complete".equals(result.path("resultType").asText())
                || result.path("isError").asBoolean(false)) {
            throw new IllegalStateException("expected a complete result but got " + Json.write(response));
        }
        return response;
    }
}
