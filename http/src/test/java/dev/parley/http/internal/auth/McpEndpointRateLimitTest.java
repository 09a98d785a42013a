package dev.parley.http.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.JournalRows;
import dev.parley.http.McpHttpServer;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Limits per principal and per tool (token buckets at the edge), with HS256 tokens from a
 * configured shared secret: over a limit is 429 with Retry-After, and nothing is persisted.
 */
class McpEndpointRateLimitTest {
    private static final String RESOURCE = "http://127.0.0.1:8080/mcp";
    private static final String ISSUER = "http://127.0.0.1:9000";
    private static final String SECRET = "a-shared-secret-of-at-least-32-characters!";

    @TempDir
    Path directory;

    private McpHttpServer start(String limits) {
        String config = """
        parley.auth {
          enabled = true
          resource = "%s"
          authorization-servers = ["%s"]
          issuers = [{ issuer = "%s", jwks-uri = "http://127.0.0.1:1/unused" }]
          required-scopes = ["mcp:tools"]
          shared-secret = "%s"
          limits { enabled = true, %s }
        }
        """.formatted(RESOURCE, ISSUER, ISSUER, SECRET, limits);
        return McpHttpServer.builder(new AuthTestTools().definition())
                .dataDirectory(directory)
                .port(0)
                .config(ConfigFactory.parseString(config))
                .start();
    }

    @Test
    void aBurstOverThePrincipalsRateGets429WithRetryAfterAndPersistsNothing() throws Exception {
        AuthTestTools tools;
        int refused = 0;
        try (McpHttpServer server = start("requests-per-second = 0.2, burst = 2, tool-calls-per-second = 0")) {
            McpTestClient client = new McpTestClient(server.port());
            Map<String, String> alice = bearer(token("alice", SECRET));
            assertEquals(
                    200,
                    client.send(client.request("tools/list", Json.object()), alice)
                            .status());
            assertEquals(
                    200,
                    client.send(client.request("tools/list", Json.object()), alice)
                            .status());
            for (int i = 0; i < 3; i++) {
                // greet would start a journaled call (it asks a question): refused, it must not.
                Reply reply = client.send(client.toolCall("greet", Json.object().put("greeting", "Hi")), alice);
                assertEquals(429, reply.status(), reply.body());
                long retryAfter =
                        Long.parseLong(reply.headers().firstValue("retry-after").orElseThrow());
                assertTrue(retryAfter >= 1 && retryAfter <= 5, "Retry-After " + retryAfter);
                refused++;
            }
            // Another principal has its own bucket.
            Reply bob = client.send(client.toolCall("whoami", Json.object()), bearer(token("bob", SECRET)));
            assertEquals(200, bob.status(), bob.body());
        }
        assertEquals(3, refused);
        assertEquals(0, journalRows(), "a refused request persists nothing");
    }

    @Test
    void aToolHasItsOwnBucketPerPrincipal() throws Exception {
        try (McpHttpServer server =
                start("requests-per-second = 100, burst = 100, tool-calls-per-second = 0.2, tool-burst = 1")) {
            McpTestClient client = new McpTestClient(server.port());
            Map<String, String> alice = bearer(token("alice", SECRET));
            assertEquals(
                    200,
                    client.send(client.toolCall("whoami", Json.object()), alice).status());
            assertEquals(
                    429,
                    client.send(client.toolCall("whoami", Json.object()), alice).status());
            // Another tool, and lists, are not held back by whoami's bucket.
            Reply greet = client.send(client.toolCall("greet", Json.object().put("greeting", "Hi")), alice);
            assertEquals(200, greet.status(), greet.body());
            JournalRows.awaitCalls(directory, 1); // its start is written just behind its answer
            assertEquals(
                    200,
                    client.send(client.request("tools/list", Json.object()), alice)
                            .status());
        }
        assertTrue(journalRows() > 0, "the admitted greet call was journaled (so the check above can fail)");
    }

    @Test
    void hs256NeedsTheConfiguredSecret() throws Exception {
        try (McpHttpServer server = start("requests-per-second = 0")) {
            McpTestClient client = new McpTestClient(server.port());
            Reply good = client.send(client.toolCall("whoami", Json.object()), bearer(token("alice", SECRET)));
            Reply other = client.send(
                    client.toolCall("whoami", Json.object()),
                    bearer(token("alice", "another-secret-that-is-32-characters-long")));
            assertEquals(200, good.status(), good.body());
            assertEquals(ISSUER + "#alice | alice | mcp:tools", good.text());
            assertEquals(401, other.status());
        }
    }

    private int journalRows() throws Exception {
        JournalDatabase database = JournalRows.database(directory);
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery("SELECT count(*) FROM " + database.identifier("event_journal"))) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    private static String token(String subject, String secret) throws Exception {
        Instant now = Instant.now();
        SignedJWT jwt = new SignedJWT(
                new JWSHeader(JWSAlgorithm.HS256),
                new JWTClaimsSet.Builder()
                        .issuer(ISSUER)
                        .subject(subject)
                        .audience(RESOURCE)
                        .claim("client_id", subject)
                        .claim("scope", "mcp:tools")
                        .issueTime(Date.from(now))
                        .expirationTime(Date.from(now.plusSeconds(300)))
                        .build());
        jwt.sign(new MACSigner(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return jwt.serialize();
    }
}
