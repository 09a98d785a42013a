package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.engine.EarlyResult;
import java.util.function.Function;

/**
 * The answer to a typed form ({@link Elicitation#form(String, Class)}): the form's values as
 * an {@code R}, or a refusal.
 */
public sealed interface FormAnswer<R> {

    /** The user accepted; {@code value} is the form's content read as an {@code R}. */
    record Accepted<R>(R value) implements FormAnswer<R> {}

    record Declined<R>() implements FormAnswer<R> {}

    record Cancelled<R>() implements FormAnswer<R> {}

    /**
     * The accepted value; when the user declined or cancelled, the tool call ends here with the
     * result {@code onRefusal} makes (only in a tool handler).
     */
    default R orElseReturn(Function<Refusal, ToolResult> onRefusal) {
        if (this instanceof Accepted<R> accepted) {
            return accepted.value();
        }
        throw new EarlyResult(onRefusal.apply(this instanceof Declined ? Refusal.DECLINED : Refusal.CANCELLED));
    }

    /** Reads an untyped answer (already validated against the form's schema) as an {@code R}. */
    static <R> FormAnswer<R> of(ElicitAnswer answer, Class<R> type) {
        if (answer instanceof ElicitAnswer.Accepted accepted) {
            ObjectNode content = accepted.content();
            try {
                return new Accepted<>(Json.MAPPER.convertValue(content, type));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(
                        "the accepted answer does not convert to " + type.getSimpleName() + ": " + e.getMessage(), e);
            }
        }
        return answer instanceof ElicitAnswer.Declined ? new Declined<>() : new Cancelled<>();
    }
}
