package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * What a tool handler sees of its call. A handler is re-run from the top on every round and
 * after a failover; everything here that is not plain input is recorded the first time and
 * replayed afterwards (see the determinism contract in docs/guide.md).
 */
public interface CallContext {

    /**
     * Asks the user one question. Returns the recorded answer; with none recorded yet the round
     * ends here and the client is sent {@code input_required}. Keys are unique within a call.
     */
    ElicitAnswer elicit(String key, Elicitation question);

    /**
     * Asks a typed form ({@link Elicitation#form(String, Class)}): the recorded answer with the
     * form's values as an {@code R}. Same rules as {@link #elicit(String, Elicitation)}; the
     * question's fingerprint is that of its form.
     */
    default <R> FormAnswer<R> elicit(String key, Elicitation.TypedForm<R> question) {
        return FormAnswer.of(elicit(key, question.form()), question.answerType());
    }

    /**
     * Asks one question, or takes {@code fallback} when this round's client cannot be asked it
     * (it declared no elicitation, or not the question's mode): a result that ends the call, or
     * an assumed answer the handler goes on with. Otherwise as {@link #elicit(String, Elicitation)}.
     */
    ElicitAnswer elicit(String key, Elicitation question, Fallback<ObjectNode> fallback);

    /** Asks a typed form, or takes {@code fallback} when the client cannot be asked it. */
    default <R> FormAnswer<R> elicit(String key, Elicitation.TypedForm<R> question, Fallback<R> fallback) {
        return FormAnswer.of(elicit(key, question.form(), fallback.asContent()), question.answerType());
    }

    /** Asks several questions in one round; returns the answers in the order asked. */
    Map<String, ElicitAnswer> elicitAll(Map<String, ? extends Elicitation> questions);

    /**
     * Asks several questions of any kind in one round (elicitations, and the deprecated sampling
     * and roots requests); returns the answers in the order asked.
     */
    Map<String, InputAnswer> askAll(Map<String, ? extends InputQuestion> questions);

    /**
     * Asks the client's model for a completion.
     *
     * @deprecated Sampling is deprecated in MCP 2026-07-28; call a model provider directly.
     */
    @Deprecated
    SamplingAnswer sample(String key, SamplingRequest request);

    /**
     * Asks the client for its roots.
     *
     * @deprecated Roots are deprecated in MCP 2026-07-28; take paths as arguments.
     */
    @Deprecated
    RootsAnswer listRoots(String key);

    /**
     * Sends a {@code notifications/message} to the client, if the request asked for log messages
     * at this level or above ({@code _meta.io.modelcontextprotocol/logLevel}).
     *
     * @deprecated Logging is deprecated in MCP 2026-07-28; log to stderr or OpenTelemetry.
     */
    @Deprecated
    void log(LogLevel level, String logger, Object data);

    /**
     * Runs {@code action} once for the whole call, journals its result, and returns the journaled
     * result on every later run. Side effects (charging a card, sending a mail) belong in steps.
     * {@code name} must be unique within the call; {@code type} must round-trip through JSON.
     */
    <T> T step(String name, Class<T> type, Supplier<T> action);

    /**
     * A journaled step whose action is handed an idempotency key: the way to make an external
     * effect exactly-once. An action that ran just before a crash, before its result was
     * journaled, runs again on the next attempt, and gets the same key: the key is derived from
     * the call's identity (its secret seed, journaled with the call's first event and carried
     * into its task) and the step's name (unique within the call, so it names the occurrence).
     * It is the same on every re-run, on every node, and after the call became a task. Give it to
     * the system the effect happens in (an {@code Idempotency-Key} header, a unique column) so
     * that the second attempt is recognised there.
     */
    <T> T step(String name, Class<T> type, KeyedAction<T> action);

    /** The current time, recorded once per call site order, so re-runs see the same instant. */
    Instant now();

    /**
     * A random (version 4) UUID. The n-th value of a call derives from the call's secret random
     * seed, so re-runs get the same values in the same order without a journal write per value;
     * safe as an idempotency key for a step.
     */
    UUID randomUuid();

    /**
     * Marks where a task-capable tool's long part begins. Everything before (input rounds
     * included) runs synchronously; from here on the call continues as a task in the background
     * when the request declared the tasks extension. A no-op otherwise, and when the call already
     * runs as a task. Call it at most once, at the same point on every run.
     */
    void becomeTask();

    /** Whether this run is the background run of a task. */
    boolean isTask();

    /** Reports progress; a no-op when the client did not ask for progress. */
    void progress(double done, Double total, String message);

    /** Reports progress towards a known total ({@code ctx.progress(part, parts, "...")}, no casts). */
    default void progress(double done, double total, String message) {
        progress(done, Double.valueOf(total), message);
    }

    /** Reports progress without a known total. */
    default void progress(double done, String message) {
        progress(done, (Double) null, message);
    }

    /** True once the client has gone away (it closed the stream) or the call was cancelled. */
    boolean isCancelled();

    /**
     * Who the call runs for: issuer and subject of the caller's access token, with the client id,
     * scopes and claims of this round's token (a task's background run: issuer and subject only);
     * {@link Principal#ANONYMOUS} with authorization off.
     */
    Principal principal();

    /** What this round's request declared it can answer. */
    ClientCapabilities clientCapabilities();
}
