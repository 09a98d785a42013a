package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.schema.JsonSchemas;
import dev.parley.testing.McpTestClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MCP Apps on the demo: book_venue's calendar view and its app-only tool, checked against the
 * extension's own JSON Schema (from the MCP Apps SDK on npm, {@code @modelcontextprotocol/ext-apps},
 * installed with the interop clients), and invisible to a client that did not declare the extension.
 */
class McpAppsIT {
    private static final String APPS =
            "{\"extensions\":{\"io.modelcontextprotocol/ui\":" + "{\"mimeTypes\":[\"text/html;profile=mcp-app\"]}}}";
    private static final String VIEW = "ui://parley-demo/venue-calendar";

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static JsonNode appsSchema;

    @BeforeAll
    static void start() throws Exception {
        InteropIT.installClients();
        appsSchema = Json.parse(Files.readString(Path.of(
                "target",
                "interop",
                "node_modules",
                "@modelcontextprotocol",
                "ext-apps",
                "dist",
                "src",
                "generated",
                "schema.json")));
        server = Launcher.startDemo(0, data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** The extension schema's definition {@code name}, with the other definitions it refers to. */
    private static Schema definition(String name) {
        ObjectNode schema = appsSchema.deepCopy();
        schema.remove("title");
        schema.put("$ref", "#/$defs/" + name);
        return JsonSchemas.compile(schema);
    }

    private static void assertConforms(String definition, JsonNode value) {
        List<String> problems = JsonSchemas.problems(definition(definition), value);
        assertTrue(problems.isEmpty(), () -> definition + ": " + problems + " in " + value);
    }

    private static Map<String, JsonNode> tools(String capabilities) {
        ObjectNode request = client.request("tools/list", null, capabilities);
        JsonNode result = assertResult(client.send(request), request, "ListToolsResult");
        Map<String, JsonNode> tools = new LinkedHashMap<>();
        result.path("tools").forEach(tool -> tools.put(tool.path("name").asText(), tool));
        return tools;
    }

    private static List<String> resourceUris(String capabilities) {
        ObjectNode request = client.request("resources/list", null, capabilities);
        JsonNode result = assertResult(client.send(request), request, "ListResourcesResult");
        List<String> uris = new ArrayList<>();
        result.path("resources")
                .forEach(resource -> uris.add(resource.path("uri").asText()));
        return uris;
    }

    @Test
    void aClientThatDeclaresMcpAppsSeesTheViewAndItsToolsInTheExtensionsShapes() {
        ObjectNode discover = client.request("server/discover", null, APPS);
        JsonNode discovered = assertResult(client.send(discover), discover, "DiscoverResult");
        assertTrue(discovered.at("/capabilities/extensions").has("io.modelcontextprotocol/ui"), discovered.toString());

        Map<String, JsonNode> tools = tools(APPS);
        JsonNode bookVenue = tools.get("book_venue");
        assertEquals(VIEW, bookVenue.at("/_meta/ui/resourceUri").asText(), bookVenue.toString());
        assertConforms("McpUiToolMeta", bookVenue.at("/_meta/ui"));
        JsonNode calendar = tools.get("venue_calendar");
        assertEquals("[\"app\"]", calendar.at("/_meta/ui/visibility").toString(), "app-only");
        assertConforms("McpUiToolMeta", calendar.at("/_meta/ui"));
        assertFalse(tools.get("check_availability").has("_meta"), "a tool without a view has no _meta.ui");

        assertTrue(resourceUris(APPS).contains(VIEW));
        ObjectNode read = client.request("resources/read", Json.object().put("uri", VIEW), APPS);
        JsonNode contents = assertResult(client.send(read), read, "ReadResourceResult")
                .path("contents")
                .path(0);
        assertEquals(VIEW, contents.path("uri").asText());
        assertEquals("text/html;profile=mcp-app", contents.path("mimeType").asText());
        assertTrue(contents.path("text").asText().startsWith("<!DOCTYPE html>"), "an HTML5 document");
        assertConforms("McpUiResourceMeta", contents.at("/_meta/ui"));
        assertTrue(contents.at("/_meta/ui/prefersBorder").asBoolean());
    }

    @Test
    void theViewsAppOnlyToolAnswersWithTheTakenDatesOfAMonth() {
        ObjectNode call = client.toolCall("venue_calendar", Json.object().put("month", "2026-12"), APPS);
        JsonNode result = assertCompleted(client.send(call), call);
        assertEquals("2026-12", result.at("/structuredContent/month").asText());
        assertTrue(result.at("/structuredContent/taken").toString().contains("2026-12-24"), result.toString());
        ObjectNode bad = client.toolCall("venue_calendar", Json.object().put("month", "december"), APPS);
        assertTrue(client.send(bad).result().path("isError").asBoolean(), "a bad month is a tool error");
    }

    @Test
    void aClientThatDidNotDeclareMcpAppsSeesNoneOfIt() {
        Map<String, JsonNode> tools = tools("{}");
        assertFalse(tools.containsKey("venue_calendar"), "app-only tools are hidden");
        assertFalse(
                tools.get("book_venue").has("_meta"), tools.get("book_venue").toString());
        assertFalse(resourceUris("{}").contains(VIEW));
        ObjectNode read = client.request("resources/read", Json.object().put("uri", VIEW), "{}");
        // the resource-not-found answer of 2026-07-28 (SEP-2164), the same as for a URI that never existed
        assertError(client.send(read), 200, -32602, read);
    }

    @Test
    void aLegacySessionLearnsOfTheExtensionAtInitialize() {
        ObjectNode params = Json.object().put("protocolVersion", "2025-11-25");
        params.set("capabilities", Json.parse(APPS));
        params.set("clientInfo", Json.object().put("name", "apps-host").put("version", "1"));
        ObjectNode initialize = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize");
        initialize.set("params", params);
        McpTestClient.Reply reply = client.post(
                Json.write(initialize),
                Map.of("Content-Type", "application/json", "Accept", "application/json, text/event-stream"));
        assertEquals(200, reply.status(), reply.body());
        assertTrue(reply.result().at("/capabilities/extensions").has("io.modelcontextprotocol/ui"), reply.body());
        String session = reply.headers().firstValue("mcp-session-id").orElseThrow();

        ObjectNode list = Json.object().put("jsonrpc", "2.0").put("id", 2).put("method", "tools/list");
        McpTestClient.Reply listed = client.post(
                Json.write(list),
                Map.of(
                        "Content-Type",
                        "application/json",
                        "Accept",
                        "application/json, text/event-stream",
                        "Mcp-Session-Id",
                        session,
                        "MCP-Protocol-Version",
                        "2025-11-25"));
        assertEquals(200, listed.status(), listed.body());
        JsonNode bookVenue = null;
        for (JsonNode tool : listed.result().path("tools")) {
            if (tool.path("name").asText().equals("book_venue")) {
                bookVenue = tool;
            }
        }
        assertTrue(
                bookVenue != null
                        && VIEW.equals(bookVenue.at("/_meta/ui/resourceUri").asText()),
                listed.body());
    }
}
