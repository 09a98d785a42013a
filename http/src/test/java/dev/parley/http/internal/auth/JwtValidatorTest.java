package dev.parley.http.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.auth.AuthSettings;
import dev.parley.http.testing.AuthorizationServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The key set is fetched over real HTTP, cached, and refetched for unknown kids only within the rate limit. */
class JwtValidatorTest {
    private static final String RESOURCE = "http://127.0.0.1:8080/mcp";

    private HttpServer jwks;
    private final AtomicInteger fetches = new AtomicInteger();
    private final AtomicReference<JWKSet> served = new AtomicReference<>();
    private String issuer;

    @BeforeEach
    void serveKeys() throws Exception {
        jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        jwks.createContext("/jwks", exchange -> {
            fetches.incrementAndGet();
            byte[] body = served.get().toString(true).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        jwks.start();
        issuer = "http://127.0.0.1:" + jwks.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        jwks.stop(0);
    }

    private JwtValidator validator(String refetchInterval) {
        return new JwtValidator(AuthSettings.from(
                ConfigFactory.parseString("""
        parley.auth {
          enabled = true
          resource = "%s"
          authorization-servers = ["%s"]
          issuers = [{ issuer = "%s", jwks-uri = "%s/jwks" }]
          jwks.refetch-interval = %s
        }
        """.formatted(RESOURCE, issuer, issuer, issuer, refetchInterval))
                        .withFallback(ConfigFactory.load())));
    }

    @Test
    void keysAreCachedAndUnknownKidsRefetchThemOnlyWithinTheRateLimit() throws Exception {
        RSAKey key = AuthorizationServer.newKey("key-1");
        served.set(new JWKSet(key));
        JwtValidator validator = validator("2m");

        for (int i = 0; i < 5; i++) {
            assertTrue(validator.validate(token(key)).isPresent());
        }
        assertEquals(1, fetches.get(), "the key set is fetched once and cached");

        for (int i = 0; i < 20; i++) {
            assertTrue(validator
                    .validate(token(AuthorizationServer.newKey("random-" + i)))
                    .isEmpty());
        }
        // nimbus keeps two fetches per interval: one for a background refresh, one for a rotation.
        assertTrue(fetches.get() <= 3, "20 unknown kids fetched the key set " + fetches.get() + " times");
    }

    @Test
    void aRotatedKeyIsFoundWithoutARestart() throws Exception {
        RSAKey first = AuthorizationServer.newKey("key-1");
        served.set(new JWKSet(first));
        JwtValidator validator = validator("1s");
        assertTrue(validator.validate(token(first)).isPresent());

        RSAKey second = AuthorizationServer.newKey("key-2");
        served.set(new JWKSet(second));

        assertTrue(validator.validate(token(second)).isPresent());
        assertEquals(2, fetches.get());
    }

    @Test
    void aValidatedTokenIsKeptUntilItsExpiryThenCheckedAgain() throws Exception {
        RSAKey key = AuthorizationServer.newKey("key-1");
        served.set(new JWKSet(key));
        Instant exp = Instant.now().plusSeconds(2).truncatedTo(ChronoUnit.SECONDS);
        AtomicLong now = new AtomicLong(System.currentTimeMillis());
        Clock clock = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(now.get());
            }
        };
        JwtValidator validator = new JwtValidator(
                AuthSettings.from(ConfigFactory.parseString("""
        parley.auth {
          enabled = true
          resource = "%s"
          authorization-servers = ["%s"]
          issuers = [{ issuer = "%s", jwks-uri = "%s/jwks" }]
          clock-skew = 0s
        }
        """.formatted(RESOURCE, issuer, issuer, issuer))
                        .withFallback(ConfigFactory.load())),
                clock);
        String token = token(key, exp);
        assertTrue(validator.validate(token).isPresent());

        // The token has now expired for the signature and claims check (nimbus reads the real time) ...
        Thread.sleep(Math.max(0, exp.toEpochMilli() - System.currentTimeMillis()) + 200);
        // ... but the cache's clock still says before exp: the remembered principal answers.
        assertEquals("alice", validator.validate(token).orElseThrow().subject());
        // Once the cache's clock passes exp, the token is checked again, and refused.
        now.set(exp.toEpochMilli());
        assertTrue(validator.validate(token).isEmpty());
    }

    private String token(RSAKey key) throws Exception {
        return token(key, Instant.now().plusSeconds(60));
    }

    private String token(RSAKey key, Instant exp) throws Exception {
        Instant now = Instant.now();
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.RS256)
                        .keyID(key.getKeyID())
                        .type(new JOSEObjectType("at+jwt"))
                        .build(),
                new JWTClaimsSet.Builder()
                        .issuer(issuer)
                        .subject("alice")
                        .audience(RESOURCE)
                        .issueTime(Date.from(now))
                        .expirationTime(Date.from(exp))
                        .build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }
}
