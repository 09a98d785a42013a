package dev.parley.runtime;

/**
 * A blocking tool handler; it runs on Parley's bounded tool executor. It is re-run on every
 * round, so everything it does before its last question must be a {@link CallContext#step} or
 * free of side effects.
 */
@FunctionalInterface
public interface ToolHandler<A> {
    ToolResult handle(A arguments, CallContext context) throws Exception;
}
