package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.http.testing.AuthorizationServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "Authorization" walk-through of docs/security.md: the demo started with {@code auth-demo.conf} (only
 * the ports moved) against the authorization server in {@code authorization-server/}.
 */
class DemoAuthorizationTest {
    @TempDir
    static Path data;

    static AuthorizationServer authorizationServer;
    static McpHttpServer server;
    static McpTestClient client;

    @BeforeAll
    static void start() throws Exception {
        int port = AuthorizationServer.freePort();
        String resource = "http://127.0.0.1:" + port + "/mcp";
        authorizationServer = AuthorizationServer.start(resource, data);
        String issuer = authorizationServer.issuer();
        Config ports = ConfigFactory.parseString("""
        parley.auth {
          resource = "%s"
          authorization-servers = ["%s"]
          issuers = [{ issuer = "%s", jwks-uri = "%s" }]
          introspection.endpoint = "%s"
        }
        """.formatted(
                resource, issuer, issuer, authorizationServer.jwksUri(), authorizationServer.introspectionEndpoint()));
        server = Launcher.startDemo(port, data, ports.withFallback(ConfigFactory.parseResources("auth-demo.conf")));
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (authorizationServer != null) {
            authorizationServer.close();
        }
    }

    @Test
    void withoutATokenTheDemoAnswers401WithItsMetadataUrl() {
        Reply reply = client.send(client.request("tools/list", Json.object()));

        assertEquals(401, reply.status());
        assertEquals(
                "Bearer resource_metadata=\"http://127.0.0.1:" + server.port()
                        + "/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:tools\"",
                reply.headers().firstValue("www-authenticate").orElseThrow());
        Reply metadata = client.get(
                URI.create("http://127.0.0.1:" + server.port() + "/.well-known/oauth-protected-resource/mcp"));
        assertEquals(
                authorizationServer.issuer(),
                metadata.json().path("authorization_servers").path(0).asText());
    }

    @Test
    void aTokenWithMcpToolsSeesAndCallsTheUnscopedToolsOnly() throws Exception {
        Map<String, String> reader = bearer(authorizationServer.clientCredentialsToken("reader", "mcp:tools"));

        assertEquals(List.of("schedule_release", "check_availability", "publish_report"), toolNames(reader));
        ObjectNode check = client.toolCall("check_availability", Json.object().put("date", "2026-12-24"));
        assertCompleted(client.send(check, reader), check);
        Reply booking = client.send(
                client.toolCall(
                        "book_venue", Json.object().put("date", "2026-12-24").put("guests", 40)),
                reader);
        assertEquals(403, booking.status());
        assertTrue(booking.headers()
                .firstValue("www-authenticate")
                .orElseThrow()
                .contains("error=\"insufficient_scope\""));
        assertTrue(booking.headers()
                .firstValue("www-authenticate")
                .orElseThrow()
                .contains("scope=\"mcp:tools venue:book\""));
    }

    @Test
    void aTokenWithVenueBookBooksTheVenue() throws Exception {
        Map<String, String> alice = bearer(authorizationServer.clientCredentialsToken("alice", "mcp:tools venue:book"));

        assertEquals(
                List.of("schedule_release", "book_venue", "check_availability", "publish_report"), toolNames(alice));
        ObjectNode booking = client.toolCall(
                "book_venue", Json.object().put("date", "2026-12-24").put("guests", 40));
        assertInputRequired(client.send(booking, alice), booking);
    }

    @Test
    void anOpaqueTokenWorksThroughIntrospection() throws Exception {
        Map<String, String> opaque =
                bearer(authorizationServer.clientCredentialsToken("opaque", "mcp:tools invoice:write"));

        assertTrue(toolNames(opaque).contains("create_invoice"));
    }

    private static List<String> toolNames(Map<String, String> headers) {
        Reply reply = client.send(client.request("tools/list", Json.object()), headers);
        assertEquals(200, reply.status(), reply.body());
        List<String> names = new ArrayList<>();
        reply.result().path("tools").forEach(tool -> names.add(tool.path("name").asText()));
        return names;
    }

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }
}
