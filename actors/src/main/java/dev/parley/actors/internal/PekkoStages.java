package dev.parley.actors.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Continuations on the stages Pekko's Java API returns (asks, {@code toStrict}, stream
 * materialized values). Those are Scala futures seen through Scala's {@code FutureConverters},
 * whose non-async methods ({@code thenApply}, {@code handle}, ...) hop to the JDK's default
 * async pool; with fewer than three cores that pool is a new thread per continuation. A profile
 * of the demo under MRTR load found 40% of the server's CPU in system time, starting ~8,000
 * threads a second.
 */
public final class PekkoStages {
    private PekkoStages() {}

    /**
     * The same outcome as a plain {@link CompletableFuture}, completed on the thread that
     * completes {@code stage}: later continuations run there, as on any plain future.
     */
    public static <T> CompletableFuture<T> direct(CompletionStage<T> stage) {
        CompletableFuture<T> plain = new CompletableFuture<>();
        stage.whenCompleteAsync(
                (value, failure) -> {
                    if (failure != null) {
                        plain.completeExceptionally(failure);
                    } else {
                        plain.complete(value);
                    }
                },
                Runnable::run);
        return plain;
    }
}
