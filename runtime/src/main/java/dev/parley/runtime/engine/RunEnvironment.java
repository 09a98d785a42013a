package dev.parley.runtime.engine;

import dev.parley.runtime.ClientCapabilities;

import java.util.function.BooleanSupplier;

/** What one run knows of the request it serves. */
public record RunEnvironment(
    String principal, ClientCapabilities capabilities, ProgressListener progress, BooleanSupplier cancelled) {

  public static RunEnvironment of(String principal, ClientCapabilities capabilities) {
    return new RunEnvironment(principal, capabilities, ProgressListener.NONE, () -> false);
  }

  @FunctionalInterface
  public interface ProgressListener {
    ProgressListener NONE = (done, total, message) -> {};

    void progress(double done, Double total, String message);
  }
}
