package dev.parley.runtime;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Pattern;

/** Checks scope names given to {@code requiredScopes(...)} (RFC 6749 §3.3 scope-token syntax). */
final class RequiredScopes {
    private static final Pattern SCOPE_TOKEN = Pattern.compile("[\\x21\\x23-\\x5B\\x5D-\\x7E]+");

    private RequiredScopes() {}

    static Set<String> of(String... scopes) {
        Set<String> checked = new LinkedHashSet<>();
        for (String scope : Arrays.asList(scopes)) {
            if (scope == null || !SCOPE_TOKEN.matcher(scope).matches()) {
                throw new IllegalArgumentException("not a valid OAuth scope: \"" + scope + "\"");
            }
            checked.add(scope);
        }
        return java.util.Collections.unmodifiableSet(checked);
    }
}
