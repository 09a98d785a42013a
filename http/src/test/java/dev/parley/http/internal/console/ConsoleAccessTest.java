package dev.parley.http.internal.console;

import static dev.parley.testing.McpAssertions.assertInputRequired;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.parley.http.JournalRows;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's access rule (which the call-history export shares), its guard on the cancel
 * action, its answers to bad input and its paging, over plain HTTP against real nodes.
 */
class ConsoleAccessTest {
    private static final String ISSUER = "http://127.0.0.1:9/issuer";
    private static final String RESOURCE = "http://127.0.0.1:8080/mcp";
    private static final String SECRET = "a-shared-secret-of-at-least-32-characters!";

    @TempDir
    Path data;

    private static URI at(McpHttpServer server, String path) {
        return URI.create("http://127.0.0.1:" + server.managementPort() + path);
    }

    @Test
    void loopbackAccessServesThisMachineOnlyGuardsCancelRefusesBadInputAndPagesFromTheJournal() throws Exception {
        // Bound to every interface, so a connection can also come from this machine's network address.
        try (McpHttpServer server = ConsoleNode.start(
                data,
                "parley.console.page-size = 2\nparley.management.host = \"0.0.0.0\"\n"
                        + "parley.management.call-history = on")) {
            McpTestClient client = new McpTestClient(server.port());
            for (int i = 0; i < 5; i++) {
                ObjectNode ask = client.toolCall("ask", Json.object().put("text", "hi " + i));
                assertInputRequired(client.send(ask), ask);
            }
            JournalRows.awaitCalls(data, 5);
            assertEquals(200, ConsoleNode.get(at(server, "/console/"), Map.of()).statusCode());
            assertEquals(
                    200,
                    ConsoleNode.get(at(server, "/console/assets/uPlot.min.js"), Map.of())
                            .statusCode());
            HttpResponse<String> page = ConsoleNode.get(at(server, "/console/"), Map.of());
            assertTrue(page.headers()
                    .firstValue("Content-Security-Policy")
                    .orElse("")
                    .contains("frame-ancestors 'none'"));

            // Paged from the journal, newest first: 2 + 2 + 1, every call once.
            Set<String> seen = new HashSet<>();
            List<Integer> sizes = new ArrayList<>();
            String cursor = null;
            do {
                JsonNode list = Json.parse(ConsoleNode.get(
                                at(server, "/console/api/calls?tool=ask" + (cursor == null ? "" : "&cursor=" + cursor)),
                                Map.of())
                        .body());
                sizes.add(list.path("items").size());
                list.path("items").forEach(item -> {
                    assertEquals("waiting", item.path("status").asText());
                    assertTrue(item.path("principal").asText().startsWith("p-"));
                    seen.add(item.path("id").asText());
                });
                cursor = list.hasNonNull("next") ? list.get("next").asText() : null;
            } while (cursor != null && sizes.size() < 10);
            assertEquals(List.of(2, 2, 1), sizes);
            assertEquals(5, seen.size());
            // Filters: another tool, another status, an age none has reached yet.
            assertEquals(
                    0,
                    Json.parse(ConsoleNode.get(at(server, "/console/api/calls?tool=echo&status=any"), Map.of())
                                    .body())
                            .path("items")
                            .size());
            assertEquals(
                    0,
                    Json.parse(ConsoleNode.get(at(server, "/console/api/calls?status=completed"), Map.of())
                                    .body())
                            .path("items")
                            .size());
            assertEquals(
                    0,
                    Json.parse(ConsoleNode.get(at(server, "/console/api/calls?min-age=3600"), Map.of())
                                    .body())
                            .path("items")
                            .size());

            // Bad input: a clear 400, an unknown id 404.
            for (String bad : List.of(
                    "/console/api/calls?status=sleeping",
                    "/console/api/tasks?cursor=-1",
                    "/console/api/calls?min-age=soon",
                    "/console/api/calls/%3Cscript%3E")) {
                HttpResponse<String> refused = ConsoleNode.get(at(server, bad), Map.of());
                assertEquals(400, refused.statusCode(), bad);
                assertTrue(Json.parse(refused.body()).path("error").asText().length() > 10, refused.body());
            }
            assertEquals(
                    404,
                    ConsoleNode.get(at(server, "/console/api/tasks/no-such-task"), Map.of())
                            .statusCode());
            assertEquals(
                    404,
                    ConsoleNode.get(at(server, "/console/api/calls/no-such-call"), Map.of())
                            .statusCode());
            assertEquals(
                    404,
                    ConsoleNode.get(at(server, "/console/api/nothing"), Map.of())
                            .statusCode());

            // A task to cancel, and the cancel's guard against cross-site requests.
            McpTestClient.Reply created =
                    client.send(client.toolCall("long_job", Json.object().put("text", "x"), McpTestClient.WITH_TASKS));
            String task = created.taskId();
            URI cancel = at(server, "/console/api/tasks/" + task + "/cancel");
            assertEquals(404, ConsoleNode.send(cancel, "GET", Map.of()).statusCode(), "a cancel is a POST");
            assertEquals(403, ConsoleNode.send(cancel, "POST", Map.of()).statusCode(), "no action header");
            assertEquals(
                    403,
                    ConsoleNode.send(
                                    cancel,
                                    "POST",
                                    Map.of(ConsoleRoutes.ACTION_HEADER, "cancel", "Origin", "http://evil.example"))
                            .statusCode(),
                    "another origin");
            assertEquals(
                    "working",
                    client.send(client.taskRequest("tasks/get", task))
                            .result()
                            .path("status")
                            .asText());
            HttpResponse<String> done = ConsoleNode.send(
                    cancel,
                    "POST",
                    Map.of(
                            ConsoleRoutes.ACTION_HEADER,
                            "cancel",
                            "Origin",
                            "http://127.0.0.1:" + server.managementPort()));
            assertEquals(200, done.statusCode(), done.body());
            assertTrue(Json.parse(done.body()).path("by").asText().startsWith("loopback 127.0.0.1:"), done.body());
            assertEquals(
                    "cancelled",
                    client.send(client.taskRequest("tasks/get", task))
                            .result()
                            .path("status")
                            .asText());
            assertEquals(
                    409,
                    ConsoleNode.send(cancel, "POST", Map.of(ConsoleRoutes.ACTION_HEADER, "cancel"))
                            .statusCode(),
                    "an ended task");

            // DNS rebinding: a page served as another name that resolves to 127.0.0.1 gets nothing.
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            assertEquals(
                    403,
                    ConsoleNode.rawStatus(
                            loopback,
                            server.managementPort(),
                            "GET",
                            "/console/api/overview",
                            Map.of("Host", "rebound.example:" + server.managementPort())));
            assertEquals(
                    403,
                    ConsoleNode.rawStatus(
                            loopback, server.managementPort(), "GET", "/console/", Map.of("Host", "rebound.example")));
            assertEquals(
                    200,
                    ConsoleNode.rawStatus(
                            loopback,
                            server.managementPort(),
                            "GET",
                            "/console/api/overview",
                            Map.of("Host", "localhost:" + server.managementPort())));

            // The call-history export answers under the console's rule.
            String history = "/calls/" + seen.iterator().next() + "/history";
            assertEquals(
                    200,
                    ConsoleNode.rawStatus(
                            loopback,
                            server.managementPort(),
                            "GET",
                            history,
                            Map.of("Host", "localhost:" + server.managementPort())));
            assertEquals(
                    403,
                    ConsoleNode.rawStatus(
                            loopback, server.managementPort(), "GET", history, Map.of("Host", "rebound.example")));

            // A connection from another address (here: this machine's own network address) gets nothing either.
            Optional<InetAddress> own = nonLoopbackAddress();
            if (own.isPresent()) {
                assertEquals(
                        403,
                        ConsoleNode.rawStatus(
                                own.get(), server.managementPort(), "GET", history, Map.of("Host", "localhost")));
                assertEquals(
                        403,
                        ConsoleNode.rawStatus(
                                own.get(),
                                server.managementPort(),
                                "GET",
                                "/console/api/overview",
                                Map.of("Host", "localhost")));
                assertEquals(
                        403,
                        ConsoleNode.rawStatus(
                                own.get(), server.managementPort(), "GET", "/console/", Map.of("Host", "localhost")));
                // The rest of the management port is not the console's to guard.
                assertEquals(
                        200,
                        ConsoleNode.rawStatus(
                                own.get(), server.managementPort(), "GET", "/alive", Map.of("Host", "localhost")));
            }
        }
    }

    @Test
    void scopeAccessNeedsABearerTokenWithTheConsoleScope() throws Exception {
        String auth = """
        parley.console { access = scope, required-scope = "parley:console" }
        parley.management.call-history = on
        parley.auth {
          resource = "%s"
          issuers = [{ issuer = "%s", jwks-uri = "http://127.0.0.1:9/unused" }]
          shared-secret = "%s"
        }
        """.formatted(RESOURCE, ISSUER, SECRET);
        try (McpHttpServer server = ConsoleNode.start(data, auth)) {
            URI overview = at(server, "/console/api/overview");
            HttpResponse<String> anonymous = ConsoleNode.get(overview, Map.of());
            assertEquals(401, anonymous.statusCode());
            assertTrue(anonymous
                    .headers()
                    .firstValue("WWW-Authenticate")
                    .orElse("")
                    .startsWith("Bearer"));
            assertEquals(
                    401,
                    ConsoleNode.get(overview, Map.of("Authorization", "Bearer not-a-token"))
                            .statusCode());
            assertEquals(
                    401,
                    ConsoleNode.get(
                                    overview,
                                    bearer(token("ops", "parley:console", "another-secret-of-at-least-32-chars!!")))
                            .statusCode(),
                    "a token signed with another key");
            assertEquals(
                    403,
                    ConsoleNode.get(overview, bearer(token("ops", "mcp:tools", SECRET)))
                            .statusCode());
            assertEquals(
                    200,
                    ConsoleNode.get(overview, bearer(token("ops", "mcp:tools parley:console", SECRET)))
                            .statusCode());
            // The page itself holds no data: it is served, and asks for a token.
            assertEquals(200, ConsoleNode.get(at(server, "/console/"), Map.of()).statusCode());

            McpTestClient client = new McpTestClient(server.port());
            String task = client.send(
                            client.toolCall("long_job", Json.object().put("text", "x"), McpTestClient.WITH_TASKS))
                    .taskId();
            Map<String, String> headers = new java.util.HashMap<>(bearer(token("ops", "parley:console", SECRET)));
            headers.put(ConsoleRoutes.ACTION_HEADER, "cancel");
            HttpResponse<String> done =
                    ConsoleNode.send(at(server, "/console/api/tasks/" + task + "/cancel"), "POST", headers);
            assertEquals(200, done.statusCode(), done.body());
            assertEquals(
                    ISSUER + "#ops",
                    Json.parse(done.body()).path("by").asText(),
                    "logged with the operator's principal");

            // The call-history export needs the same token.
            ObjectNode ask = client.toolCall("ask", Json.object().put("text", "hi"));
            int calls = JournalRows.entityIds(data, "ToolCall|").size();
            assertInputRequired(client.send(ask), ask);
            JournalRows.awaitCalls(data, calls + 1);
            String call = Json.parse(ConsoleNode.get(
                                    at(server, "/console/api/calls?tool=ask"),
                                    bearer(token("ops", "parley:console", SECRET)))
                            .body())
                    .at("/items/0/id")
                    .asText();
            URI history = at(server, "/calls/" + call + "/history");
            HttpResponse<String> anonymousExport = ConsoleNode.get(history, Map.of());
            assertEquals(401, anonymousExport.statusCode(), anonymousExport.body());
            assertTrue(anonymousExport
                    .headers()
                    .firstValue("WWW-Authenticate")
                    .orElse("")
                    .contains("parley:console"));
            assertEquals(
                    403,
                    ConsoleNode.get(history, bearer(token("ops", "mcp:tools", SECRET)))
                            .statusCode());
            HttpResponse<String> exported = ConsoleNode.get(history, bearer(token("ops", "parley:console", SECRET)));
            assertEquals(200, exported.statusCode(), exported.body());
            assertEquals(call, Json.parse(exported.body()).path("id").asText());
        }
    }

    @Test
    void accessOffServesNoConsole() throws Exception {
        try (McpHttpServer server =
                ConsoleNode.start(data, "parley.console.access = off\nparley.management.call-history = on")) {
            assertEquals(404, ConsoleNode.get(at(server, "/console/"), Map.of()).statusCode());
            assertEquals(
                    404,
                    ConsoleNode.get(at(server, "/console/api/overview"), Map.of())
                            .statusCode());
            assertEquals(200, ConsoleNode.get(at(server, "/alive"), Map.of()).statusCode());
            // Nor the call-history export, though it is switched on.
            HttpResponse<String> history =
                    ConsoleNode.get(at(server, "/calls/6f1c2a9e-8d0b-4c55-9a51-3f3d1e2b7c40/history"), Map.of());
            assertEquals(404, history.statusCode());
            assertTrue(history.body().contains("parley.console.access"), history.body());
        }
    }

    @Test
    void aBadAccessSettingIsRefusedWithItsName() {
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class,
                () -> ConsoleSettings.from(
                        com.typesafe.config.ConfigFactory.parseString("parley.console.access = everyone")
                                .withFallback(com.typesafe.config.ConfigFactory.parseResources("reference.conf"))));
        assertTrue(refused.getMessage().contains("parley.console.access"), refused.getMessage());
        assertFalse(
                ConsoleSettings.from(com.typesafe.config.ConfigFactory.parseResources("reference.conf"))
                        .showContents(),
                "contents are hidden by default");
    }

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    private static String token(String subject, String scope, String secret) throws Exception {
        Instant now = Instant.now();
        SignedJWT jwt = new SignedJWT(
                new JWSHeader(JWSAlgorithm.HS256),
                new JWTClaimsSet.Builder()
                        .issuer(ISSUER)
                        .subject(subject)
                        .audience(RESOURCE)
                        .claim("client_id", subject)
                        .claim("scope", scope)
                        .issueTime(Date.from(now))
                        .expirationTime(Date.from(now.plusSeconds(300)))
                        .build());
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static Optional<InetAddress> nonLoopbackAddress() throws Exception {
        for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!network.isUp() || network.isLoopback()) {
                continue;
            }
            for (InetAddress address : Collections.list(network.getInetAddresses())) {
                if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
                    return Optional.of(address);
                }
            }
        }
        return Optional.empty();
    }
}
