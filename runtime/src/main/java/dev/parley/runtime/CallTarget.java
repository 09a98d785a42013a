package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Something a request can run through the replay engine, and so answer with
 * {@code input_required}: a tool ({@code tools/call}), a prompt ({@code prompts/get}) or a
 * resource ({@code resources/read}). A durable call remembers its method, name and arguments
 * and finds its target again by them on every round.
 */
public interface CallTarget {

    /** {@code tools/call}, {@code prompts/get} or {@code resources/read}. */
    String method();

    /** The tool or prompt name, or the resource URI. */
    String name();

    /**
     * Checks the arguments and runs the handler once, returning the wire result. A blocking
     * handler runs on {@code blockingExecutor}. Fails with an {@code McpException} for a
     * JSON-RPC error.
     */
    CompletionStage<ObjectNode> invoke(ObjectNode arguments, CallContext context, Executor blockingExecutor);

    /**
     * The wire result when the handler threw something unexpected (a tool reports an
     * {@code isError} result), or null when that is a JSON-RPC internal error. The client sees
     * only the error {@code reference} the failure was logged under, and {@code detail} when the
     * development switch {@code parley.show-failure-details} is on (null otherwise).
     */
    ObjectNode resultForFailure(String reference, String detail);

    /** Whether this target may run as a task; only tools can. */
    default TaskSupport taskSupport() {
        return TaskSupport.FORBIDDEN;
    }

    /**
     * For an {@link TaskSupport#OPTIONAL} tool: how long a first round may run synchronously
     * before the call becomes a task anyway (null: only at {@code ctx.becomeTask()}).
     */
    default java.time.Duration taskBudget() {
        return null;
    }

    /**
     * Whether the target asks questions after {@code ctx.becomeTask()}: then a client that can be
     * asked nothing (no elicitation) runs it synchronously, so that a question's fallback (or its
     * {@code -32021}) comes in the response instead of from a task that fails later.
     */
    default boolean asksInTask() {
        return false;
    }
}
