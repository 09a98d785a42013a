package dev.parley.runtime;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/** Runs a blocking handler on the tool executor; checked exceptions fail the stage unchanged. */
final class BlockingHandlers {
    private BlockingHandlers() {}

    static <T> CompletionStage<T> run(Callable<T> handler, Executor executor) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return handler.call();
                    } catch (RuntimeException | Error e) {
                        throw e;
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                },
                executor);
    }
}
