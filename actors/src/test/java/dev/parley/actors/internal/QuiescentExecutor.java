package dev.parley.actors.internal;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tool executor that knows when nothing runs on it. A handler's outcome reaches its entity from
 * the thread that ran the handler ({@code pipeToSelf} tells the entity from the future's
 * completion), so once this executor is quiet, the outcome of every run is in the entity's
 * mailbox, and a command sent afterwards is handled after it.
 */
final class QuiescentExecutor implements Executor {
    private final ExecutorService delegate;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean refusing;

    QuiescentExecutor(int threads) {
        this.delegate = Executors.newFixedThreadPool(threads);
    }

    @Override
    public void execute(Runnable work) {
        if (refusing) {
            throw new RejectedExecutionException("refusing work, as the test asked");
        }
        inFlight.incrementAndGet();
        try {
            delegate.execute(() -> {
                try {
                    work.run();
                } finally {
                    inFlight.decrementAndGet();
                }
            });
        } catch (RejectedExecutionException e) {
            inFlight.decrementAndGet();
            throw e;
        }
    }

    /** While refusing, every {@code execute} throws {@link RejectedExecutionException}, as a full or stopping pool does. */
    void refuse(boolean refusing) {
        this.refusing = refusing;
    }

    int inFlight() {
        return inFlight.get();
    }

    /** Waits (bounded) until nothing runs or waits to run here; false if that did not happen in time. */
    boolean awaitQuiet(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (inFlight.get() > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    void shutdownNow() {
        delegate.shutdownNow();
    }
}
