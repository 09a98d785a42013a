package dev.parley.http.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.auth.AuthSettings;
import dev.parley.runtime.Principal;
import dev.parley.testing.MutableClock;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Introspection answers over real HTTP, cached by token digest until exp or the TTL, whichever is first. */
class TokenIntrospectorTest {
    private static final String RESOURCE = "http://127.0.0.1:8080/mcp";
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

    private HttpServer endpoint;
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicReference<String> answer = new AtomicReference<>();
    private final AtomicReference<String> authorization = new AtomicReference<>();
    private final MutableClock clock = new MutableClock(NOW);

    @BeforeEach
    void start() throws Exception {
        endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        endpoint.createContext("/introspect", exchange -> {
            calls.incrementAndGet();
            authorization.set(exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] body = answer.get().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.get().startsWith("{") ? 200 : 500, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        endpoint.start();
    }

    @AfterEach
    void stop() {
        endpoint.stop(0);
    }

    private TokenIntrospector introspector(String cacheTtl) {
        return new TokenIntrospector(
                AuthSettings.from(ConfigFactory.parseString(
                                """
        parley.auth {
          enabled = true
          resource = "%s"
          issuers = []
          introspection { endpoint = "http://127.0.0.1:%d/introspect", client-id = "parley", client-secret = "s3cret", cache-ttl = %s }
        }
        """.formatted(RESOURCE, endpoint.getAddress().getPort(), cacheTtl))
                        .withFallback(ConfigFactory.load())),
                clock);
    }

    private String active(long expiresInSeconds) {
        return """
        {"active":true,"sub":"alice","client_id":"app","scope":"mcp:tools venue:book","iss":"http://127.0.0.1:9000",
         "aud":"%s","exp":%d}""".formatted(RESOURCE, NOW.getEpochSecond() + expiresInSeconds);
    }

    private Optional<Principal> introspect(TokenIntrospector introspector, String token) throws Exception {
        return introspector.introspect(token).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void anActiveTokenIsCachedUntilItsExpWhenThatComesFirst() throws Exception {
        TokenIntrospector introspector = introspector("10m");
        answer.set(active(30));

        Principal principal = introspect(introspector, "opaque-1").orElseThrow();
        assertTrue(introspect(introspector, "opaque-1").isPresent());

        assertEquals("http://127.0.0.1:9000#alice", principal.id());
        assertEquals("app", principal.clientId());
        assertTrue(principal.hasScope("venue:book"));
        assertEquals(1, calls.get(), "the second check came from the cache");
        assertEquals("Basic cGFybGV5OnMzY3JldA==", authorization.get(), "Parley's client credentials");

        clock.advance(Duration.ofSeconds(31));
        answer.set("{\"active\":false}");
        assertTrue(introspect(introspector, "opaque-1").isEmpty());
        assertEquals(2, calls.get(), "after exp the endpoint is asked again");
    }

    @Test
    void anActiveTokenIsCachedForTheTtlWhenThatComesFirst() throws Exception {
        TokenIntrospector introspector = introspector("60s");
        answer.set(active(3600));
        assertTrue(introspect(introspector, "opaque-2").isPresent());
        clock.advance(Duration.ofSeconds(61));
        assertTrue(introspect(introspector, "opaque-2").isPresent());
        assertEquals(2, calls.get());
    }

    @Test
    void inactiveForeignAndFailedAnswersAreRefused() throws Exception {
        TokenIntrospector introspector = introspector("60s");
        answer.set("{\"active\":false}");
        assertTrue(introspect(introspector, "inactive").isEmpty());
        answer.set(active(60).replace(RESOURCE, "http://127.0.0.1:1/other"));
        assertTrue(introspect(introspector, "other-audience").isEmpty());
        answer.set("server error");
        assertTrue(introspect(introspector, "failed").isEmpty());
        answer.set(active(60));
        assertTrue(introspect(introspector, "failed").isPresent(), "a failed answer is not cached");
    }
}
