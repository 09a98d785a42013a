package dev.parley.http.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Everything on the management port answers only requests whose Host is in
 * {@code parley.management.allowed-hosts} (here with a scraper's name added): a DNS-rebinding
 * page, whose requests carry its own host name, gets 403 from every route.
 */
class ManagementHostRuleTest {
    @TempDir
    static Path data;

    private static McpHttpServer server;

    @BeforeAll
    static void start() {
        server = McpHttpServer.builder(OperationsEndpointTest.definition())
                .dataDirectory(data)
                .port(0)
                .config(ConfigFactory.parseString("""
                        parley.management.port = 0
                        parley.management.call-history = on
                        parley.management.allowed-hosts = ["localhost", "127.0.0.1", "[::1]", "prometheus.internal"]
                        """))
                .start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A raw GET (the JDK's HTTP client does not send a Host of our choosing): status line and body. */
    private static String get(String path, String host) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.managementPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(response);
            return response.toString(StandardCharsets.UTF_8);
        }
    }

    private static int status(String response) {
        return Integer.parseInt(response.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
    }

    @Test
    void everyRouteRefusesAForeignHost() throws IOException {
        for (String path : new String[] {"/metrics", "/ready", "/alive", "/console/", "/calls/c-1/history"}) {
            String response = get(path, "rebound.example:" + server.managementPort());
            assertEquals(403, status(response), path + ": " + response);
            assertTrue(response.contains("application/json"), response);
            assertTrue(response.contains("parley.management.allowed-hosts"), response);
        }
    }

    @Test
    void loopbackNamesAndTheConfiguredScraperAreServed() throws IOException {
        for (String host : new String[] {"localhost:" + server.managementPort(), "127.0.0.1", "prometheus.internal"}) {
            String metrics = get("/metrics", host);
            assertEquals(200, status(metrics), host + ": " + metrics);
            assertTrue(metrics.contains("# TYPE"), metrics);
            assertEquals(200, status(get("/ready", host)), host);
            assertEquals(200, status(get("/alive", host)), host);
        }
    }
}
