package dev.parley.http.internal.auth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.http.auth.AuthSettings;
import dev.parley.runtime.Json;
import dev.parley.runtime.Principal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opaque access tokens through RFC 7662 introspection, authenticated with this server's client
 * credentials. A result (active or not) is cached by the token's SHA-256 digest until the
 * token's {@code exp} or the configured TTL, whichever comes first; the token itself is never kept.
 */
final class TokenIntrospector {
    private static final Logger log = LoggerFactory.getLogger(TokenIntrospector.class);
    private static final int MAX_CACHED = 100_000;

    private record Cached(Optional<Principal> principal, Instant until) {}

    private final AuthSettings settings;
    private final HttpClient http;
    private final Clock clock;
    private final String authorization;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    TokenIntrospector(AuthSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.http = HttpClient.newBuilder()
                .connectTimeout(settings.introspection().timeout())
                .build();
        AuthSettings.Introspection introspection = settings.introspection();
        // RFC 6749 §2.3.1: client id and secret are form-encoded before the Basic encoding.
        this.authorization = "Basic "
                + Base64.getEncoder()
                        .encodeToString((form(introspection.clientId()) + ":" + form(introspection.clientSecret()))
                                .getBytes(StandardCharsets.UTF_8));
    }

    CompletionStage<Optional<Principal>> introspect(String token) {
        String digest = digest(token);
        Instant now = clock.instant();
        Cached cached = cache.get(digest);
        if (cached != null && now.isBefore(cached.until())) {
            return CompletableFuture.completedFuture(cached.principal());
        }
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(settings.introspection().endpoint()))
                .timeout(settings.introspection().timeout())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.ofString("token=" + form(token) + "&token_type_hint=access_token"))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(response -> {
                    if (response.statusCode() != 200) {
                        log.warn("introspection endpoint answered HTTP {}", response.statusCode());
                        return Optional.<Principal>empty(); // not cached: the next request asks again
                    }
                    JsonNode answer;
                    try {
                        answer = Json.MAPPER.readTree(response.body());
                    } catch (java.io.IOException e) {
                        log.warn("introspection endpoint answered no JSON: {}", e.getMessage());
                        return Optional.<Principal>empty();
                    }
                    Optional<Principal> principal = principalOf(answer, now);
                    remember(digest, principal, answer, now);
                    return principal;
                })
                .exceptionally(failure -> {
                    log.warn("introspection failed: {}", failure.getMessage());
                    return Optional.empty();
                });
    }

    /** Active, for this resource, from a trusted issuer (when it says), and not expired. */
    private Optional<Principal> principalOf(JsonNode answer, Instant now) {
        if (!answer.path("active").asBoolean(false)) {
            return Optional.empty();
        }
        long skew = settings.clockSkew().toSeconds();
        if (answer.has("exp") && now.getEpochSecond() > answer.path("exp").asLong() + skew) {
            return Optional.empty();
        }
        if (answer.has("nbf")
                && now.getEpochSecond() + skew < answer.path("nbf").asLong()) {
            return Optional.empty();
        }
        JsonNode aud = answer.path("aud");
        String resource = settings.resource().toString();
        boolean forUs = aud.isTextual()
                ? aud.asText().equals(resource)
                : aud.isArray()
                        && java.util.stream.StreamSupport.stream(aud.spliterator(), false)
                                .anyMatch(a -> a.asText().equals(resource));
        if (!forUs) {
            log.info("introspected token refused: audience {} is not {}", aud, resource);
            return Optional.empty();
        }
        String issuer = answer.path("iss").asText(null);
        if (issuer != null
                && !settings.issuers().isEmpty()
                && settings.issuers().stream().noneMatch(i -> i.issuer().equals(issuer))) {
            log.info("introspected token refused: issuer {} is not trusted", issuer);
            return Optional.empty();
        }
        String clientId = answer.path("client_id").asText(null);
        // A client-credentials token may have no sub; then the client is the subject.
        String subject = answer.path("sub").asText(clientId);
        if (subject == null) {
            return Optional.empty();
        }
        Set<String> scopes =
                new LinkedHashSet<>(Scopes.split(answer.path("scope").asText("")));
        Map<String, Object> claims = new LinkedHashMap<>(Json.MAPPER.convertValue(answer, Map.class));
        claims.values().removeIf(java.util.Objects::isNull);
        return Optional.of(new Principal(
                issuer != null ? issuer : settings.introspection().endpoint(), subject, clientId, scopes, claims));
    }

    private void remember(String digest, Optional<Principal> principal, JsonNode answer, Instant now) {
        Instant until = now.plus(settings.introspection().cacheTtl());
        if (answer.has("exp")) {
            Instant exp = Instant.ofEpochSecond(answer.path("exp").asLong());
            until = exp.isBefore(until) ? exp : until;
        }
        if (cache.size() >= MAX_CACHED) {
            cache.values().removeIf(entry -> !now.isBefore(entry.until()));
            if (cache.size() >= MAX_CACHED) {
                cache.clear();
            }
        }
        cache.put(digest, new Cached(principal, until));
    }

    /** The SHA-256 of a token, hex: what the caches keep instead of the token. */
    static String digest(String token) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String form(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
