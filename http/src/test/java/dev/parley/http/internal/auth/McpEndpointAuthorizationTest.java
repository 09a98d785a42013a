package dev.parley.http.internal.auth;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertTaskCreated;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.http.testing.AuthorizationServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP endpoint as an OAuth resource server, against a real authorization server
 * (oidc-provider on loopback): metadata, challenges, client-credentials JWTs, introspected opaque
 * tokens, key rotation, edge-case tokens minted here, scopes, and principal isolation.
 */
class McpEndpointAuthorizationTest {
    @TempDir
    static Path directory;

    static AuthorizationServer authorizationServer;
    static McpHttpServer server;
    static McpTestClient client;
    static String resource;
    static String metadataUrl;

    @BeforeAll
    static void start() throws Exception {
        int port = AuthorizationServer.freePort(); // the canonical URI names the port the endpoint is reached on
        resource = "http://127.0.0.1:" + port + "/mcp";
        metadataUrl = "http://127.0.0.1:" + port + "/.well-known/oauth-protected-resource/mcp";
        authorizationServer = AuthorizationServer.start(resource, directory);
        String issuer = authorizationServer.issuer();
        // No jwks-uri: Parley finds it in the issuer's metadata.
        String config = """
        parley.auth {
          enabled = true
          resource = "%s"
          authorization-servers = ["%s"]
          issuers = [{ issuer = "%s" }]
          scopes-supported = ["mcp:tools", "venue:book", "invoice:write"]
          required-scopes = ["mcp:tools"]
          jwks.refetch-interval = 1s
          introspection { endpoint = "%s", client-id = "parley", client-secret = "parley-secret" }
        }
        """.formatted(resource, issuer, issuer, authorizationServer.introspectionEndpoint());
        server = McpHttpServer.builder(new AuthTestTools().definition())
                .dataDirectory(directory.resolve("data"))
                .port(port)
                .config(ConfigFactory.parseString(config))
                .start();
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

    // --- metadata and challenges -----------------------------------------------------------

    @Test
    void protectedResourceMetadataNamesTheResourceAndItsAuthorizationServer() {
        for (String path :
                List.of("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp")) {
            Reply reply = client.get(URI.create("http://127.0.0.1:" + server.port() + path));
            assertEquals(200, reply.status(), path);
            JsonNode metadata = reply.json();
            assertEquals(resource, metadata.path("resource").asText());
            assertEquals(
                    authorizationServer.issuer(),
                    metadata.path("authorization_servers").path(0).asText());
            assertEquals(
                    "[\"mcp:tools\",\"venue:book\",\"invoice:write\"]",
                    metadata.path("scopes_supported").toString());
            assertEquals(
                    "[\"header\"]", metadata.path("bearer_methods_supported").toString());
        }
    }

    @Test
    void aRequestWithoutATokenIsChallengedWithTheMetadataUrlAndAScopeHint() {
        Reply reply = client.send(client.toolCall("book", Json.object()));

        assertEquals(401, reply.status());
        String challenge = challenge(reply);
        assertTrue(challenge.startsWith("Bearer "), challenge);
        assertTrue(challenge.contains("resource_metadata=\"" + metadataUrl + "\""), challenge);
        assertTrue(challenge.contains("scope=\"mcp:tools\""), challenge);
        assertFalse(challenge.contains("error="), "no error code without a token (RFC 6750 §3.1): " + challenge);
        assertFalse(reply.body().contains("book"), "a challenge names no tool: " + reply.body());
    }

    @Test
    void aTokenInTheQueryStringIsRefused() throws Exception {
        String token = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        ObjectNode call = client.toolCall("whoami", Json.object());
        Reply reply = client.exchange(
                java.net.http.HttpRequest.newBuilder(URI.create(client.endpoint() + "?access_token=" + token))
                        .headers(headers(McpTestClient.standardHeaders(call)))
                        .header("Authorization", "Bearer " + token)
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(Json.write(call)))
                        .build());

        assertEquals(400, reply.status());
        assertTrue(challenge(reply).contains("error=\"invalid_request\""), challenge(reply));
    }

    @Test
    void aMalformedAuthorizationHeaderIsAnInvalidToken() {
        for (String value : List.of("Basic YWxpY2U6c2VjcmV0", "Bearer ", "Bearer not-a-token")) {
            Reply reply = client.send(client.toolCall("whoami", Json.object()), Map.of("Authorization", value));
            assertEquals(401, reply.status(), value);
            assertTrue(challenge(reply).contains("error=\"invalid_token\""), value + ": " + challenge(reply));
        }
    }

    // --- tokens from the authorization server --------------------------------------------

    @Test
    void aClientCredentialsTokenForThisResourceCallsATool() throws Exception {
        String token = authorizationServer.clientCredentialsToken("alice", "mcp:tools venue:book");
        ObjectNode call = client.toolCall("whoami", Json.object());

        Reply reply = client.send(call, bearer(token));

        assertCompleted(reply, call);
        assertEquals(authorizationServer.issuer() + "#alice | alice | mcp:tools venue:book", reply.text());
    }

    @Test
    void anOpaqueTokenIsCheckedThroughIntrospection() throws Exception {
        String token = authorizationServer.clientCredentialsToken("opaque", "mcp:tools");
        assertFalse(JwtValidator.looksLikeJwt(token), "the opaque client gets an opaque token: " + token);
        ObjectNode call = client.toolCall("whoami", Json.object());

        Reply first = client.send(call, bearer(token));
        Reply cached = client.send(client.toolCall("whoami", Json.object()), bearer(token));

        assertCompleted(first, call);
        assertEquals(authorizationServer.issuer() + "#opaque | opaque | mcp:tools", first.text());
        assertEquals(first.text(), cached.text());
        Reply unknown = client.send(client.toolCall("whoami", Json.object()), bearer("an-opaque-token-nobody-issued"));
        assertEquals(401, unknown.status());
        assertTrue(challenge(unknown).contains("error=\"invalid_token\""));
    }

    @Test
    void aTokenWithoutAToolsScopeGetsTheStepUpChallengeWithEveryNeededScope() throws Exception {
        String token = authorizationServer.clientCredentialsToken("reader", "mcp:tools");

        Reply reply = client.send(client.toolCall("book", Json.object()), bearer(token));

        assertEquals(403, reply.status());
        String challenge = challenge(reply);
        assertTrue(challenge.contains("error=\"insufficient_scope\""), challenge);
        assertTrue(challenge.contains("scope=\"mcp:tools venue:book\""), challenge);
        assertTrue(challenge.contains("resource_metadata=\"" + metadataUrl + "\""), challenge);
    }

    @Test
    void aBase64EncodedToolNameHeaderStillNeedsTheToolsScope() throws Exception {
        String token = authorizationServer.clientCredentialsToken("reader", "mcp:tools");
        String encoded =
                "=?base64?" + Base64.getEncoder().encodeToString("book".getBytes(StandardCharsets.UTF_8)) + "?=";

        Reply reply = client.send(
                client.toolCall("book", Json.object()),
                Map.of("Authorization", "Bearer " + token, "Mcp-Name", encoded));

        assertEquals(403, reply.status());
    }

    @Test
    void listsShowOnlyWhatThePrincipalHasTheScopesFor() throws Exception {
        String reader = authorizationServer.clientCredentialsToken("reader", "mcp:tools");
        String alice = authorizationServer.clientCredentialsToken("alice", "mcp:tools venue:book invoice:write");

        assertEquals(
                List.of("whoami", "greet", "confirm_whoami", "approve_job"),
                names(list("tools/list", reader), "tools"));
        assertEquals(
                List.of("whoami", "book", "greet", "confirm_whoami", "approve_job"),
                names(list("tools/list", alice), "tools"));
        assertEquals(List.of(), names(list("prompts/list", reader), "prompts"));
        assertEquals(List.of("invoice_summary"), names(list("prompts/list", alice), "prompts"));
        assertEquals(
                "private",
                list("tools/list", alice).result().path("cacheScope").asText(),
                "what a list shows depends on who asked");
    }

    @Test
    void aListAnsweredAsAStreamIsFilteredToo() throws Exception {
        String reader = authorizationServer.clientCredentialsToken("reader", "mcp:tools");
        ObjectNode streamed = client.request("tools/list", Json.object());
        ((ObjectNode) streamed.path("params").path("_meta")).put("progressToken", "list-1");

        Reply reply = client.send(streamed, bearer(reader));

        assertEquals(200, reply.status(), reply.body());
        assertTrue(reply.contentType().startsWith("text/event-stream"), reply.contentType());
        String last = reply.body()
                .lines()
                .filter(line -> line.startsWith("data:"))
                .reduce((a, b) -> b)
                .orElseThrow();
        List<String> names = new ArrayList<>();
        Json.parse(last.substring(5).trim())
                .path("result")
                .path("tools")
                .forEach(tool -> names.add(tool.path("name").asText()));
        assertEquals(List.of("whoami", "greet", "confirm_whoami", "approve_job"), names);
    }

    @Test
    void keysRotateWithoutARestart() throws Exception {
        String before = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        ObjectNode call = client.toolCall("whoami", Json.object());
        assertCompleted(client.send(call, bearer(before)), call);

        authorizationServer.rotate();
        String after = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        assertFalse(SignedJWT.parse(after)
                .getHeader()
                .getKeyID()
                .equals(SignedJWT.parse(before).getHeader().getKeyID()));
        // The unknown kid refetches the key set; a refetch just before (another test) may hold it
        // back for the configured second, so allow a few tries.
        Reply reply = null;
        for (int attempt = 0; attempt < 10; attempt++) {
            reply = client.send(client.toolCall("whoami", Json.object()), bearer(after));
            if (reply.status() == 200) {
                break;
            }
            Thread.sleep(300);
        }
        assertEquals(200, reply.status(), reply.body());
        assertEquals(authorizationServer.issuer() + "#alice | alice | mcp:tools", reply.text());
    }

    @Test
    void theAuthorizationServerIssuesNoTokenForAnotherResource() throws Exception {
        JsonNode answer = authorizationServer.tokenRequest("alice", "mcp:tools", "http://127.0.0.1:1/other");
        assertFalse(answer.has("access_token"), answer.toString());
    }

    @Test
    void theTypeScriptSdkClientFindsTheAuthorizationServerFromThe401AndStepsUpForAScope() throws Exception {
        JsonNode seen =
                Json.parse(authorizationServer.runMcpClient(client.endpoint().toString()));

        // Its first token has the scope the 401 named; book's 403 made it get one with venue:book too.
        assertEquals(
                "[\"whoami\",\"greet\",\"confirm_whoami\",\"approve_job\"]",
                seen.path("toolsBefore").toString(),
                seen.toString());
        assertEquals(
                authorizationServer.issuer() + "#alice | alice | mcp:tools",
                seen.path("whoami").asText());
        assertEquals("booked for alice", seen.path("book").asText());
        assertEquals(
                "[\"whoami\",\"book\",\"greet\",\"confirm_whoami\",\"approve_job\"]",
                seen.path("toolsAfter").toString(),
                seen.toString());
    }

    // --- edge-case tokens minted with the issuer's own key -------------------------------

    @Test
    void aMintedTokenWithTheIssuersKeyIsAccepted() throws Exception {
        Reply reply = client.send(client.toolCall("whoami", Json.object()), bearer(mint(claims -> {})));
        assertEquals(200, reply.status(), reply.body());
        assertEquals(authorizationServer.issuer() + "#minted | minted | mcp:tools", reply.text());
    }

    @Test
    void aTokenExpiredWithinTheClockSkewIsAccepted() throws Exception {
        String token =
                mint(claims -> claims.expirationTime(Date.from(Instant.now().minusSeconds(10))));
        assertEquals(
                200,
                client.send(client.toolCall("whoami", Json.object()), bearer(token))
                        .status());
    }

    @Test
    void invalidTokensAreRefusedWithInvalidToken() throws Exception {
        RSAKey key = authorizationServer.key();
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("other audience", mint(claims -> claims.audience("http://127.0.0.1:1/mcp")));
        cases.put("other issuer", mint(claims -> claims.issuer("http://127.0.0.1:1")));
        cases.put(
                "expired",
                mint(claims -> claims.expirationTime(Date.from(Instant.now().minusSeconds(120)))));
        cases.put(
                "not yet valid",
                mint(claims -> claims.notBeforeTime(Date.from(Instant.now().plusSeconds(120)))));
        cases.put("no subject", mint(claims -> claims.subject(null)));
        cases.put("alg none", new PlainJWT(claims(claims -> {}).build()).serialize());
        SignedJWT hmac = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(key.getKeyID()).build(),
                claims(claims -> {}).build());
        hmac.sign(new MACSigner(key.toRSAPublicKey().getEncoded()));
        cases.put("HS256 with the public key", hmac.serialize());
        cases.put(
                "unknown kid",
                sign(
                        AuthorizationServer.newKey("unknown-kid"),
                        claims(claims -> {}).build()));
        String valid = mint(claims -> {});
        String[] parts = valid.split("\\.");
        String otherPayload = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(claims(claims -> claims.claim("scope", "mcp:tools venue:book invoice:write"))
                        .build()
                        .toString()
                        .getBytes(StandardCharsets.UTF_8));
        cases.put("tampered payload", parts[0] + "." + otherPayload + "." + parts[2]);
        cases.put("tampered signature", parts[0] + "." + parts[1] + "." + flipFirst(parts[2]));

        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> entry : cases.entrySet()) {
            Reply reply = client.send(client.toolCall("whoami", Json.object()), bearer(entry.getValue()));
            if (reply.status() != 401
                    || !challenge(reply).contains("error=\"invalid_token\"")
                    || !challenge(reply).contains("resource_metadata=\"" + metadataUrl + "\"")) {
                wrong.add(entry.getKey() + " -> " + reply.status() + " "
                        + reply.headers().firstValue("www-authenticate"));
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void aMintedTokenWithoutTheToolsScopeIsForbidden() throws Exception {
        Reply reply = client.send(client.toolCall("book", Json.object()), bearer(mint(claims -> {})));
        assertEquals(403, reply.status());
        assertTrue(challenge(reply).contains("scope=\"mcp:tools venue:book\""));
    }

    @Test
    void aTokenWithoutTheServerWideScopeIsForbiddenEvenForLists() throws Exception {
        Reply reply = client.send(
                client.request("tools/list", Json.object()),
                bearer(mint(claims -> claims.claim("scope", "venue:book"))));
        assertEquals(403, reply.status());
        assertTrue(challenge(reply).contains("scope=\"mcp:tools\""), challenge(reply));
    }

    // --- 2025-11-25 sessions ----------------------------------------------------------------

    @Test
    void aSessionNeedsATokenAndItsToolCallsNeedTheToolsScope() throws Exception {
        String reader = authorizationServer.clientCredentialsToken("reader", "mcp:tools");
        ObjectNode initialize = legacyRequest(
                0,
                "initialize",
                Json.object()
                        .put("protocolVersion", "2025-11-25")
                        .<ObjectNode>set("capabilities", Json.object())
                        .set("clientInfo", Json.object().put("name", "legacy").put("version", "1")));

        assertEquals(
                401,
                client.post(Json.write(initialize), legacyHeaders(null, null)).status());
        Reply opened = client.post(Json.write(initialize), legacyHeaders(null, reader));
        assertEquals(200, opened.status(), opened.body());
        String session = opened.headers().firstValue("mcp-session-id").orElseThrow();

        Reply whoami = client.post(
                Json.write(legacyRequest(
                        1, "tools/call", Json.object().put("name", "whoami").set("arguments", Json.object()))),
                legacyHeaders(session, reader));
        Reply book = client.post(
                Json.write(legacyRequest(
                        2, "tools/call", Json.object().put("name", "book").set("arguments", Json.object()))),
                legacyHeaders(session, reader));

        assertEquals(200, whoami.status(), whoami.body());
        assertTrue(whoami.body().contains(authorizationServer.issuer() + "#reader"), whoami.body());
        assertEquals(403, book.status(), book.body());
        assertTrue(challenge(book).contains("scope=\"mcp:tools venue:book\""), challenge(book));
    }

    @Test
    void aSessionsListsShowOnlyWhatThePrincipalHasTheScopesFor() throws Exception {
        String reader = authorizationServer.clientCredentialsToken("reader", "mcp:tools");
        String alice = authorizationServer.clientCredentialsToken("alice", "mcp:tools venue:book invoice:write");
        ObjectNode initialize = legacyRequest(
                0,
                "initialize",
                Json.object()
                        .put("protocolVersion", "2025-11-25")
                        .<ObjectNode>set("capabilities", Json.object())
                        .set("clientInfo", Json.object().put("name", "legacy").put("version", "1")));
        for (String token : List.of(reader, alice)) {
            Reply opened = client.post(Json.write(initialize), legacyHeaders(null, token));
            assertEquals(200, opened.status(), opened.body());
            String session = opened.headers().firstValue("mcp-session-id").orElseThrow();

            Reply tools = client.post(
                    Json.write(legacyRequest(1, "tools/list", Json.object())), legacyHeaders(session, token));
            Reply prompts = client.post(
                    Json.write(legacyRequest(2, "prompts/list", Json.object())), legacyHeaders(session, token));

            assertEquals(200, tools.status(), tools.body());
            List<String> toolNames = new ArrayList<>();
            tools.json()
                    .path("result")
                    .path("tools")
                    .forEach(tool -> toolNames.add(tool.path("name").asText()));
            List<String> promptNames = new ArrayList<>();
            prompts.json()
                    .path("result")
                    .path("prompts")
                    .forEach(prompt -> promptNames.add(prompt.path("name").asText()));
            if (token.equals(reader)) {
                assertEquals(List.of("whoami", "greet", "confirm_whoami", "approve_job"), toolNames, tools.body());
                assertEquals(List.of(), promptNames, prompts.body());
            } else {
                assertEquals(
                        List.of("whoami", "book", "greet", "confirm_whoami", "approve_job"), toolNames, tools.body());
                assertEquals(List.of("invoice_summary"), promptNames, prompts.body());
            }
            assertTrue(
                    tools.json().path("result").path("cacheScope").isMissingNode(),
                    "no 2026-only members: " + tools.body());
        }
    }

    private static ObjectNode legacyRequest(int id, String method, ObjectNode params) {
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        message.set("params", params);
        return message;
    }

    private static Map<String, String> legacyHeaders(String session, String token) {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json, text/event-stream");
        if (session != null) {
            headers.put("Mcp-Session-Id", session);
            headers.put("MCP-Protocol-Version", "2025-11-25");
        }
        if (token != null) {
            headers.put("Authorization", "Bearer " + token);
        }
        return headers;
    }

    // --- principal isolation ---------------------------------------------------------------

    @Test
    void anotherPrincipalCannotUseAsRequestState() throws Exception {
        String alice = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        String bob = authorizationServer.clientCredentialsToken("bob", "mcp:tools");
        ObjectNode call = client.toolCall("greet", Json.object().put("greeting", "Hello"));
        Reply asked = client.send(call, bearer(alice));
        assertInputRequired(asked, call);
        ObjectNode retry = client.retry(
                call,
                asked.requestState(),
                McpTestClient.accept("who", Json.object().put("name", "Alice")));

        Reply asBob = client.send(retry, bearer(bob));
        Reply unknown = client.send(
                client.retry(
                        call,
                        asked.requestState().substring(0, 20) + "AAAA",
                        McpTestClient.accept("who", Json.object().put("name", "Alice"))),
                bearer(bob));
        ObjectNode aliceRetry = client.retry(
                call,
                asked.requestState(),
                McpTestClient.accept("who", Json.object().put("name", "Alice")));
        Reply asAlice = client.send(aliceRetry, bearer(alice));

        assertEquals(-32602, asBob.errorCode(), asBob.body());
        assertEquals(unknown.status(), asBob.status());
        assertEquals(
                unknown.error().path("message").asText(),
                asBob.error().path("message").asText());
        assertCompleted(asAlice, aliceRetry);
        assertTrue(asAlice.text().startsWith("Hello, Alice #"), asAlice.text());
    }

    @Test
    void aRetrySeesThePrincipalOfItsOwnToken() throws Exception {
        String first = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        String wider = authorizationServer.clientCredentialsToken("alice", "mcp:tools venue:book");
        ObjectNode call = client.toolCall("confirm_whoami", Json.object());
        Reply asked = client.send(call, bearer(first));
        assertInputRequired(asked, call);
        ObjectNode retry = client.retry(
                call,
                asked.requestState(),
                McpTestClient.accept("ok", Json.object().put("ok", true)));

        Reply done = client.send(retry, bearer(wider));

        assertCompleted(done, retry);
        assertEquals(authorizationServer.issuer() + "#alice | alice | mcp:tools venue:book", done.text());
    }

    @Test
    void anotherPrincipalCannotReadUpdateOrCancelAsTask() throws Exception {
        String alice = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        String bob = authorizationServer.clientCredentialsToken("bob", "mcp:tools");
        ObjectNode call = client.toolCall("approve_job", Json.object(), McpTestClient.WITH_TASKS);
        Reply created = client.send(call, bearer(alice));
        assertTaskCreated(created, call);
        String taskId = created.taskId();

        Reply unknown =
                client.send(client.taskRequest("tasks/get", "0190a8c0-0000-7000-8000-000000000000"), bearer(bob));
        for (ObjectNode request : List.of(
                client.taskRequest("tasks/get", taskId),
                client.taskUpdate(
                        taskId, McpTestClient.accept("approve", Json.object().put("ok", true))),
                client.taskRequest("tasks/cancel", taskId))) {
            Reply asBob = client.send(request, bearer(bob));
            assertEquals(unknown.status(), asBob.status(), request.toString());
            assertEquals(unknown.errorCode(), asBob.errorCode(), asBob.body());
        }
        Reply asAlice = client.send(client.taskRequest("tasks/get", taskId), bearer(alice));
        assertEquals(200, asAlice.status());
        assertEquals(taskId, asAlice.result().path("taskId").asText());
        assertNotNull(asAlice.result().path("status").asText(null));
        assertFalse(asAlice.result().path("status").asText().equals("cancelled"), "bob's cancel did nothing");
    }

    @Test
    void anotherPrincipalsListenStreamGetsNoneOfAsTaskNotifications() throws Exception {
        String alice = authorizationServer.clientCredentialsToken("alice", "mcp:tools");
        String bob = authorizationServer.clientCredentialsToken("bob", "mcp:tools");
        ObjectNode call = client.toolCall("approve_job", Json.object(), McpTestClient.WITH_TASKS);
        String taskId = assertTaskCreated(client.send(call, bearer(alice)), call)
                .path("taskId")
                .asText();

        try (ListenStream aliceStream = ListenStream.open(taskId, "test://sync/alice", alice);
                ListenStream bobStream = ListenStream.open(taskId, "test://sync/bob", bob)) {
            Reply cancelled = client.send(client.taskRequest("tasks/cancel", taskId), bearer(alice));
            assertEquals(200, cancelled.status(), cancelled.body());

            JsonNode notice = aliceStream.next(message ->
                    "notifications/tasks".equals(message.path("method").asText()));
            assertEquals(taskId, notice.path("params").path("taskId").asText());
            // Bob asked for the same task id: his stream gets his own sync update and nothing before it.
            assertEquals(List.of(), bobStream.untilSync());
        }
    }

    /** A {@code subscriptions/listen} stream for one task id and one resource used to sync on. */
    private record ListenStream(
            java.util.concurrent.BlockingQueue<JsonNode> messages, String syncUri, java.io.InputStream body)
            implements AutoCloseable {
        static ListenStream open(String taskId, String syncUri, String token) throws Exception {
            ObjectNode params = Json.object();
            ObjectNode filter = params.putObject("notifications");
            filter.putArray("taskIds").add(taskId);
            filter.putArray("resourceSubscriptions").add(syncUri);
            ObjectNode listen = client.request("subscriptions/listen", params, McpTestClient.WITH_TASKS);
            java.util.concurrent.BlockingQueue<JsonNode> messages = new java.util.concurrent.LinkedBlockingQueue<>();
            java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(client.endpoint())
                    .headers(headers(McpTestClient.standardHeaders(listen)))
                    .header("Authorization", "Bearer " + token)
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(Json.write(listen)))
                    .build();
            java.net.http.HttpResponse<java.io.InputStream> response = java.net.http.HttpClient.newHttpClient()
                    .send(request, java.net.http.HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            Thread reader = new Thread(
                    () -> {
                        try (java.io.BufferedReader lines = new java.io.BufferedReader(
                                new java.io.InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                            for (String line; (line = lines.readLine()) != null; ) {
                                if (line.startsWith("data:")) {
                                    messages.add(Json.parse(line.substring(5).trim()));
                                }
                            }
                        } catch (java.io.IOException closed) {
                            // the test closed the stream
                        }
                    },
                    "listen-" + syncUri);
            reader.setDaemon(true);
            reader.start();
            ListenStream stream = new ListenStream(messages, syncUri, response.body());
            stream.next(message -> "notifications/subscriptions/acknowledged"
                    .equals(message.path("method").asText()));
            stream.untilSync();
            return stream;
        }

        /** The next message that matches, within 20 s. */
        JsonNode next(java.util.function.Predicate<JsonNode> wanted) throws InterruptedException {
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline) {
                JsonNode message = messages.poll(250, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (message != null && wanted.test(message)) {
                    return message;
                }
            }
            throw new AssertionError("no such message on the listen stream");
        }

        /** Announces the sync resource until the stream gets it; returns what came before it. */
        List<JsonNode> untilSync() throws InterruptedException {
            List<JsonNode> before = new ArrayList<>();
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline) {
                server.node().pipeline().server().resourceUpdated(syncUri);
                JsonNode message = messages.poll(250, java.util.concurrent.TimeUnit.MILLISECONDS);
                while (message != null) {
                    if (syncUri.equals(message.path("params").path("uri").asText())) {
                        messages.clear(); // later sync updates of this wait
                        return before;
                    }
                    before.add(message);
                    message = messages.poll();
                }
            }
            throw new AssertionError("the listen stream did not get its sync update");
        }

        @Override
        public void close() throws java.io.IOException {
            body.close();
        }
    }

    // --- helpers ---------------------------------------------------------------------------

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    private static String challenge(Reply reply) {
        return reply.headers().firstValue("www-authenticate").orElse("");
    }

    private static Reply list(String method, String token) {
        Reply reply = client.send(client.request(method, Json.object()), bearer(token));
        assertEquals(200, reply.status(), reply.body());
        return reply;
    }

    private static List<String> names(Reply reply, String member) {
        List<String> names = new ArrayList<>();
        reply.result()
                .path(member)
                .forEach(entry -> names.add(entry.path("name").asText()));
        return names;
    }

    private static String[] headers(Map<String, String> headers) {
        List<String> flat = new ArrayList<>();
        headers.forEach((name, value) -> {
            flat.add(name);
            flat.add(value);
        });
        return flat.toArray(String[]::new);
    }

    /** Claims of a valid token for this resource from the test's issuer, changed by {@code change}. */
    private static JWTClaimsSet.Builder claims(Consumer<JWTClaimsSet.Builder> change) {
        Instant now = Instant.now();
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .issuer(authorizationServer.issuer())
                .subject("minted")
                .audience(resource)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(300)))
                .claim("client_id", "minted")
                .claim("scope", "mcp:tools");
        change.accept(claims);
        return claims;
    }

    /** A token signed with the authorization server's current key. */
    private static String mint(Consumer<JWTClaimsSet.Builder> change) throws Exception {
        return sign(authorizationServer.key(), claims(change).build());
    }

    private static String sign(RSAKey key, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.RS256)
                        .keyID(key.getKeyID())
                        .type(new JOSEObjectType("at+jwt"))
                        .build(),
                claims);
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    private static String flipFirst(String base64url) {
        char first = base64url.charAt(0);
        return (first == 'A' ? 'B' : 'A') + base64url.substring(1);
    }
}
