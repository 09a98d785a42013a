package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a tool does when its client cannot be asked a question: the client declared no
 * elicitation, or not the mode the question needs (a form, a URL). Given to
 * {@link CallContext#elicit(String, Elicitation.TypedForm, Fallback)}; a question asked
 * without one ends the call with {@code -32021} on 2026-07-28 (an error result on 2025-11-25).
 *
 * <p>A fallback taken is journaled like a step: re-runs of the call, on any node and after a
 * crash, take it again even if a later round's client could be asked.
 *
 * @param <A> what the question's answer is read as (the form's record, or its raw content)
 */
public sealed interface Fallback<A> {

    /**
     * Ends the call with the result {@code result} makes: typically a text that tells the user
     * what to supply and how (an argument that carries the answer up front).
     */
    static <A> Fallback<A> returning(Function<CannotAsk, ToolResult> result) {
        return new Returning<>(result);
    }

    /** Goes on as if the user had accepted {@code answer} (a default the tool can live with). */
    static <A> Fallback<A> assuming(A answer) {
        return new Assuming<>(answer);
    }

    record Returning<A>(Function<CannotAsk, ToolResult> result) implements Fallback<A> {
        public Returning {
            Objects.requireNonNull(result, "result");
        }
    }

    record Assuming<A>(A answer) implements Fallback<A> {
        public Assuming {
            Objects.requireNonNull(answer, "answer");
        }
    }

    /** This fallback for the question's raw content: an assumed answer becomes its JSON object. */
    default Fallback<ObjectNode> asContent() {
        if (this instanceof Assuming<A> assuming) {
            if (!(Json.tree(assuming.answer()) instanceof ObjectNode content)) {
                throw new IllegalArgumentException(
                        "an assumed answer is a record or a map of the form's fields, not " + assuming.answer());
            }
            return new Assuming<>(content);
        }
        return new Returning<>(((Returning<A>) this).result());
    }

    /** Why the question was not asked: the elicitation mode ({@code form}, {@code url}) the client lacks. */
    record CannotAsk(String mode) {
        /** A reason ready for a sentence, e.g. {@code "this client cannot show a form"}. */
        @Override
        public String toString() {
            return "url".equals(mode)
                    ? "this client cannot open a web page for the user"
                    : "this client cannot show a form";
        }
    }
}
