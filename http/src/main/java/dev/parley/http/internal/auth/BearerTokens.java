package dev.parley.http.internal.auth;

import dev.parley.http.auth.AuthSettings;
import dev.parley.runtime.Principal;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The principal an {@code Authorization: Bearer} header names, validated as the MCP endpoint
 * validates it (a JWT from a configured issuer for this resource, or an opaque token through
 * introspection); empty for a missing, malformed or invalid token. For endpoints beside MCP
 * (the operations console) that decide on scopes themselves.
 */
public final class BearerTokens {
    private final JwtValidator jwts;
    private final TokenIntrospector introspector;

    public BearerTokens(AuthSettings settings) {
        this.jwts = new JwtValidator(settings);
        this.introspector =
                settings.introspection().enabled() ? new TokenIntrospector(settings, Clock.systemUTC()) : null;
    }

    public CompletionStage<Optional<Principal>> principalOf(Optional<String> authorization) {
        if (authorization.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        String value = authorization.get().trim();
        if (value.length() < 7
                || !value.substring(0, 7).equalsIgnoreCase("bearer ")
                || value.substring(7).isBlank()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        String token = value.substring(7).trim();
        if (JwtValidator.looksLikeJwt(token)) {
            return CompletableFuture.completedFuture(jwts.validate(token));
        }
        if (introspector != null) {
            return introspector.introspect(token);
        }
        return CompletableFuture.completedFuture(Optional.empty());
    }
}
