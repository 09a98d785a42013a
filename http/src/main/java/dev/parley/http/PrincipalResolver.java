package dev.parley.http;

import org.apache.pekko.http.javadsl.model.HttpRequest;

/**
 * Who sent a request. Every {@code requestState} is bound to it, so a state is useless to any
 * other principal. Plug in real authentication here; the default treats every caller as one.
 */
@FunctionalInterface
public interface PrincipalResolver {
  PrincipalResolver ANONYMOUS = request -> "anonymous";

  String principalOf(HttpRequest request);
}
