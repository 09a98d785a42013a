package dev.parley.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.examples.Launcher;
import dev.parley.http.McpHttpServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A demo node started with the kubernetes profile on a real PostgreSQL journal, outside a
 * cluster of pods: the profile resolves from the variables the Deployment sets, Cluster
 * Bootstrap starts with the node (its routes answer on the management port), and the node
 * does not form a cluster of its own, so it is alive but not ready until bootstrap finds peers.
 */
class KubernetesProfileTest {
    /** A loopback address other than 127.0.0.1 stands for the pod's IP. */
    private static final String POD_IP = "127.0.0.2";

    private static EmbeddedPostgres postgres;
    private static McpHttpServer server;
    private static final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start(@TempDir Path data) throws Exception {
        postgres = EmbeddedPostgres.start();
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE parley");
        }
        // What the Deployment puts in the environment (the substitutions fall back to these keys).
        Config environment = ConfigFactory.parseMap(Map.of(
                "POD_IP", POD_IP,
                "POD_NAMESPACE", "parley-test",
                "PG_URL", "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/parley",
                "PG_USER", "postgres",
                "PG_PASSWORD", "postgres",
                "PARLEY_STATE_KEY_ID", "k8s-test",
                "PARLEY_STATE_KEY", Base64.getEncoder().encodeToString(new byte[32])));
        // Free ports instead of the pod's fixed ones, and the service account files a pod has (a
        // token and the API server's CA certificate), made here: the discovery reads them at start.
        Path account = Files.createDirectories(data.resolve("serviceaccount"));
        Files.writeString(account.resolve("token"), "test-token");
        Path ca = account.resolve("ca.crt");
        Path keystore = account.resolve("ca.p12");
        run(
                "keytool",
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-dname",
                "CN=test-ca",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                "changeit");
        run(
                "keytool",
                "-exportcert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                keystore.toString(),
                "-storepass",
                "changeit",
                "-file",
                ca.toString());
        Config ports = ConfigFactory.parseMap(Map.of(
                "parley.management.port",
                0,
                "pekko.remote.artery.canonical.port",
                0,
                // The profile binds management to 0.0.0.0 (the pod's IP and its loopback); tests on
                // this shared machine bind 127.0.0.1 only, which is the loopback that port-forward reaches.
                "pekko.management.http.bind-hostname",
                "127.0.0.1",
                "pekko.discovery.kubernetes-api.api-token-path",
                account.resolve("token").toString(),
                "pekko.discovery.kubernetes-api.api-ca-path",
                ca.toString()));
        Config config = ports.withFallback(environment).withFallback(ConfigFactory.parseResources("kubernetes.conf"));
        server = Launcher.startDemo(0, data, config);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void bootstrapRunsAndTheNodeWaitsForItsPeers() throws Exception {
        int management = server.managementPort();
        assertEquals(200, get(management, "/alive").statusCode());
        // Cluster Bootstrap's contact-point route: this node has no cluster yet, so no seed nodes.
        HttpResponse<String> seeds = get(management, "/bootstrap/seed-nodes");
        assertEquals(200, seeds.statusCode(), seeds.body());
        JsonNode body = new ObjectMapper().readTree(seeds.body());
        assertTrue(body.get("selfNode").asText().startsWith("pekko://parley@" + POD_IP + ":"), seeds.body());
        assertEquals(0, body.get("seedNodes").size(), seeds.body());
        // No joining itself: without the pods bootstrap would find, the member never gets Up.
        Thread.sleep(3000);
        HttpResponse<String> ready = get(management, "/ready");
        assertNotEquals(200, ready.statusCode(), ready.body());
    }

    @Test
    void theConsoleAnswersOnLoopbackAsThroughKubectlPortForward() throws Exception {
        // Management is told the pod IP (peers probe it) but answers on loopback, where
        // kubectl port-forward connects, and the profile's loopback rule lets that in.
        int management = server.managementPort();
        assertEquals(POD_IP, server.node().system().settings().config().getString("pekko.management.http.hostname"));
        HttpResponse<String> page = get(management, "/console/");
        assertEquals(200, page.statusCode(), page.body());
        HttpResponse<String> overview = get(management, "/console/api/overview");
        assertEquals(200, overview.statusCode(), overview.body());
    }

    @Test
    void aMissingPodVariableIsAClearStartError() {
        Config withoutPodIp = ConfigFactory.parseMap(Map.of(
                        "POD_NAMESPACE",
                        "x",
                        "PG_URL",
                        "jdbc:postgresql://127.0.0.1:1/x",
                        "PARLEY_STATE_KEY_ID",
                        "k",
                        "PARLEY_STATE_KEY",
                        Base64.getEncoder().encodeToString(new byte[32])))
                .withFallback(ConfigFactory.parseResources("kubernetes.conf"));
        Exception failure = assertThrows(Exception.class, () -> withoutPodIp.resolve());
        assertTrue(failure.getMessage().contains("POD_IP"), failure.getMessage());
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "keytool did not finish");
        assertEquals(0, process.exitValue(), output);
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
