package dev.parley.http.auth;

import com.typesafe.config.Config;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** The {@code parley.auth} block of the configuration, read once at start. */
public record AuthSettings(
        boolean enabled,
        URI resource,
        List<URI> authorizationServers,
        List<Issuer> issuers,
        List<String> scopesSupported,
        Set<String> requiredScopes,
        Duration clockSkew,
        Jwks jwks,
        String sharedSecret,
        boolean listAll,
        Introspection introspection,
        Limits limits) {

    /** A trusted token issuer; its keys come from {@code jwksUri}, or from its metadata when that is empty. */
    public record Issuer(String issuer, String jwksUri) {}

    /** How long fetched key sets are kept, and how often an unknown {@code kid} may refetch them. */
    public record Jwks(Duration cacheTtl, Duration refetchInterval, Duration timeout) {}

    /** RFC 7662 introspection of opaque tokens; off when {@code endpoint} is empty. */
    public record Introspection(
            String endpoint, String clientId, String clientSecret, Duration cacheTtl, Duration timeout) {
        public boolean enabled() {
            return !endpoint.isBlank();
        }
    }

    /**
     * Token buckets per principal (all requests) and per principal and tool ({@code tools/call});
     * a rate of 0 turns that bucket off.
     */
    public record Limits(
            boolean enabled, double requestsPerSecond, int burst, double toolCallsPerSecond, int toolBurst) {}

    public static AuthSettings from(Config config) {
        Config auth = config.getConfig("parley.auth");
        Config jwks = auth.getConfig("jwks");
        Config introspection = auth.getConfig("introspection");
        Config limits = auth.getConfig("limits");
        AuthSettings settings = new AuthSettings(
                auth.getBoolean("enabled"),
                URI.create(auth.getString("resource")),
                auth.getStringList("authorization-servers").stream()
                        .map(URI::create)
                        .toList(),
                auth.getConfigList("issuers").stream()
                        .map(issuer -> new Issuer(
                                issuer.getString("issuer"),
                                // Truly optional (a list element has no defaults): without it the
                                // issuer's metadata names the key set.
                                issuer.hasPath("jwks-uri") ? issuer.getString("jwks-uri") : ""))
                        .toList(),
                List.copyOf(auth.getStringList("scopes-supported")),
                Set.copyOf(auth.getStringList("required-scopes")),
                auth.getDuration("clock-skew"),
                new Jwks(
                        jwks.getDuration("cache-ttl"),
                        jwks.getDuration("refetch-interval"),
                        jwks.getDuration("timeout")),
                auth.getString("shared-secret"),
                auth.getBoolean("list-all"),
                new Introspection(
                        introspection.getString("endpoint"),
                        introspection.getString("client-id"),
                        introspection.getString("client-secret"),
                        introspection.getDuration("cache-ttl"),
                        introspection.getDuration("timeout")),
                new Limits(
                        limits.getBoolean("enabled"),
                        limits.getDouble("requests-per-second"),
                        limits.getInt("burst"),
                        limits.getDouble("tool-calls-per-second"),
                        limits.getInt("tool-burst")));
        if (settings.enabled()) {
            settings.check();
        }
        return settings;
    }

    /** Refuses a configuration that cannot protect anything, at start rather than on the first request. */
    private void check() {
        if (!resource.isAbsolute() || resource.getFragment() != null) {
            throw new IllegalArgumentException(
                    "parley.auth.resource must be an absolute URI without a fragment: " + resource);
        }
        if (authorizationServers.isEmpty()) {
            throw new IllegalArgumentException(
                    "parley.auth.authorization-servers needs at least one authorization server");
        }
        if (issuers.isEmpty() && !introspection.enabled()) {
            throw new IllegalArgumentException(
                    "parley.auth needs issuers (JWT access tokens, also HS256 ones) or introspection.endpoint (opaque tokens)");
        }
        if (jwks.refetchInterval().compareTo(jwks.cacheTtl()) >= 0) {
            throw new IllegalArgumentException("parley.auth.jwks.refetch-interval must be shorter than jwks.cache-ttl");
        }
        if (!sharedSecret.isEmpty() && sharedSecret.length() < 32) {
            throw new IllegalArgumentException("parley.auth.shared-secret must be at least 32 characters (HS256)");
        }
    }
}
