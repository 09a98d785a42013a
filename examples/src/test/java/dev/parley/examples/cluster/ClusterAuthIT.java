package dev.parley.examples.cluster;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.testing.AuthorizationServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Authorization on a two-node cluster (two JVMs, shared PostgreSQL): both nodes are the same
 * resource, a token from the real authorization server works on either, a call started by one
 * principal on one node is refused to another principal on the other, and a key rotation is
 * seen by both nodes without a restart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterAuthIT {
    private static final Duration WAIT = Duration.ofSeconds(90);

    private EmbeddedPostgres postgres;
    private AuthorizationServer authorizationServer;
    private final List<NodeProcess> nodes = new ArrayList<>();
    private final List<McpTestClient> clients = new ArrayList<>();

    @BeforeAll
    void startCluster() throws Exception {
        Path run =
                Files.createTempDirectory(Path.of("target"), "cluster-auth-it").toAbsolutePath();
        int[] http = {AuthorizationServer.freePort(), AuthorizationServer.freePort()};
        int[] artery = {AuthorizationServer.freePort(), AuthorizationServer.freePort()};
        // One canonical URI for the cluster, as behind a load balancer: node 1's.
        String resource = "http://127.0.0.1:" + http[0] + "/mcp";
        authorizationServer = AuthorizationServer.start(resource, run);
        String issuer = authorizationServer.issuer();

        postgres = EmbeddedPostgres.start();
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE parley");
        }
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Map<String, String> environment = Map.of(
                "PG_URL",
                "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/parley",
                "PG_USER",
                "postgres",
                "PG_PASSWORD",
                "postgres",
                "PARLEY_STATE_KEY_ID",
                "cluster-auth-it",
                "PARLEY_STATE_KEY",
                Base64.getEncoder().encodeToString(secret),
                "PARLEY_AUTH_CONFIG",
                """
            parley.auth {
              enabled = true
              resource = "%s"
              authorization-servers = ["%s"]
              issuers = [{ issuer = "%s" }]
              required-scopes = ["mcp:tools"]
              jwks.refetch-interval = 1s
            }
            """.formatted(resource, issuer, issuer));
        for (int i = 0; i < 2; i++) {
            nodes.add(NodeProcess.start(
                    "a" + (i + 1),
                    http[i],
                    artery[i],
                    List.of(artery[0]),
                    run.resolve("effects.log"),
                    run,
                    environment));
        }
        for (NodeProcess node : nodes) {
            if (!node.awaitReady(WAIT)) {
                fail("node " + node + " was not ready within " + WAIT.toSeconds() + " s:\n" + node.logTail(60));
            }
            clients.add(new McpTestClient(node.httpPort));
        }
    }

    @AfterAll
    void stopCluster() throws Exception {
        for (NodeProcess node : nodes) {
            if (node.isAlive()) {
                node.kill();
            }
        }
        if (postgres != null) {
            postgres.close();
        }
        if (authorizationServer != null) {
            authorizationServer.close();
        }
    }

    @Test
    void oneTokenWorksOnEveryNodeAndBindsCallsToItsPrincipalAcrossNodes() throws Exception {
        String alice = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        String bob = authorizationServer.clientCredentialsToken("bob", "mcp:tools");
        for (McpTestClient client : clients) {
            assertEquals(
                    401,
                    client.send(client.toolCall("cluster_status", Json.object()))
                            .status());
            ObjectNode status = client.toolCall("cluster_status", Json.object());
            assertCompleted(client.send(status, bearer(alice)), status);
        }

        McpTestClient first = clients.get(0);
        McpTestClient second = clients.get(1);
        ObjectNode call = first.toolCall("two_step", Json.object().put("id", "auth-1"));
        Reply round1 = first.send(call, bearer(alice));
        assertInputRequired(round1, call);
        ObjectNode retry = second.retry(
                call,
                round1.requestState(),
                McpTestClient.accept("first", Json.object().put("value", "x")));

        Reply asBob = second.send(retry, bearer(bob));
        Reply asAlice = second.send(retry, bearer(alice));

        assertEquals(-32602, asBob.errorCode(), asBob.body());
        assertInputRequired(asAlice, retry);
    }

    @Test
    void aKeyRotationIsSeenByEveryNodeWithoutARestart() throws Exception {
        for (McpTestClient client : clients) {
            ObjectNode status = client.toolCall("cluster_status", Json.object());
            assertCompleted(
                    client.send(status, bearer(authorizationServer.clientCredentialsToken("alice", "mcp:tools"))),
                    status);
        }
        authorizationServer.rotate();
        String rotated = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        for (McpTestClient client : clients) {
            // The unknown kid refetches the key set (within the 1 s refetch limit: a few tries).
            Reply reply = null;
            for (int attempt = 0; attempt < 10 && (reply == null || reply.status() != 200); attempt++) {
                if (attempt > 0) {
                    Thread.sleep(300);
                }
                reply = client.send(client.toolCall("cluster_status", Json.object()), bearer(rotated));
            }
            assertEquals(200, reply.status(), reply.body());
            assertTrue(reply.text().contains("up="), reply.text());
        }
    }

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }
}
