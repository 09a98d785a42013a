package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.LogLevel;

/** What one run knows of the request it serves, and where its notifications go. */
public record RunEnvironment(
    String principal, ClientCapabilities capabilities, RequestSink sink, Cancellation cancellation, TaskMode taskMode) {

  /** How {@code ctx.becomeTask()} behaves in this run. */
  public enum TaskMode {
    /** The call cannot become a task (no extension, or the tool forbids it): a no-op. */
    SYNCHRONOUS,
    /** The call may become a task: the run ends there with {@link RunOutcome.BecameTask}. */
    MAY_BECOME_TASK,
    /** This is the task's background run: a no-op. */
    TASK
  }

  public RunEnvironment(String principal, ClientCapabilities capabilities, RequestSink sink, Cancellation cancellation) {
    this(principal, capabilities, sink, cancellation, TaskMode.SYNCHRONOUS);
  }

  public static RunEnvironment of(String principal, ClientCapabilities capabilities) {
    return new RunEnvironment(principal, capabilities, RequestSink.NONE, new Cancellation());
  }

  /**
   * Request-scoped notifications of a run. The transport decides what reaches the client: no
   * progress without a progress token, no log messages below the request's log level.
   */
  public interface RequestSink {
    RequestSink NONE = new RequestSink() {};

    default void progress(double done, Double total, String message) {}

    default void log(LogLevel level, String logger, JsonNode data) {}
  }
}
