package dev.parley.runtime.internal.state;

/**
 * A {@code requestState} that cannot be honoured. The message is the real cause, for the log
 * only; the client always gets the same -32602 answer.
 */
public final class InvalidRequestStateException extends Exception {
    public InvalidRequestStateException(String reason) {
        super(reason, null, false, false);
    }
}
