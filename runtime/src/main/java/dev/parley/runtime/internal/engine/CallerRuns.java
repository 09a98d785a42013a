package dev.parley.runtime.internal.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Semaphore;

/**
 * Where a request's first round runs its blocking handler: on the request's own thread when that
 * thread is a fork-join worker (one of Pekko's dispatcher threads, serving the request's
 * connection) and fewer than {@code slots} handlers run that way; otherwise on the tool executor.
 *
 * <p>Why: handing a short handler to the tool executor, and its outcome back to the connection,
 * wakes two threads per call, which was a quarter to a third of a one-round call's CPU on two
 * cores. A run here is a {@linkplain ForkJoinPool#managedBlock managed block}: while it lasts,
 * the pool lets another worker stand in for the blocked one, so actors and other connections
 * keep being served. Only the request's own connection waits, as it would for the answer anyway.
 */
public final class CallerRuns implements Executor {
    private final Executor toolExecutor;
    private final Semaphore slots;
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    /** @param slots how many handlers may run on request threads at once (the tool executor's size) */
    public CallerRuns(Executor toolExecutor, int slots) {
        this.toolExecutor = toolExecutor;
        this.slots = new Semaphore(slots);
    }

    @Override
    public void execute(Runnable work) {
        Thread thread = Thread.currentThread();
        if (stopped || !(thread instanceof ForkJoinWorkerThread) || !slots.tryAcquire()) {
            toolExecutor.execute(work);
            return;
        }
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
