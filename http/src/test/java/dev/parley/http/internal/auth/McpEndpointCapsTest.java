package dev.parley.http.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * Caps per principal on calls waiting for input, tasks in flight and sessions
 * ({@code parley.quotas.per-principal}) with authorization on: the principal is the token's subject.
 * the request over a cap gets 429 with Retry-After and JSON-RPC -31429, nothing of it is
 * journaled, other principals are not held back, and a call or task that ends frees its place.
 */
class McpEndpointCapsTest {
    private static final String RESOURCE = "http://127.0.0.1:8080/mcp";
    private static final String ISSUER = "http://127.0.0.1:9000";
    private static final String SECRET = "a-shared-secret-of-at-least-32-characters!";

    @TempDir
    Path directory;

    private McpHttpServer start(String caps) {
        String config = """
        parley.auth {
          enabled = true
          resource = "%s"
          authorization-servers = ["%s"]
          issuers = [{ issuer = "%s", jwks-uri = "http://127.0.0.1:1/unused" }]
          required-scopes = ["mcp:tools"]
          shared-secret = "%s"
        }
        parley.quotas { retry-after = 3s, per-principal { %s } }
        """.formatted(RESOURCE, ISSUER, ISSUER, SECRET, caps);
        return McpHttpServer.builder(new AuthTestTools().definition())
                .dataDirectory(directory)
                .port(0)
                .config(ConfigFactory.parseString(config))
                .start();
    }

    @Test
    void aCallOverThePrincipalsCapOfWaitingCallsGets429AndJournalsNothing() throws Exception {
        try (McpHttpServer server = start("waiting-calls = 2, open-tasks = 0")) {
            McpTestClient client = new McpTestClient(server.port());
            Map<String, String> alice = bearer(token("alice"));
            ObjectNode first = client.toolCall("greet", Json.object().put("greeting", "Hi"));
            Reply waiting = client.send(first, alice);
            assertEquals("input_required", waiting.resultType(), waiting.body());
            assertEquals(
                    "input_required",
                    client.send(client.toolCall("greet", Json.object().put("greeting", "Hi")), alice)
                            .resultType());
            JournalRows.awaitCalls(directory, 2); // their starts are written just behind their answers
            long journaled = journalRows();
            assertTrue(journaled > 0, "the waiting calls are journaled (so the check below can fail)");

            Reply refused = client.send(client.toolCall("greet", Json.object().put("greeting", "Hi")), alice);

            assertEquals(429, refused.status(), refused.body());
            assertEquals("3", refused.headers().firstValue("retry-after").orElseThrow());
            assertEquals(-31429, refused.errorCode(), refused.body());
            assertEquals(
                    "waiting-calls", refused.error().path("data").path("limit").asText(), refused.body());
            assertEquals(2, refused.error().path("data").path("max").asInt(), refused.body());
            assertEquals(journaled, journalRows(), "the refused call left nothing in the journal");

            // A one-round call, and another principal's waiting call, are not held back.
            assertEquals(
                    200,
                    client.send(client.toolCall("whoami", Json.object()), alice).status());
            Reply bob =
                    client.send(client.toolCall("greet", Json.object().put("greeting", "Hi")), bearer(token("bob")));
            assertEquals("input_required", bob.resultType(), bob.body());

            // Answering one of Alice's calls ends it, which frees its place.
            Reply done = client.send(
                    client.retry(
                            first,
                            waiting.requestState(),
                            McpTestClient.accept("who", Json.object().put("name", "Alice"))),
                    alice);
            assertEquals(200, done.status(), done.body());
            assertTrue(done.text().startsWith("Hi, Alice #"), done.body());
            Reply again = client.send(client.toolCall("greet", Json.object().put("greeting", "Hi")), alice);
            assertEquals("input_required", again.resultType(), again.body());
        }
    }

    @Test
    void aTaskOverThePrincipalsCapOfTasksInFlightGets429UntilOneEnds() throws Exception {
        try (McpHttpServer server = start("waiting-calls = 0, open-tasks = 1")) {
            McpTestClient client = new McpTestClient(server.port());
            Map<String, String> alice = bearer(token("alice"));
            Reply created = client.send(client.toolCall("approve_job", Json.object(), McpTestClient.WITH_TASKS), alice);
            assertEquals(200, created.status(), created.body());
            String taskId = created.taskId();
            awaitStatus(client, alice, taskId, "input_required"); // the task journals its question in the background
            long journaled = journalRows();

            Reply refused = client.send(client.toolCall("approve_job", Json.object(), McpTestClient.WITH_TASKS), alice);

            assertEquals(429, refused.status(), refused.body());
            assertEquals(
                    "open-tasks", refused.error().path("data").path("limit").asText(), refused.body());
            assertEquals(journaled, journalRows(), "the refused task left nothing in the journal");
            Reply bob = client.send(
                    client.toolCall("approve_job", Json.object(), McpTestClient.WITH_TASKS), bearer(token("bob")));
            assertEquals(200, bob.status(), bob.body());

            // Once the task ended (cancelled), the next one is admitted: the cap asks the task itself.
            assertEquals(
                    200,
                    client.send(client.taskRequest("tasks/cancel", taskId), alice)
                            .status());
            Reply next = null;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < deadline) {
                next = client.send(client.toolCall("approve_job", Json.object(), McpTestClient.WITH_TASKS), alice);
                if (next.status() != 429) {
                    break;
                }
                Thread.sleep(300);
            }
            assertEquals(200, next.status(), next.body());
            assertTrue(next.taskId() != null && !next.taskId().equals(taskId), next.body());
        }
    }

    @Test
    void aSessionOverThePrincipalsCapGets429AndJournalsNothing() throws Exception {
        try (McpHttpServer server = start("sessions = 2")) {
            McpTestClient client = new McpTestClient(server.port());
            String alice = token("alice");
            assertEquals(200, initialize(client, alice).status());
            assertEquals(200, initialize(client, alice).status());
            long journaled = journalRows();

            Reply refused = initialize(client, alice);

            assertEquals(429, refused.status(), refused.body());
            assertEquals("3", refused.headers().firstValue("retry-after").orElseThrow());
            assertEquals(-31429, refused.errorCode(), refused.body());
            assertEquals("sessions", refused.error().path("data").path("limit").asText(), refused.body());
            assertEquals(2, refused.error().path("data").path("max").asInt(), refused.body());
            assertEquals(journaled, journalRows(), "the refused session left nothing in the journal");
            // Bob comes from the same address, but with auth on the token's subject is the principal.
            assertEquals(200, initialize(client, token("bob")).status());
        }
    }

    private static Reply initialize(McpTestClient client, String token) {
        ObjectNode params = Json.object().put("protocolVersion", "2025-11-25");
        params.set("capabilities", Json.object());
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize");
        message.set("params", params);
        return client.post(
                Json.write(message),
                Map.of(
                        "Content-Type", "application/json",
                        "Accept", "application/json, text/event-stream",
                        "Mcp-Method", "initialize",
                        "Authorization", "Bearer " + token));
    }

    private static void awaitStatus(McpTestClient client, Map<String, String> principal, String taskId, String status)
            throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String seen = null;
        while (System.nanoTime() < deadline) {
            seen = client.send(client.taskRequest("tasks/get", taskId), principal)
                    .result()
                    .path("status")
                    .asText();
            if (status.equals(seen)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("task " + taskId + " is " + seen + ", not " + status);
    }

    private long journalRows() throws Exception {
        JournalDatabase database = JournalRows.database(directory);
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery("SELECT count(*) FROM " + database.identifier("event_journal"))) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    private static String token(String subject) throws Exception {
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
        jwt.sign(new MACSigner(SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return jwt.serialize();
    }
}
