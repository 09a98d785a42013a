package dev.parley.runtime.internal.engine;

/**
 * Cancellation of one run: a flag the handler polls ({@code ctx.isCancelled()}) and an
 * interrupt for the thread a blocking handler runs on.
 */
public final class Cancellation {
    private boolean cancelled;
    private Thread runner;
    private final java.util.List<Runnable> listeners = new java.util.ArrayList<>();

    public void cancel() {
        java.util.List<Runnable> toNotify;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            if (runner != null) {
                runner.interrupt();
            }
            toNotify = java.util.List.copyOf(listeners);
        }
        toNotify.forEach(Runnable::run);
    }

    /** Runs {@code listener} on cancellation (at once if already cancelled), e.g. to cancel remote work. */
    public void onCancel(Runnable listener) {
        synchronized (this) {
            if (!cancelled) {
                listeners.add(listener);
                return;
            }
        }
        listener.run();
    }

    public synchronized boolean isCancelled() {
        return cancelled;
    }

    /** Runs {@code work} on the current thread so that {@link #cancel()} interrupts it. */
    void runInterruptibly(Runnable work) {
        synchronized (this) {
            runner = Thread.currentThread();
            if (cancelled) {
                runner.interrupt();
            }
        }
        try {
            work.run();
        } finally {
            synchronized (this) {
                runner = null;
            }
            Thread.interrupted(); // a pool thread must not carry this run's interrupt into the next task
        }
    }
}
