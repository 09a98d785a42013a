package dev.parley.http.internal.auth;

import java.util.Arrays;
import java.util.List;

final class Scopes {
    private Scopes() {}

    /** A space-separated scope string (RFC 6749 §3.3) as its scope tokens. */
    static List<String> split(String scope) {
        return Arrays.stream(scope.trim().split(" +")).filter(s -> !s.isEmpty()).toList();
    }
}
