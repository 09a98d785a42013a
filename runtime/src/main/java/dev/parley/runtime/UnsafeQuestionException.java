package dev.parley.runtime;

/**
 * A question that breaks the {@link ElicitationSafety elicitation safety rules}: a form field
 * that asks for a secret, or an unsafe URL. Thrown where the question is built, so it is never
 * sent; a tool registration that declares such a form fails at start-up with it.
 */
public final class UnsafeQuestionException extends IllegalArgumentException {
    private final String field;

    public UnsafeQuestionException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The form field that asks for a secret; null for a URL question. */
    public String field() {
        return field;
    }
}
