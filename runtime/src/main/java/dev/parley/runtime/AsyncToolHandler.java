package dev.parley.runtime;

import java.util.concurrent.CompletionStage;

/**
 * A non-blocking tool handler; it runs on the calling thread with no hand-off, so it must not
 * block. Same re-run contract as {@link ToolHandler}.
 */
@FunctionalInterface
public interface AsyncToolHandler<A> {
    CompletionStage<ToolResult> handle(A arguments, CallContext context);
}
