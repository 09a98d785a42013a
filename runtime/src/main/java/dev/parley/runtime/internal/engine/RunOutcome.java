package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** How one run of a handler over a history ended. */
public sealed interface RunOutcome {

    /** The handler returned; {@code result} is the wire {@code CallToolResult}. */
    record Completed(ObjectNode result) implements RunOutcome {}

    /**
     * The handler asked questions its history cannot answer. {@code newSteps} are the steps this
     * run performed, in order, for a caller that journals them afterwards, and the seed a call that
     * goes on carries; {@code ranSteps} tells whether any of them ran (or used the seed).
     */
    record NeedsInput(List<AskedQuestion> questions, Map<String, JsonNode> newSteps, boolean ranSteps)
            implements RunOutcome {
        public NeedsInput {
            questions = List.copyOf(questions);
            newSteps = Collections.unmodifiableMap(new LinkedHashMap<>(newSteps));
        }
    }

    /**
     * The handler reached {@code ctx.becomeTask()} in a run that may become a task: the rest runs
     * in the background. {@code newSteps} as for {@link NeedsInput}.
     */
    record BecameTask(Map<String, JsonNode> newSteps) implements RunOutcome {}

    /** The call ends with a JSON-RPC error (the handler threw an {@code McpException}, or -32021). */
    record Failed(ErrorObject error) implements RunOutcome {}
}
