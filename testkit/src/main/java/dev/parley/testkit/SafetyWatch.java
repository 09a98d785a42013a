package dev.parley.testkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Fallback;
import dev.parley.runtime.InputAnswer;
import dev.parley.runtime.InputQuestion;
import dev.parley.runtime.KeyedAction;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.Principal;
import dev.parley.runtime.RootsAnswer;
import dev.parley.runtime.SamplingAnswer;
import dev.parley.runtime.SamplingRequest;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.UnsafeQuestionException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Watches a target's runs for the elicitation safety rules, so the test kit and the replay check
 * can report them: the question a run built and the runtime refused (on a node the client only
 * gets a reference), and every form field the author marked as no secret, with the reason (which
 * never goes on the wire, so it is read from the questions the handler asks).
 */
final class SafetyWatch implements CallTarget {
    private final CallTarget target;
    private final Set<String> notSecrets = new LinkedHashSet<>();
    private volatile UnsafeQuestionException refused;

    SafetyWatch(CallTarget target) {
        this.target = target;
    }

    /** The refusal of the last run, if its handler built an unsafe question. */
    UnsafeQuestionException refused() {
        return refused;
    }

    /** What the last run did wrong, as a report says it after its subject. */
    String refusal() {
        return "builds a question that breaks the elicitation safety rules; a node sends nothing and ends the"
                + " call with an error: " + refused.getMessage();
    }

    /** One line per field marked as no secret in a question asked so far: question, field, reason. */
    List<String> notSecrets() {
        synchronized (notSecrets) {
            return List.copyOf(notSecrets);
        }
    }

    @Override
    public String method() {
        return target.method();
    }

    @Override
    public String name() {
        return target.name();
    }

    @Override
    public CompletionStage<ObjectNode> invoke(ObjectNode arguments, CallContext context, Executor blockingExecutor) {
        refused = null;
        CompletionStage<ObjectNode> run;
        try {
            run = target.invoke(arguments, new WatchedContext(context), blockingExecutor);
        } catch (RuntimeException | Error e) {
            run = CompletableFuture.failedFuture(e);
        }
        return run.whenComplete((result, failure) -> {
            for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                if (cause instanceof UnsafeQuestionException unsafe) {
                    refused = unsafe;
                }
            }
        });
    }

    @Override
    public ObjectNode resultForFailure(String reference, String detail) {
        return target.resultForFailure(reference, detail);
    }

    @Override
    public TaskSupport taskSupport() {
        return target.taskSupport();
    }

    @Override
    public Duration taskBudget() {
        return target.taskBudget();
    }

    private void noted(String key, InputQuestion question) {
        if (question instanceof Elicitation.Form form) {
            synchronized (notSecrets) {
                form.notSecrets()
                        .forEach((field, reason) -> notSecrets.add(
                                "question '" + key + "', field '" + field + "' is marked as no secret: " + reason));
            }
        }
    }

    /** The run's context, passed through; only the questions are looked at on their way. */
    @SuppressWarnings("deprecation")
    private final class WatchedContext implements CallContext {
        private final CallContext context;

        WatchedContext(CallContext context) {
            this.context = context;
        }

        @Override
        public ElicitAnswer elicit(String key, Elicitation question) {
            noted(key, question);
            return context.elicit(key, question);
        }

        @Override
        public ElicitAnswer elicit(String key, Elicitation question, Fallback<ObjectNode> fallback) {
            noted(key, question);
            return context.elicit(key, question, fallback);
        }

        @Override
        public Map<String, ElicitAnswer> elicitAll(Map<String, ? extends Elicitation> questions) {
            questions.forEach(SafetyWatch.this::noted);
            return context.elicitAll(questions);
        }

        @Override
        public Map<String, InputAnswer> askAll(Map<String, ? extends InputQuestion> questions) {
            questions.forEach(SafetyWatch.this::noted);
            return context.askAll(questions);
        }

        @Override
        public SamplingAnswer sample(String key, SamplingRequest request) {
            return context.sample(key, request);
        }

        @Override
        public RootsAnswer listRoots(String key) {
            return context.listRoots(key);
        }

        @Override
        public void log(LogLevel level, String logger, Object data) {
            context.log(level, logger, data);
        }

        @Override
        public <T> T step(String name, Class<T> type, Supplier<T> action) {
            return context.step(name, type, action);
        }

        @Override
        public <T> T step(String name, Class<T> type, KeyedAction<T> action) {
            return context.step(name, type, action);
        }

        @Override
        public Instant now() {
            return context.now();
        }

        @Override
        public UUID randomUuid() {
            return context.randomUuid();
        }

        @Override
        public void becomeTask() {
            context.becomeTask();
        }

        @Override
        public boolean isTask() {
            return context.isTask();
        }

        @Override
        public void progress(double done, Double total, String message) {
            context.progress(done, total, message);
        }

        @Override
        public boolean isCancelled() {
            return context.isCancelled();
        }

        @Override
        public Principal principal() {
            return context.principal();
        }

        @Override
        public ClientCapabilities clientCapabilities() {
            return context.clientCapabilities();
        }
    }
}
