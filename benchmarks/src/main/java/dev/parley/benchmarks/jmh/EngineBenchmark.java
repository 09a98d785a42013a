package dev.parley.benchmarks.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.internal.engine.AnswerValidation;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.util.LinkedHashMap;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The replay engine alone, no journal and no actor: a one-round call, and the whole MRTR flow
 * of {@code create_invoice} (run → input_required, answers validated and recorded into a
 * {@link CallHistory}, re-run → complete). Blocking handlers run inline on the caller, so this is
 * the engine's own cost (argument validation, the handler, fingerprints, answer checks).
 */
@State(Scope.Benchmark)
public class EngineBenchmark extends ParleyBenchmark {
    private final ReplayEngine engine = new ReplayEngine(Runnable::run);
    private final ToolDefinition<?> checkAvailability = BenchTools.checkAvailability();
    private final ToolDefinition<?> createInvoice = BenchTools.createInvoice();
    private final ObjectNode callArguments = BenchTools.object(BenchTools.CALL_ARGUMENTS);
    private final ObjectNode invoiceArguments = BenchTools.object(BenchTools.INVOICE_ARGUMENTS);
    private final ObjectNode inputResponses = BenchTools.object(BenchTools.INVOICE_ANSWERS);

    private static RunEnvironment environment() {
        return RunEnvironment.of(BenchTools.PRINCIPAL, BenchTools.CAPABILITIES);
    }

    @Benchmark
    public RunOutcome oneRoundCall() {
        RunOutcome outcome = engine.run(
                        checkAvailability, callArguments, environment(), CallHistory.EMPTY, StepJournal.NONE)
                .toCompletableFuture()
                .join();
        return expect(RunOutcome.Completed.class, outcome);
    }

    @Benchmark
    public RunOutcome mrtrFlow() {
        RunOutcome first = engine.run(
                        createInvoice, invoiceArguments, environment(), CallHistory.EMPTY, StepJournal.NONE)
                .toCompletableFuture()
                .join();
        RunOutcome.NeedsInput needs = expect(RunOutcome.NeedsInput.class, first);
        Map<String, RecordedAnswer> answers = new LinkedHashMap<>();
        for (AskedQuestion question : needs.questions()) {
            JsonNode response = inputResponses.get(question.key());
            AnswerValidation.check(question, response);
            answers.put(question.key(), new RecordedAnswer(question.fingerprint(), response));
        }
        CallHistory history = new CallHistory(answers, needs.newSteps());
        Map<String, JsonNode> recorded = new LinkedHashMap<>();
        RunOutcome second = engine.run(createInvoice, invoiceArguments, environment(), history, recorded::put)
                .toCompletableFuture()
                .join();
        return expect(RunOutcome.Completed.class, second);
    }

    static <T> T expect(Class<T> type, Object value) {
        if (!type.isInstance(value)) {
            throw new IllegalStateException("expected " + type.getSimpleName() + " but got " + value);
        }
        return type.cast(value);
    }
}
