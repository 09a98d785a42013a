package dev.parley.runtime.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.LogLevel;

/** What one run knows of the request it serves, and where its notifications go. */
public record RunEnvironment(
    String principal, ClientCapabilities capabilities, RequestSink sink, Cancellation cancellation) {

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
