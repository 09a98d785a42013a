package dev.parley.runtime;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/** Runs a blocking handler on the tool executor; whatever it throws fails the stage unchanged. */
final class BlockingHandlers {
    private BlockingHandlers() {}

    static <T> CompletionStage<T> run(Callable<T> handler, Executor executor) {
        CompletableFuture<T> result = new CompletableFuture<>();
        executor.execute(() -> {
            try {
                result.complete(handler.call());
            } catch (Throwable t) {
                // Not supplyAsync: it wraps a throwable in a CompletionException, whose stack trace is
                // filled in, and a round ends by throwing at its first unanswered question.
                result.completeExceptionally(t);
            }
        });
        return result;
    }
}
