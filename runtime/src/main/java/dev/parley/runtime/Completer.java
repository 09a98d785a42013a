package dev.parley.runtime;

import java.util.List;
import java.util.Map;

/**
 * Suggests values for a prompt argument or a resource-template variable
 * ({@code completion/complete}). At most 100 values are sent.
 */
@FunctionalInterface
public interface Completer {
    List<String> complete(String prefix, Map<String, String> otherArguments);
}
