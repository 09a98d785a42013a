package dev.parley.runtime.internal.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a blocking handler runs. A request's first round runs on the request's own thread when
 * that thread is a fork-join worker (one of Pekko's dispatcher threads, serving the request's
 * connection) and fewer than {@code slots} handlers run that way; an entity's round is posted to
 * the entities' dispatcher ({@link #postingTo}) within the same slots; otherwise a run goes to the
 * tool executor.
 *
 * <p>Why: handing a short handler to the tool executor, and its outcome back to a dispatcher
 * thread, wakes two threads per run, which was a quarter to a third of a one-round call's CPU on
 * two cores. A run here is a {@linkplain ForkJoinPool#managedBlock managed block}: while it lasts,
 * the pool lets another worker stand in for the blocked one, so actors and other connections
 * keep being served. Only the request's own connection waits, as it would for the answer anyway.
 */
public final class CallerRuns implements Executor {
    private final Executor toolExecutor;
    private final Semaphore slots;
    // where runs ran, counted for the node's metrics
    private final LongAdder onRequestThreads = new LongAdder();
    private final LongAdder posted = new LongAdder();
    private final LongAdder toToolExecutor = new LongAdder();
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    /** @param slots how many handlers may run on dispatcher threads at once (the tool executor's size) */
    public CallerRuns(Executor toolExecutor, int slots) {
        this.toolExecutor = toolExecutor;
        this.slots = new Semaphore(slots);
    }

    @Override
    public void execute(Runnable work) {
        if (stopped || !(Thread.currentThread() instanceof ForkJoinWorkerThread) || !slots.tryAcquire()) {
            handToToolExecutor(work);
            return;
        }
        onRequestThreads.increment();
        runHoldingSlot(work);
    }

    /**
     * Where an entity's rounds run their blocking handlers: each run is posted to {@code pool}
     * (the entities' fork-join dispatcher) and runs there as above, within the same slots. That
     * saves waking a tool executor thread for it, and a dispatcher thread for its outcome. With
     * the slots taken, or a pool whose threads are not fork-join workers, a run goes to the tool
     * executor.
     */
    public Executor postingTo(Executor pool) {
        return work -> {
            if (stopped || !slots.tryAcquire()) {
                handToToolExecutor(work);
                return;
            }
            try {
                pool.execute(() -> {
                    try {
                        if (stopped || !(Thread.currentThread() instanceof ForkJoinWorkerThread)) {
                            slots.release();
                            handToToolExecutor(work);
                        } else {
                            posted.increment();
                            runHoldingSlot(work);
                        }
                    } catch (RejectedExecutionException nodeStopped) {
                        // the tool executor is shut down: the run is dropped, as its queued runs are
                    }
                });
            } catch (RejectedExecutionException poolStopped) {
                slots.release();
                handToToolExecutor(work);
            }
        };
    }

    private void handToToolExecutor(Runnable work) {
        toToolExecutor.increment();
        toolExecutor.execute(work);
    }

    private void runHoldingSlot(Runnable work) {
        Thread thread = Thread.currentThread();
        running.add(thread);
        try {
            ForkJoinPool.managedBlock(new Run(work));
        } catch (InterruptedException poolStopping) {
            // Thrown before the work runs, by a pool that is shutting down (JDK 21 on): the tool
            // executor answers for it as it does for any run of a stopping node.
            toolExecutor.execute(work);
        } finally {
            running.remove(thread);
            Thread.interrupted(); // an interrupt from stop() must not stay with a dispatcher thread
            slots.release();
        }
    }

    /** Runs under way on dispatcher threads. */
    public int runsUnderWay() {
        return running.size();
    }

    /** Runs started on their request's own thread, posted to the dispatcher, and handed to the tool executor. */
    public long ranOnRequestThreads() {
        return onRequestThreads.sum();
    }

    public long ranPosted() {
        return posted.sum();
    }

    public long handedToToolExecutor() {
        return toToolExecutor.sum();
    }

    /** The node stops: runs under way are interrupted, as the tool executor's are, and no more start here. */
    public void stop() {
        stopped = true;
        running.forEach(Thread::interrupt);
    }

    private static final class Run implements ForkJoinPool.ManagedBlocker {
        private final Runnable work;
        private boolean done;

        Run(Runnable work) {
            this.work = work;
        }

        @Override
        public boolean block() {
            work.run();
            done = true;
            return true;
        }

        @Override
        public boolean isReleasable() {
            return done;
        }
    }
}
