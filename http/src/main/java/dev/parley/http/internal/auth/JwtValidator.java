package dev.parley.http.internal.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSKeySelector;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jose.util.ResourceRetriever;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import dev.parley.http.auth.AuthSettings;
import dev.parley.runtime.Json;
import dev.parley.runtime.Principal;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.Key;
import java.text.ParseException;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Validates JWT access tokens (RFC 9068) with nimbus-jose-jwt: signature against the issuer's
 * JWKS (cached; an unknown {@code kid} refetches it at most once per refetch interval, so keys
 * rotate without a restart), asymmetric algorithms only unless a shared secret is configured,
 * {@code iss} one of the configured issuers, {@code aud} containing this server's resource URI
 * (RFC 8707), {@code exp}/{@code nbf} with the configured clock skew.
 */
final class JwtValidator {
    private static final Logger log = LoggerFactory.getLogger(JwtValidator.class);
    private static final Set<JWSAlgorithm> ASYMMETRIC = asymmetric();
    private static final DefaultJOSEObjectTypeVerifier<SecurityContext> ACCESS_TOKEN_TYPES =
            new DefaultJOSEObjectTypeVerifier<>(
                    new JOSEObjectType("at+jwt"), new JOSEObjectType("application/at+jwt"), JOSEObjectType.JWT, null);

    /** Validated tokens kept, by their SHA-256 digest, until they expire (the hot path). */
    private static final int MAX_CACHED = 100_000;

    private record Validated(Principal principal, long expiresAtMs) {}

    private final Map<String, DefaultJWTProcessor<SecurityContext>> processors = new HashMap<>();
    private final Map<String, Validated> validated = new ConcurrentHashMap<>();
    private final Clock clock;

    JwtValidator(AuthSettings settings) {
        this(settings, Clock.systemUTC());
    }

    JwtValidator(AuthSettings settings, Clock clock) {
        this.clock = clock;
        ResourceRetriever retriever = new DefaultResourceRetriever(
                (int) settings.jwks().timeout().toMillis(),
                (int) settings.jwks().timeout().toMillis(),
                512 * 1024);
        Key secret = settings.sharedSecret().isEmpty()
                ? null
                : new SecretKeySpec(settings.sharedSecret().getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        for (AuthSettings.Issuer issuer : settings.issuers()) {
            JWKSource<SecurityContext> keys = new DiscoveredJwks(issuer, retriever, settings.jwks());
            JWSKeySelector<SecurityContext> asymmetricKeys = new JWSVerificationKeySelector<>(ASYMMETRIC, keys);
            DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
            processor.setJWSTypeVerifier(ACCESS_TOKEN_TYPES);
            processor.setJWSKeySelector((header, context) -> {
                if (JWSAlgorithm.Family.HMAC_SHA.contains(header.getAlgorithm())) {
                    // HMAC only with a configured secret, so a public key can never serve as one.
                    return secret != null && header.getAlgorithm().equals(JWSAlgorithm.HS256)
                            ? List.of(secret)
                            : List.of();
                }
                return asymmetricKeys.selectJWSKeys(header, context);
            });
            DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(
                    Set.of(settings.resource().toString()),
                    new JWTClaimsSet.Builder().issuer(issuer.issuer()).build(),
                    Set.of("iss", "sub", "exp"),
                    null);
            claims.setMaxClockSkew((int) settings.clockSkew().toSeconds());
            processor.setJWTClaimsSetVerifier(claims);
            processors.put(issuer.issuer(), processor);
        }
    }

    /** Whether the token has the shape of a JWT (three base64url parts); opaque tokens go to introspection. */
    static boolean looksLikeJwt(String token) {
        int first = token.indexOf('.');
        return first > 0
                && token.indexOf('.', first + 1) > first
                && token.chars().filter(c -> c == '.').count() == 2;
    }

    /**
     * The token's principal, or empty when it is invalid for any reason (the reason goes to the log).
     * A token that passed is remembered by its digest until its {@code exp}: the same token again
     * costs a hash, not a signature check. Refusals are not remembered (an unknown {@code kid} may
     * be known after the next key set fetch).
     */
    Optional<Principal> validate(String token) {
        String digest = TokenIntrospector.digest(token);
        long now = clock.millis();
        Validated known = validated.get(digest);
        if (known != null) {
            if (now < known.expiresAtMs()) {
                return Optional.of(known.principal());
            }
            validated.remove(digest);
        }
        Optional<Principal> principal = check(token);
        principal.ifPresent(p -> remember(digest, p, now));
        return principal;
    }

    private void remember(String digest, Principal principal, long now) {
        Object exp = principal.claims().get("exp");
        if (!(exp instanceof java.util.Date expiry) || expiry.getTime() <= now) {
            return;
        }
        if (validated.size() >= MAX_CACHED) {
            validated.values().removeIf(entry -> entry.expiresAtMs() <= now);
            if (validated.size() >= MAX_CACHED) {
                validated.clear();
            }
        }
        validated.put(digest, new Validated(principal, expiry.getTime()));
    }

    private Optional<Principal> check(String token) {
        try {
            JWT jwt = JWTParser.parse(token);
            if (!(jwt instanceof SignedJWT signed)) {
                log.info(
                        "access token refused: not a signed JWT (alg {})",
                        jwt.getHeader().getAlgorithm());
                return Optional.empty();
            }
            String issuer = signed.getJWTClaimsSet().getIssuer();
            DefaultJWTProcessor<SecurityContext> processor = issuer == null ? null : processors.get(issuer);
            if (processor == null) {
                log.info("access token refused: issuer {} is not trusted", issuer);
                return Optional.empty();
            }
            return Optional.of(principalOf(processor.process(signed, null)));
        } catch (ParseException | BadJOSEException | JOSEException e) {
            log.info("access token refused: {}", e.getMessage());
            return Optional.empty();
        }
    }

    private static Principal principalOf(JWTClaimsSet claims) throws ParseException {
        Set<String> scopes = new LinkedHashSet<>();
        Object scope = claims.getClaim("scope");
        if (scope instanceof String text) {
            scopes.addAll(Scopes.split(text));
        }
        Object scp = claims.getClaim("scp");
        if (scp instanceof List<?> list) {
            list.forEach(item -> scopes.add(String.valueOf(item)));
        }
        String clientId = claims.getStringClaim("client_id");
        if (clientId == null) {
            clientId = claims.getStringClaim("azp");
        }
        Map<String, Object> all = new LinkedHashMap<>();
        claims.getClaims().forEach((name, value) -> {
            if (value != null) {
                all.put(name, value);
            }
        });
        return new Principal(claims.getIssuer(), claims.getSubject(), clientId, scopes, all);
    }

    private static Set<JWSAlgorithm> asymmetric() {
        Set<JWSAlgorithm> algorithms = new HashSet<>();
        algorithms.addAll(JWSAlgorithm.Family.RSA);
        algorithms.addAll(JWSAlgorithm.Family.EC);
        algorithms.addAll(JWSAlgorithm.Family.ED);
        return Set.copyOf(algorithms);
    }

    /**
     * The issuer's key set: from its configured {@code jwks-uri}, or from the {@code jwks_uri} of
     * its RFC 8414 (then OpenID) metadata, looked up on first use. Cached and rate-limited by nimbus.
     */
    private static final class DiscoveredJwks implements JWKSource<SecurityContext> {
        private final AuthSettings.Issuer issuer;
        private final ResourceRetriever retriever;
        private final AuthSettings.Jwks settings;
        private volatile JWKSource<SecurityContext> source;

        DiscoveredJwks(AuthSettings.Issuer issuer, ResourceRetriever retriever, AuthSettings.Jwks settings) {
            this.issuer = issuer;
            this.retriever = retriever;
            this.settings = settings;
        }

        @Override
        public List<com.nimbusds.jose.jwk.JWK> get(JWKSelector selector, SecurityContext context)
                throws com.nimbusds.jose.KeySourceException {
            return source().get(selector, context);
        }

        private JWKSource<SecurityContext> source() throws com.nimbusds.jose.KeySourceException {
            JWKSource<SecurityContext> current = source;
            if (current != null) {
                return current;
            }
            synchronized (this) {
                if (source == null) {
                    String jwksUri = issuer.jwksUri().isBlank() ? discover() : issuer.jwksUri();
                    try {
                        source = JWKSourceBuilder.create(new URL(jwksUri), retriever)
                                .cache(
                                        settings.cacheTtl().toMillis(),
                                        settings.timeout().toMillis())
                                .rateLimited(settings.refetchInterval().toMillis())
                                .retrying(false)
                                .build();
                    } catch (IOException e) {
                        throw new com.nimbusds.jose.KeySourceException("bad jwks_uri " + jwksUri, e);
                    }
                }
                return source;
            }
        }

        private String discover() throws com.nimbusds.jose.KeySourceException {
            URI id = URI.create(issuer.issuer());
            String path = id.getRawPath() == null || id.getRawPath().equals("/") ? "" : id.getRawPath();
            List<String> candidates = List.of(
                    id.getScheme() + "://" + id.getRawAuthority() + "/.well-known/oauth-authorization-server" + path,
                    issuer.issuer().replaceAll("/$", "") + "/.well-known/openid-configuration");
            for (String candidate : candidates) {
                try {
                    JsonNode metadata = Json.MAPPER.readTree(
                            retriever.retrieveResource(new URL(candidate)).getContent());
                    if (issuer.issuer().equals(metadata.path("issuer").asText())
                            && metadata.path("jwks_uri").isTextual()) {
                        return metadata.path("jwks_uri").asText();
                    }
                    log.warn("metadata at {} does not name issuer {} with a jwks_uri", candidate, issuer.issuer());
                } catch (IOException e) {
                    log.debug("no authorization server metadata at {}: {}", candidate, e.getMessage());
                }
            }
            throw new com.nimbusds.jose.KeySourceException("no jwks_uri found for issuer " + issuer.issuer());
        }
    }
}
