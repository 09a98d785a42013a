package dev.parley.http;

import org.apache.pekko.http.javadsl.model.HttpRequest;

/**
 * Who sent a request when {@code parley.auth} is off. Every {@code requestState} is bound to it,
 * so a state is useless to any other principal. The default treats every caller as one; with
 * {@code parley.auth.enabled} the caller's access token names the principal instead.
 */
@FunctionalInterface
public interface PrincipalResolver {
    PrincipalResolver ANONYMOUS = request -> "anonymous";

    String principalOf(HttpRequest request);
}
