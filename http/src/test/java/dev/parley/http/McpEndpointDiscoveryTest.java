package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertResult;
import static dev.parley.testing.McpTestClient.VERSION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code server/discover} and {@code tools/list} with cursor pagination (page size 2, five tools). */
class McpEndpointDiscoveryTest {
    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        server = TestTools.start(new TestTools(), data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void discoverNamesTheVersionTheToolsCapabilityAndTheServer() {
        ObjectNode request = client.request("server/discover", null, "{}");
        JsonNode result = assertResult(client.send(request), request, "DiscoverResult");
        assertEquals("complete", result.path("resultType").asText());
        assertTrue(result.path("supportedVersions").toString().contains("\"" + VERSION + "\""));
        assertTrue(result.path("capabilities").has("tools"), () -> "capabilities: " + result);
        assertTrue(result.path("ttlMs").isIntegralNumber(), "ttlMs");
        assertTrue(result.path("cacheScope").isTextual(), "cacheScope");
        assertEquals(
                "parley-http-tests",
                result.path("_meta")
                        .path("io.modelcontextprotocol/serverInfo")
                        .path("name")
                        .asText());
        assertEquals(
                "Tools for the HTTP endpoint tests.",
                result.path("instructions").asText());
    }

    @Test
    void toolsListPagesThroughEveryToolByFollowingNextCursor() {
        List<String> names = new ArrayList<>();
        List<Integer> pageSizes = new ArrayList<>();
        String cursor = null;
        for (int page = 0; page < 10; page++) {
            ObjectNode params = Json.object();
            if (cursor != null) {
                params.put("cursor", cursor);
            }
            ObjectNode request = client.request("tools/list", params, "{}");
            JsonNode result = assertResult(client.send(request), request, "ListToolsResult");
            assertEquals("complete", result.path("resultType").asText());
            result.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
            pageSizes.add(result.path("tools").size());
            if (!result.hasNonNull("nextCursor")) {
                cursor = null;
                break;
            }
            cursor = result.get("nextCursor").asText();
        }
        assertEquals(null, cursor, "the last page has no nextCursor");
        assertEquals(List.of(2, 2, 1), pageSizes);
        assertEquals(List.of("echo", "greet", "plan_trip", "pay_online", "noop"), names);
    }

    @Test
    void firstPageOfToolsListHasANextCursorAndToolSchemas() {
        ObjectNode request = client.request("tools/list", null, "{}");
        JsonNode result = assertResult(client.send(request), request, "ListToolsResult");
        assertTrue(result.path("nextCursor").isTextual(), () -> "nextCursor in " + result);
        JsonNode echo = result.path("tools").path(0);
        assertEquals("echo", echo.path("name").asText());
        assertEquals("object", echo.path("inputSchema").path("type").asText());
        assertEquals(
                "string",
                echo.path("inputSchema")
                        .path("properties")
                        .path("text")
                        .path("type")
                        .asText());
    }

    @Test
    void emptyCursorMeansTheFirstPage() {
        ObjectNode request = client.request("tools/list", Json.object().put("cursor", ""), "{}");
        JsonNode result = assertResult(client.send(request), request, "ListToolsResult");
        assertEquals("echo", result.path("tools").path(0).path("name").asText());
    }

    @Test
    void invalidCursorIsInvalidParams() {
        for (String cursor : new String[] {"not-a-cursor", "b2Zmc2V0Ojk5OQ", "!!!"}) {
            ObjectNode request = client.request("tools/list", Json.object().put("cursor", cursor), "{}");
            assertError(client.send(request), 200, -32602, request);
        }
    }

    @Test
    void listResultsAreTheSameForEveryCaller() {
        ObjectNode first = client.request("tools/list", null, "{}");
        ObjectNode second = client.request("tools/list", null, "{}");
        JsonNode alice = assertResult(client.send(first), first, "ListToolsResult");
        JsonNode bob = assertResult(
                client.send(second, java.util.Map.of(TestTools.USER_HEADER, "bob")), second, "ListToolsResult");
        assertEquals(alice, bob);
        assertFalse(alice.path("tools").isEmpty());
    }
}
