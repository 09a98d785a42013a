package dev.parley.runtime.internal.engine;

import dev.parley.runtime.ToolResult;

/**
 * Ends a tool handler with a result before its last line ({@code answer.orElseReturn(...)}).
 * An {@link Error}, like the round ending, so that a handler's {@code catch (Exception e)}
 * does not swallow it; the replay engine turns it into the call's result.
 */
public final class EarlyResult extends Error {
    private final transient ToolResult result;

    public EarlyResult(ToolResult result) {
        super(null, null, false, false);
        this.result = java.util.Objects.requireNonNull(result, "the refusal's result");
    }

    public ToolResult result() {
        return result;
    }
}
