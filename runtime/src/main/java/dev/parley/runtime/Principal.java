package dev.parley.runtime;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Who a request runs for. With authorization on, the issuer and subject of the caller's access
 * token (plus its client id, scopes and claims); with it off, {@link #ANONYMOUS}.
 *
 * <p>{@link #id()} is the stable key that {@code requestState}, task ownership and listen
 * subscriptions bind to: another principal's state or task id gets the answer an unknown one gets.
 * Scopes and claims are those of the token that came with the current request (the first
 * round's, or the retry's); a task's background run, which no request carries, knows only the
 * id (issuer and subject).
 */
public record Principal(
        String issuer, String subject, String clientId, Set<String> scopes, Map<String, Object> claims) {
    /** Every caller when authorization is off. */
    public static final Principal ANONYMOUS = new Principal(null, "anonymous", null, Set.of(), Map.of());

    public Principal {
        Objects.requireNonNull(subject, "subject");
        scopes = Set.copyOf(scopes);
        claims = Map.copyOf(claims);
    }

    /**
     * The binding key: {@code issuer#subject}, or the bare subject without an issuer. An issuer
     * identifier has no fragment (RFC 8414 §2), so the first {@code #} separates the two.
     */
    public String id() {
        return issuer == null ? subject : issuer + "#" + subject;
    }

    /** The principal a stored binding key names (issuer and subject only). */
    public static Principal fromId(String id) {
        Objects.requireNonNull(id, "id");
        int hash = id.indexOf('#');
        if (hash < 0) {
            return id.equals(ANONYMOUS.subject()) ? ANONYMOUS : new Principal(null, id, null, Set.of(), Map.of());
        }
        return new Principal(id.substring(0, hash), id.substring(hash + 1), null, Set.of(), Map.of());
    }

    public boolean hasScope(String scope) {
        return scopes.contains(scope);
    }

    /** Whether every scope in {@code needed} was granted. */
    public boolean hasScopes(Collection<String> needed) {
        return scopes.containsAll(needed);
    }
}
