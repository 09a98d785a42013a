package dev.parley.runtime.engine;

/**
 * Cancellation of one run: a flag the handler polls ({@code ctx.isCancelled()}) and an
 * interrupt for the thread a blocking handler runs on.
 */
public final class Cancellation {
  private boolean cancelled;
  private Thread runner;

  public synchronized void cancel() {
    cancelled = true;
    if (runner != null) {
      runner.interrupt();
    }
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
