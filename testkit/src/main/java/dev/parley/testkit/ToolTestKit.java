package dev.parley.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.internal.engine.AnswerValidation;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.CallRecording;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Drives one tool (or prompt, or resource) through its rounds in a plain unit test, with the
 * same replay engine a node runs it with, and without HTTP, actors or a journal:
 *
 * <pre>{@code
 * try (ToolTestKit kit = ToolTestKit.of(tools.scheduleRelease())) {
 *   kit.call(Map.of("service", "billing")).question("window");
 *   Round done = kit.answer("window", Map.of("window", "2026-12-01T10:00:00Z"));
 *   kit.assertStepRanOnce("schedule");
 * }
 * }</pre>
 *
 * Every round re-runs the handler from the top over the call's history (answers and journaled
 * steps), exactly as on a node; answers are checked against their question's schema first.
 * The kit counts how often each step's action really ran, so a test can show that a re-run
 * ({@link #rerun()}) repeats no effect.
 *
 * <p>A round whose handler builds a question that breaks the elicitation safety rules (a form
 * field that asks for a secret, an unsafe URL) fails the test with the rule's message; on a node
 * the call would end with an error. Fields marked as no secret are listed by {@link #notSecrets()}.
 */
public final class ToolTestKit implements AutoCloseable {
    private static final ClientCapabilities EVERYTHING = ClientCapabilities.of(
            Json.parse("{\"elicitation\":{\"form\":{},\"url\":{}},\"sampling\":{},\"roots\":{}}"));

    private final SafetyWatch target;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(work -> {
        Thread thread = new Thread(work, "parley-testkit-tool");
        thread.setDaemon(true);
        return thread;
    });
    private final ReplayEngine engine = new ReplayEngine(executor);
    private ClientCapabilities capabilities = EVERYTHING;
    private String principal = "test-user";
    private Duration timeout = Duration.ofSeconds(60);

    private ObjectNode arguments;
    private final Map<String, RecordedAnswer> answers = new LinkedHashMap<>();
    private final Map<String, JsonNode> steps = new LinkedHashMap<>();
    private final List<AskedQuestion> asked = new ArrayList<>();
    private final Map<String, Integer> actionRuns = new ConcurrentHashMap<>();
    private List<AskedQuestion> open = List.of();
    private Round last;
    private int rounds;

    private ToolTestKit(CallTarget target) {
        this.target = new SafetyWatch(target);
    }

    /** A kit for one tool, prompt or resource reader ({@code server.target(method, name)}). */
    public static ToolTestKit of(CallTarget target) {
        return new ToolTestKit(target);
    }

    /** A kit for the tool {@code name} of {@code server}. */
    public static ToolTestKit of(McpServerDefinition server, String toolName) {
        return new ToolTestKit(server.tool(toolName)
                .orElseThrow(() -> new IllegalArgumentException("the server has no tool '" + toolName + "'")));
    }

    /**
     * What the calling client declared (default: form and URL elicitation, sampling and roots);
     * {@code "{}"} is a client that cannot be asked anything, so the tool's fallbacks run.
     */
    public ToolTestKit capabilities(String clientCapabilitiesJson) {
        this.capabilities = ClientCapabilities.of(Json.parse(clientCapabilitiesJson));
        return this;
    }

    /** Who calls ({@code ctx.principal()}); default {@code test-user}. */
    public ToolTestKit principal(String principalId) {
        this.principal = principalId;
        return this;
    }

    /** How long one round may run (default one minute). */
    public ToolTestKit timeout(Duration timeout) {
        this.timeout = timeout;
        return this;
    }

    /**
     * Starts a new call with {@code arguments} (a record, a map or a JSON object) and runs its
     * first round. Forgets any earlier call of this kit.
     */
    public Round call(Object arguments) {
        JsonNode tree = arguments instanceof String text ? Json.parse(text) : Json.tree(arguments);
        if (!(tree instanceof ObjectNode object)) {
            throw new IllegalArgumentException("a call's arguments are a JSON object, not " + tree);
        }
        this.arguments = object;
        answers.clear();
        steps.clear();
        asked.clear();
        actionRuns.clear();
        open = List.of();
        rounds = 0;
        return run();
    }

    /** Accepts the open form question {@code key} with {@code content} (a record or a map of the form's fields). */
    public Round answer(String key, Object content) {
        ObjectNode response = Json.object().put("action", "accept");
        response.set("content", Json.tree(content));
        return respond(key, response);
    }

    /** Accepts the open question {@code key} without content (URL mode: the user says they went). */
    public Round accept(String key) {
        return respond(key, Json.object().put("action", "accept"));
    }

    public Round decline(String key) {
        return respond(key, Json.object().put("action", "decline"));
    }

    public Round cancel(String key) {
        return respond(key, Json.object().put("action", "cancel"));
    }

    /** Answers the open question {@code key} with a raw response ({@code ElicitResult}, {@code CreateMessageResult}, ...). */
    public Round respond(String key, JsonNode response) {
        AskedQuestion question = open.stream()
                .filter(q -> q.key().equals(key))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        open.isEmpty()
                                ? "the call asks nothing now (" + last + "); there is no question '" + key + "'"
                                : "no open question '" + key + "'; the call asks "
                                        + open.stream().map(AskedQuestion::key).toList()));
        try {
            AnswerValidation.check(question, response);
        } catch (McpException e) {
            // The node refuses such an answer with -32602 and records nothing; so does the kit.
            throw new IllegalArgumentException(
                    "the answer to '" + key + "' does not fit its question: " + e.getMessage(), e);
        }
        answers.put(key, new RecordedAnswer(question.fingerprint(), response));
        return run();
    }

    /**
     * Runs the handler again over the history as it stands, as a node does after a crash or for
     * a repeated retry: journaled steps return their recorded results and do not run again.
     */
    public Round rerun() {
        requireCall();
        return run();
    }

    /** The last round's ending. */
    public Round lastRound() {
        requireCall();
        return last;
    }

    /**
     * The form fields marked as no secret ({@code @NotASecret}, {@code FormField.notASecret}) in
     * the questions this kit's calls asked, one line each with the question, the field and the
     * author's reason.
     */
    public List<String> notSecrets() {
        return target.notSecrets();
    }

    /** How often the action of step {@code name} really ran in this call (0 if never). */
    public int stepRuns(String name) {
        return actionRuns.getOrDefault(name, 0);
    }

    /** Whether the call took the fallback of question {@code key}: its client could not be asked it. */
    public boolean tookFallback(String key) {
        requireCall();
        return steps.containsKey(ReplayEngine.FALLBACK_STEP_PREFIX + key);
    }

    /** Fails unless the action of step {@code name} ran exactly once. */
    public ToolTestKit assertStepRanOnce(String name) {
        int runs = stepRuns(name);
        if (runs != 1) {
            throw new AssertionError(
                    "step '" + name + "' ran " + runs + " times, expected once; steps run: " + actionRuns);
        }
        return this;
    }

    /** The journaled step results, in the order they were journaled (internal {@code parley.*} steps included). */
    public Map<String, JsonNode> steps() {
        return Map.copyOf(steps);
    }

    /** How many rounds ran (each run of the handler counts one). */
    public int rounds() {
        return rounds;
    }

    /**
     * The call as a node would export it: the input for {@link ReplayCheck}, so that a test can
     * record a call with one version of a tool and check another version against it.
     */
    public CallRecording recording() {
        requireCall();
        List<CallRecording.RecordedStep> recorded = new ArrayList<>();
        steps.forEach((name, value) -> recorded.add(new CallRecording.RecordedStep(name, value)));
        CallRecording.Status status = switch (last.ending()) {
            case INPUT_REQUIRED -> CallRecording.Status.INPUT_REQUIRED;
            case COMPLETED -> CallRecording.Status.COMPLETED;
            case FAILED -> CallRecording.Status.FAILED;
        };
        return new CallRecording(
                CallRecording.FORMAT,
                "testkit",
                CallRecording.Kind.CALL,
                target.method(),
                target.name(),
                arguments,
                recorded,
                asked,
                answers,
                status,
                last.ending() == Round.Ending.COMPLETED ? last.result() : null);
    }

    private Round run() {
        rounds++;
        StepJournal journal = (name, value) -> {
            actionRuns.merge(name, 1, Integer::sum);
            synchronized (steps) {
                steps.put(name, value);
            }
        };
        RunEnvironment environment =
                new RunEnvironment(principal, capabilities, RunEnvironment.RequestSink.NONE, new Cancellation());
        RunOutcome outcome;
        try {
            outcome = engine.run(target, arguments, environment, new CallHistory(answers, steps), journal)
                    .toCompletableFuture()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("round " + rounds + " did not end within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the round ran", e);
        } catch (Exception e) {
            throw new IllegalStateException("the round could not run", e);
        }
        if (target.refused() != null) {
            throw new AssertionError(
                    "round " + rounds + " of " + target.method() + " " + target.name() + " " + target.refusal(),
                    target.refused());
        }
        if (outcome instanceof RunOutcome.NeedsInput needs) {
            synchronized (steps) {
                needs.newSteps().forEach(steps::putIfAbsent);
            }
            open = needs.questions();
            asked.addAll(needs.questions());
            Map<String, JsonNode> questions = new LinkedHashMap<>();
            needs.questions().forEach(q -> questions.put(q.key(), q.request().params()));
            last = Round.asked(questions);
        } else if (outcome instanceof RunOutcome.Completed completed) {
            open = List.of();
            last = Round.completed(completed.result());
        } else if (outcome instanceof RunOutcome.Failed failed) {
            open = List.of();
            last = Round.failed(failed.error().code(), failed.error().message());
        } else {
            throw new IllegalStateException("a synchronous run cannot become a task");
        }
        return last;
    }

    private void requireCall() {
        if (arguments == null) {
            throw new IllegalStateException("no call yet: start one with call(arguments)");
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
