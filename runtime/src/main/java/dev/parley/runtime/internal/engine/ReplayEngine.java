package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Fallback;
import dev.parley.runtime.InputAnswer;
import dev.parley.runtime.InputQuestion;
import dev.parley.runtime.Json;
import dev.parley.runtime.KeyedAction;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.McpException;
import dev.parley.runtime.RootsAnswer;
import dev.parley.runtime.RootsRequest;
import dev.parley.runtime.SamplingAnswer;
import dev.parley.runtime.SamplingRequest;
import dev.parley.runtime.UnsafeQuestionException;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a tool handler from the top against a recorded history (the determinism contract):
 * recorded answers and step results are replayed, the first unanswered question ends the run.
 *
 * <p>Why it is long: the determinism contract is enforced here in one place (what a run may read,
 * what it must record, how a divergence from the recorded history is reported), together with the
 * run context a handler sees; splitting it would spread one contract over several files.
 */
public final class ReplayEngine {
    private static final Logger log = LoggerFactory.getLogger(ReplayEngine.class);
    private static final String RESERVED_STEP_PREFIX = "parley.";
    /** The step holding the call's seed for {@code ctx.randomUuid()} (see {@link SeededUuids}). */
    static final String SEED_STEP = "parley.seed";
    /** The step that records a fallback taken for the question with the key that follows. */
    public static final String FALLBACK_STEP_PREFIX = "parley.fallback.";

    /** Hears what a node counts of its runs. */
    public interface Observer {
        Observer NONE = new Observer() {};

        /** A question of {@code target} in {@code mode} (form, url) could not be asked and its fallback was taken. */
        default void fallbackTaken(CallTarget target, String mode) {}

        /** A run of {@code target} ended asking {@code questions}. */
        default void asked(CallTarget target, List<AskedQuestion> questions) {}
    }

    /** Runs a blocking handler on the calling thread: for a caller that is a tool executor thread already. */
    public static final Executor CALLING_THREAD = Runnable::run;

    private final Executor toolExecutor;
    private final FailureReports failures;
    private final Observer observer;

    /** @param toolExecutor the bounded executor blocking handlers run on */
    public ReplayEngine(Executor toolExecutor) {
        this(toolExecutor, FailureReports.HIDDEN, Observer.NONE);
    }

    /** @param failures how handler failures are logged and shown (details hidden unless in development) */
    public ReplayEngine(Executor toolExecutor, FailureReports failures) {
        this(toolExecutor, failures, Observer.NONE);
    }

    /**
     * @param failures how handler failures are logged and shown (details hidden unless in development)
     * @param observer what the node counts of its runs
     */
    public ReplayEngine(Executor toolExecutor, FailureReports failures, Observer observer) {
        this.toolExecutor = toolExecutor;
        this.failures = failures;
        this.observer = observer;
    }

    /** Where {@link #run} runs blocking handlers. */
    public Executor toolExecutor() {
        return toolExecutor;
    }

    /**
     * One run of {@code target} over {@code history}. Blocking handlers run on the tool executor,
     * interruptible through the environment's {@link Cancellation}; async handlers run on the
     * calling thread. The returned stage never fails: every ending is a {@link RunOutcome}.
     */
    public CompletionStage<RunOutcome> run(
            CallTarget target,
            JsonNode arguments,
            RunEnvironment environment,
            CallHistory history,
            StepJournal journal) {
        return run(target, arguments, environment, history, journal, toolExecutor);
    }

    /**
     * As above, with a blocking handler run by {@code blockingRuns} ({@link #CALLING_THREAD}, a
     * {@link CallerRuns}) instead of the tool executor.
     */
    public CompletionStage<RunOutcome> run(
            CallTarget target,
            JsonNode arguments,
            RunEnvironment environment,
            CallHistory history,
            StepJournal journal,
            Executor blockingRuns) {
        RunContext context = new RunContext(target, environment, history, journal, observer);
        ObjectNode given = arguments instanceof ObjectNode o ? o : Json.object();
        Cancellation cancellation = environment.cancellation();
        Executor interruptible = work -> blockingRuns.execute(() -> cancellation.runInterruptibly(work));
        CompletableFuture<ObjectNode> result;
        try {
            result = target.invoke(given, context, interruptible).toCompletableFuture();
        } catch (RejectedExecutionException e) {
            log.warn("tool executor refused a run of {} {}", target.method(), target.name(), e);
            return CompletableFuture.completedFuture(new RunOutcome.Failed(
                    new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Server busy: the tool executor is full", null)));
        } catch (Throwable t) {
            result = CompletableFuture.failedFuture(t);
        }
        return result.handle((value, failure) -> {
            RunOutcome outcome = outcome(target, context, value, failure, failures);
            if (outcome instanceof RunOutcome.NeedsInput needs) {
                observer.asked(target, needs.questions());
            }
            return outcome;
        });
    }

    private static RunOutcome outcome(
            CallTarget target, RunContext context, ObjectNode value, Throwable failure, FailureReports failures) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (context.ending != null) {
            // The run reached an unanswered question (or one the client cannot answer). Whatever the
            // handler made of that afterwards (a catch (Throwable), an exceptionally(...)) is not an outcome.
            cause = context.ending;
        }
        if (context.journalFailure != null) {
            // A step ran but its result could not be journaled: not the call's fault, nothing to keep.
            return new RunOutcome.Failed(new ErrorObject(
                    ErrorCodes.JOURNAL_UNAVAILABLE, "The journal is unavailable; retry the request", null));
        }
        if (cause == null) {
            return new RunOutcome.Completed(value);
        }
        if (cause instanceof EarlyResult early) {
            // answer.orElseReturn(...): the tool's result for a declined or cancelled question.
            return Methods.TOOLS_CALL.equals(target.method())
                    ? new RunOutcome.Completed(early.result().toWire())
                    : new RunOutcome.Failed(new ErrorObject(
                            ErrorCodes.INTERNAL_ERROR,
                            "orElseReturn ends tool calls only; " + target.method() + " " + target.name() + " used it",
                            null));
        }
        boolean ranSteps;
        synchronized (context.newSteps) {
            ranSteps = !context.newSteps.isEmpty();
        }
        if (cause instanceof RoundEnds || cause instanceof BecomesTask) {
            context.carrySeed();
        }
        if (cause instanceof RoundEnds ends) {
            synchronized (context.newSteps) {
                return new RunOutcome.NeedsInput(ends.questions, new LinkedHashMap<>(context.newSteps), ranSteps);
            }
        }
        if (cause instanceof BecomesTask) {
            synchronized (context.newSteps) {
                return new RunOutcome.BecameTask(new LinkedHashMap<>(context.newSteps));
            }
        }
        if (cause instanceof MissingCapability missing) {
            ObjectNode data = Json.object();
            data.set("requiredCapabilities", missing.required);
            return new RunOutcome.Failed(new ErrorObject(
                    ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability", data));
        }
        if (cause instanceof McpException mcp) {
            return new RunOutcome.Failed(JsonRpc.ErrorObject.of(mcp));
        }
        FailureReports.Report report;
        if (context.environment.cancellation().isCancelled()) {
            // Expected: a cancelled handler stops by throwing (an interrupt, or its own check of isCancelled()).
            report = new FailureReports.Report(FailureReports.newReference(), null);
            log.debug(
                    "{} {} stopped after cancellation (reference {}): {}",
                    target.method(),
                    target.name(),
                    report.reference(),
                    cause.toString());
        } else if (cause instanceof UnsafeQuestionException unsafe) {
            // The author's mistake: the log says what and how to fix it; the client, which was
            // sent no question, learns only the reference.
            report = new FailureReports.Report(FailureReports.newReference(), null);
            log.error(
                    "{} {} built a question that breaks the elicitation safety rules; nothing was sent"
                            + " (reference {}): {}",
                    target.method(),
                    target.name(),
                    report.reference(),
                    unsafe.getMessage());
        } else {
            report = failures.report(target.method() + " " + target.name(), cause);
        }
        ObjectNode failureResult = target.resultForFailure(report.reference(), report.clientDetail());
        return failureResult != null
                ? new RunOutcome.Completed(failureResult)
                : new RunOutcome.Failed(new ErrorObject(
                        ErrorCodes.INTERNAL_ERROR, "Internal error (reference " + report.reference() + ")", null));
    }

    /**
     * Ends a run at its first unanswered question. An {@link Error}, so that a handler's
     * {@code catch (Exception e)} cannot swallow it.
     */
    private static final class RoundEnds extends Error {
        final List<AskedQuestion> questions;

        RoundEnds(List<AskedQuestion> questions) {
            super(null, null, false, false);
            this.questions = questions;
        }
    }

    /**
     * Ends a run whose step result could not be journaled (the journal went away). An
     * {@link Error}, so that a handler's {@code catch (Exception e)} cannot go on without it.
     */
    private static final class StepNotJournaled extends Error {
        StepNotJournaled(Throwable cause) {
            super("a step result could not be journaled", cause, false, false);
        }
    }

    /** Ends a synchronous run where the handler marked the start of its task. */
    private static final class BecomesTask extends Error {
        BecomesTask() {
            super(null, null, false, false);
        }
    }

    /** Ends a run that must ask something the client cannot answer. */
    private static final class MissingCapability extends Error {
        final ObjectNode required;

        MissingCapability(ObjectNode required) {
            super(null, null, false, false);
            this.required = required;
        }
    }

    private static final class RunContext implements CallContext {
        private final CallTarget target;
        private final Observer observer;
        private final RunEnvironment environment;
        private final CallHistory history;
        private final StepJournal journal;
        private final Map<String, JsonNode> newSteps = new LinkedHashMap<>();
        /** Set when a step's result could not be journaled: the run's outcome is then that. */
        private volatile Throwable journalFailure;

        private final Map<String, String> askedThisRun = new ConcurrentHashMap<>();
        /** The first round ending this run hit; set before it is thrown, read when the run is over. */
        private volatile Error ending;

        private int nowCount;
        private int uuidCount;

        RunContext(
                CallTarget target,
                RunEnvironment environment,
                CallHistory history,
                StepJournal journal,
                Observer observer) {
            this.target = target;
            this.observer = observer;
            this.environment = environment;
            this.history = history;
            this.journal = journal;
        }

        @Override
        public ElicitAnswer elicit(String key, Elicitation question) {
            return (ElicitAnswer) askAll(Map.of(key, question)).get(key);
        }

        @Override
        public ElicitAnswer elicit(String key, Elicitation question, Fallback<ObjectNode> fallback) {
            Objects.requireNonNull(fallback, "fallback");
            String step = FALLBACK_STEP_PREFIX + key;
            if (!history.steps().containsKey(step) && !cannotAsk(key, question)) {
                return elicit(key, question);
            }
            String mode = question instanceof Elicitation.Url ? "url" : "form";
            // Journaled like a step: a re-run takes the same branch even if a later client could be asked.
            JsonNode taken = recordedStep(step, JsonNode.class, () -> {
                observer.fallbackTaken(target, mode);
                if (fallback instanceof Fallback.Assuming<ObjectNode> assuming) {
                    ObjectNode accepted = Json.object().put("action", "accept");
                    accepted.set("content", assuming.answer());
                    return accepted;
                }
                return Json.object().put("action", "fallback");
            });
            if ("accept".equals(taken.path("action").asText())) {
                return ElicitAnswer.fromWire(taken);
            }
            if (fallback instanceof Fallback.Returning<ObjectNode> returning) {
                throw new EarlyResult(returning.result().apply(new Fallback.CannotAsk(mode)));
            }
            return new ElicitAnswer.Accepted(((Fallback.Assuming<ObjectNode>) fallback).answer());
        }

        /** Whether this round's client cannot be asked {@code question} and no earlier round has its answer. */
        private boolean cannotAsk(String key, Elicitation question) {
            if (question.supportedBy(environment.capabilities())) {
                return false;
            }
            CallHistory.RecordedAnswer recorded = history.answers().get(key);
            return recorded == null
                    || !recorded.fingerprint()
                            .equals(AskedQuestion.of(key, question.toInputRequest())
                                    .fingerprint());
        }

        @Override
        public Map<String, ElicitAnswer> elicitAll(Map<String, ? extends Elicitation> questions) {
            Map<String, ElicitAnswer> answers = new LinkedHashMap<>();
            askAll(questions).forEach((key, answer) -> answers.put(key, (ElicitAnswer) answer));
            return answers;
        }

        @Override
        @SuppressWarnings("deprecation")
        public SamplingAnswer sample(String key, SamplingRequest request) {
            Deprecations.warnOnce(Methods.SAMPLING_CREATE_MESSAGE);
            return (SamplingAnswer) askAll(Map.of(key, request)).get(key);
        }

        @Override
        @SuppressWarnings("deprecation")
        public RootsAnswer listRoots(String key) {
            Deprecations.warnOnce(Methods.ROOTS_LIST);
            return (RootsAnswer) askAll(Map.of(key, new RootsRequest())).get(key);
        }

        @Override
        public Map<String, InputAnswer> askAll(Map<String, ? extends InputQuestion> questions) {
            refuseAfterTheRoundEnded();
            Map<String, InputAnswer> answers = new LinkedHashMap<>();
            List<AskedQuestion> unanswered = new ArrayList<>();
            questions.forEach((key, question) -> {
                AskedQuestion asked = AskedQuestion.of(key, question.toInputRequest());
                String earlier = askedThisRun.putIfAbsent(key, asked.fingerprint());
                if (earlier != null && !earlier.equals(asked.fingerprint())) {
                    // Two questions under one key would overwrite each other's answers and ask forever.
                    throw new IllegalStateException("question key '" + key + "' was used for two different questions; "
                            + "keys must be unique within a call");
                }
                CallHistory.RecordedAnswer recorded = history.answers().get(key);
                if (recorded != null && recorded.fingerprint().equals(asked.fingerprint())) {
                    answers.put(key, InputAnswers.fromWire(question, recorded.response()));
                    return;
                }
                if (recorded != null) {
                    log.warn("question '{}' changed since it was answered; asking it again", key);
                }
                if (!question.supportedBy(environment.capabilities())) {
                    throw end(new MissingCapability(question.requiredCapability()));
                }
                unanswered.add(asked);
            });
            if (!unanswered.isEmpty()) {
                throw end(new RoundEnds(unanswered));
            }
            return answers;
        }

        /** A handler that swallowed its round ending goes no further: no more questions, no more steps. */
        private void refuseAfterTheRoundEnded() {
            Error ended = ending;
            if (ended != null) {
                throw ended;
            }
        }

        private synchronized Error end(Error ending) {
            if (this.ending == null) {
                this.ending = ending;
            }
            return ending;
        }

        @Override
        public <T> T step(String name, Class<T> type, Supplier<T> action) {
            if (name.startsWith(RESERVED_STEP_PREFIX)) {
                throw new IllegalArgumentException(
                        "step names starting with '" + RESERVED_STEP_PREFIX + "' are reserved");
            }
            return recordedStep(name, type, action);
        }

        @Override
        public <T> T step(String name, Class<T> type, KeyedAction<T> action) {
            if (name.startsWith(RESERVED_STEP_PREFIX)) {
                throw new IllegalArgumentException(
                        "step names starting with '" + RESERVED_STEP_PREFIX + "' are reserved");
            }
            // The key comes from the seed, which seed() journals (if it is new) before the action runs.
            return recordedStep(name, type, () -> action.perform(StepKeys.derive(seed(), name)));
        }

        private <T> T recordedStep(String name, Class<T> type, Supplier<T> action) {
            JsonNode recorded = history.steps().get(name);
            journal.reached(name, recorded != null);
            if (recorded == null) {
                refuseAfterTheRoundEnded();
                synchronized (newSteps) {
                    if (newSteps.containsKey(name)) {
                        throw new IllegalStateException(
                                "step '" + name + "' ran twice in one call; step names must be unique");
                    }
                }
                recorded = Json.tree(action.get());
                try {
                    journal.record(name, recorded);
                } catch (RuntimeException notJournaled) {
                    journalFailure = notJournaled;
                    throw new StepNotJournaled(notJournaled);
                }
                synchronized (newSteps) {
                    newSteps.put(name, recorded);
                }
            }
            try {
                return Json.MAPPER.treeToValue(recorded, type);
            } catch (Exception e) {
                throw new IllegalStateException(
                        "journaled result of step '" + name + "' is not a " + type.getName(), e);
            }
        }

        @Override
        public Instant now() {
            return Instant.parse(recordedStep(
                    "parley.now." + nowCount++,
                    String.class,
                    () -> Instant.now().toString()));
        }

        @Override
        public UUID randomUuid() {
            return SeededUuids.derive(seed(), uuidCount++);
        }

        /**
         * The call's seed: from its history, or made in this run. A call's first round runs with no
         * journal and its new steps, the seed among them, are journaled with the call's first event;
         * a later run whose history has none journals it as a step.
         */
        private synchronized String seed() {
            JsonNode recorded = history.steps().get(SEED_STEP);
            if (recorded == null) {
                synchronized (newSteps) {
                    recorded = newSteps.get(SEED_STEP);
                }
            }
            return recorded != null ? recorded.asText() : recordedStep(SEED_STEP, String.class, SeededUuids::newSeed);
        }

        /**
         * A call that goes on after this run carries a seed in its new steps, so that its later
         * rounds derive their UUIDs without a journal write.
         */
        private void carrySeed() {
            if (!history.steps().containsKey(SEED_STEP)) {
                synchronized (newSteps) {
                    newSteps.putIfAbsent(SEED_STEP, TextNode.valueOf(SeededUuids.newSeed()));
                }
            }
        }

        @Override
        public void progress(double done, Double total, String message) {
            environment.sink().progress(done, total, message);
        }

        @Override
        @SuppressWarnings("deprecation")
        public void log(LogLevel level, String logger, Object data) {
            Deprecations.warnOnce("logging (notifications/message)");
            environment.sink().log(level, logger, Json.tree(data));
        }

        @Override
        public void becomeTask() {
            refuseAfterTheRoundEnded();
            if (environment.taskMode() == RunEnvironment.TaskMode.MAY_BECOME_TASK) {
                throw end(new BecomesTask());
            }
        }

        @Override
        public boolean isTask() {
            return environment.taskMode() == RunEnvironment.TaskMode.TASK;
        }

        @Override
        public boolean isCancelled() {
            return environment.cancellation().isCancelled();
        }

        @Override
        public dev.parley.runtime.Principal principal() {
            return environment.principal();
        }

        @Override
        public ClientCapabilities clientCapabilities() {
            return environment.capabilities();
        }
    }
}
