package dev.parley.http.testing;

import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.persistence.JournalDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.function.BooleanSupplier;
import java.util.stream.StreamSupport;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * What tests of two cluster members in one JVM share: one embedded PostgreSQL journal, two actor
 * systems joined over Artery on 127.0.0.1 (so entity commands cross a remote boundary,
 * serialized), and the same requestState keys, as two real nodes would have.
 */
public final class TwoNodeCluster {
    private final EmbeddedPostgres postgres;
    private final int seedPort;
    private final String shared;

    /** Starts the journal in {@code data}/postgres; {@code config} is added to both nodes' settings. */
    public TwoNodeCluster(Path data, String config) throws IOException {
        this.postgres = EmbeddedPostgres.builder()
                .setDataDirectory(data.resolve("postgres"))
                .setPort(AuthorizationServer.freePort())
                .start();
        this.seedPort = AuthorizationServer.freePort();
        byte[] secret = new byte[32];
        new java.security.SecureRandom().nextBytes(secret);
        this.shared = """
                parley.management.enabled = off
                pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
                pekko.cluster.seed-nodes = ["pekko://parley@127.0.0.1:%d"]
                parley.request-state.keys = [{ id = "k1", secret = "%s" }]
                """.formatted(seedPort, Base64.getEncoder().encodeToString(secret)) + config;
    }

    /** A server builder for the first node (the seed) or the second, on this cluster's journal. */
    public McpHttpServer.Builder node(McpHttpServer.Builder builder, boolean seed) throws IOException {
        int artery = seed ? seedPort : AuthorizationServer.freePort();
        return builder.port(0)
                .database(new JournalDatabase.Postgres(
                        "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres", "postgres", "postgres"))
                .config(ConfigFactory.parseString(shared + "\npekko.remote.artery.canonical.port = " + artery));
    }

    /** Waits (60 s at most) until both servers see two members Up. */
    public static void awaitUp(McpHttpServer a, McpHttpServer b) {
        await("both nodes see two members Up", () -> upMembers(a) == 2 && upMembers(b) == 2);
    }

    /** Waits (60 s at most) until {@code condition} holds. */
    public static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 60 s: " + what);
            }
            sleep(100);
        }
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the journal (after the nodes). */
    public void close() throws IOException {
        postgres.close();
    }

    private static long upMembers(McpHttpServer node) {
        return StreamSupport.stream(
                        Cluster.get(node.node().system()).state().getMembers().spliterator(), false)
                .filter(member -> member.status() == MemberStatus.up())
                .count();
    }
}
