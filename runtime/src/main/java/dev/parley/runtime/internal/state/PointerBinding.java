package dev.parley.runtime.internal.state;

import java.util.Objects;

/**
 * What a sealed pointer is bound to; a pointer opened under any other binding is refused. Each use
 * has its own factory, and no two uses can open each other's pointers: their {@code purpose}
 * differs.
 *
 * @param principal who may open it
 * @param purpose what it is: a {@code requestState}'s method ({@code tools/call}, ...),
 *     {@value #SERVER_REQUEST} or {@value #STREAM_EVENT}
 * @param scope where it is valid: the tool, prompt or resource; the question's key; the session
 * @param argumentsDigest a {@code requestState}'s arguments, as a digest; empty for the others
 */
public record PointerBinding(String principal, String purpose, String scope, String argumentsDigest) {
    static final String SERVER_REQUEST = "server-request";
    static final String STREAM_EVENT = "sse-event";

    public PointerBinding {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(purpose, "purpose");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(argumentsDigest, "argumentsDigest");
    }

    /** A {@code requestState}: who asked, which method, which tool (or prompt, or resource), which arguments. */
    public static PointerBinding requestState(String principal, String method, String name, String argumentsDigest) {
        return new PointerBinding(principal, method, name, argumentsDigest);
    }

    /** A 2025-11-25 server→client request's id: who it was sent to, and which question it asks. */
    public static PointerBinding serverRequestId(String principal, String questionKey) {
        return new PointerBinding(principal, SERVER_REQUEST, questionKey, "");
    }

    /** A 2025-11-25 call stream's event id: whose stream, and on which session. */
    public static PointerBinding streamEventId(String principal, String sessionId) {
        return new PointerBinding(principal, STREAM_EVENT, sessionId, "");
    }
}
