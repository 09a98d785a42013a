package dev.parley.http.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.NodeSharding;
import dev.parley.http.JournalRows;
import dev.parley.http.McpHttpServer;
import dev.parley.persistence.JournalDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.management.javadsl.PekkoManagement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /ready}: before start-up completes, during normal work, while the journal is unreachable. */
class ReadinessTest {
    private static final Config MANAGEMENT_ON_FREE_PORT = ConfigFactory.parseString("parley.management.port = 0");

    @TempDir
    Path data;

    /** McpHttpServer starts management before it binds the MCP port; in between, /ready says no. */
    @Test
    void aNodeWithoutItsMcpEndpointIsAliveButNotReady() throws Exception {
        ParleyNode node = ParleyNode.builder(OperationsEndpointTest.definition())
                .config(MANAGEMENT_ON_FREE_PORT)
                .journal(JournalRows.database(data))
                .stateKeyFile(data.resolve("key"))
                .start();
        try {
            int port = PekkoManagement.get(node.system().classicSystem())
                    .start()
                    .toCompletableFuture()
                    .get(30, TimeUnit.SECONDS)
                    .port();
            // Bounded wait for a cluster member to be Up: only the unbound endpoint may keep the node from being ready.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!node.system().classicSystem().whenTerminated().isCompleted()
                    && NodeSharding.clustered(node.system())
                    && !org.apache.pekko.cluster.typed.Cluster.get(node.system())
                            .selfMember()
                            .status()
                            .equals(org.apache.pekko.cluster.MemberStatus.up())
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertNotReady(port);
            assertEquals(200, Prometheus.status(port, "/alive"));
        } finally {
            node.close();
        }
    }

    @Test
    void aNodeIsNotReadyWhileItsPostgresJournalIsUnreachable() throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgres.start();
        McpHttpServer server;
        try {
            server = McpHttpServer.builder(OperationsEndpointTest.definition())
                    .dataDirectory(data)
                    .port(0)
                    .database(new JournalDatabase.Postgres(
                            "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres", "postgres", "postgres"))
                    .config(ConfigFactory.parseString("parley.management.port = 0"))
                    .start();
        } catch (RuntimeException e) {
            postgres.close();
            throw e;
        }
        try {
            int port = server.managementPort();
            assertEquals(200, Prometheus.status(port, "/ready"));
            postgres.close();
            assertNotReady(port);
            assertEquals(200, Prometheus.status(port, "/alive"));
        } finally {
            server.close();
        }
    }

    /** A failed readiness check is 503 and "Not Healthy" (HealthRoutes; pekko-management's own says 500). */
    static void assertNotReady(int port) {
        java.net.http.HttpResponse<String> ready = Prometheus.get(port, "/ready");
        assertEquals(503, ready.statusCode(), ready::body);
        org.junit.jupiter.api.Assertions.assertTrue(ready.body().startsWith("Not Healthy"), ready::body);
    }
}
