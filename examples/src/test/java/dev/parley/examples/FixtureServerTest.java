package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertResult;
import static dev.parley.testing.McpTestClient.accept;
import static dev.parley.testing.McpTestClient.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance fixture server starts and offers what the suite calls by name; the full
 * behaviour is proven by the suite itself ({@code .ci/conformance}).
 */
class FixtureServerTest {
    private static final List<String> FIXTURE_TOOLS = List.of(
            "test_simple_text",
            "test_image_content",
            "test_audio_content",
            "test_embedded_resource",
            "test_multiple_content_types",
            "test_error_handling",
            "test_tool_with_progress",
            "json_schema_2020_12_tool",
            "test_header_parameter",
            "test_missing_capability",
            "test_streaming_elicitation",
            "test_logging_tool",
            "test_trigger_tool_change",
            "test_trigger_prompt_change",
            "test_input_required_result_elicitation",
            "test_input_required_result_sampling",
            "test_input_required_result_list_roots",
            "test_input_required_result_request_state",
            "test_input_required_result_tampered_state",
            "test_input_required_result_multiple_inputs",
            "test_input_required_result_multi_round",
            "test_input_required_result_capabilities",
            "greet",
            "slow_compute",
            "failing_job",
            "protocol_error_job",
            "confirm_delete",
            "multi_input",
            "test_tool_with_task",
            "test_tool_with_logging",
            "test_sampling",
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
            "test_reconnection");

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        server = Launcher.startFixtures(0, data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static List<String> names(JsonNode items, String member) {
        List<String> names = new ArrayList<>();
        items.forEach(item -> names.add(item.path(member).asText()));
        return names;
    }

    @Test
    void fixtureServerListsEveryFixtureToolPromptAndResource() {
        ObjectNode tools = client.request("tools/list", null, "{}");
        JsonNode listed =
                assertResult(client.send(tools), tools, "ListToolsResult").path("tools");
        assertTrue(names(listed, "name").containsAll(FIXTURE_TOOLS), () -> "tools: " + names(listed, "name"));
        listed.forEach(tool -> assertTrue(tool.path("description").isTextual(), () -> "a description on " + tool));

        ObjectNode prompts = client.request("prompts/list", null, "{}");
        assertTrue(names(
                        assertResult(client.send(prompts), prompts, "ListPromptsResult")
                                .path("prompts"),
                        "name")
                .containsAll(List.of(
                        "test_simple_prompt",
                        "test_prompt_with_arguments",
                        "test_prompt_with_embedded_resource",
                        "test_prompt_with_image",
                        "test_input_required_result_prompt")));

        ObjectNode resources = client.request("resources/list", null, "{}");
        assertEquals(
                List.of("test://static-text", "test://static-binary", "test://watched-resource"),
                names(
                        assertResult(client.send(resources), resources, "ListResourcesResult")
                                .path("resources"),
                        "uri"));
    }

    @Test
    void jsonSchema2020ToolKeepsItsSchemaVerbatim() {
        ObjectNode tools = client.request("tools/list", null, "{}");
        JsonNode listed =
                assertResult(client.send(tools), tools, "ListToolsResult").path("tools");
        JsonNode tool = toList(listed).stream()
                .filter(t -> t.path("name").asText().equals("json_schema_2020_12_tool"))
                .findFirst()
                .orElseThrow();
        assertEquals(Json.parse(FixtureServer.JSON_SCHEMA_2020_12), tool.path("inputSchema"));
    }

    @Test
    void multiRoundElicitationCompletesOverThreeRounds() {
        ObjectNode call = client.toolCall("test_input_required_result_multi_round", Json.object());
        JsonNode round1 = assertInputRequired(client.send(call), call);
        ObjectNode retry1 = client.retry(
                call, round1.path("requestState").asText(), accept("step1", object("{\"name\":\"Alice\"}")));
        JsonNode round2 = assertInputRequired(client.send(retry1), retry1);
        assertTrue(round2.path("inputRequests").has("step2"), () -> "asks step2: " + round2);
        ObjectNode retry2 = client.retry(
                call, round2.path("requestState").asText(), accept("step2", object("{\"color\":\"blue\"}")));
        assertEquals(
                "Multi-round complete for Alice who likes blue",
                client.send(retry2).text());
    }

    @Test
    void answersOfferedOnTheFirstCallAreUsed() {
        ObjectNode call = client.toolCall("test_input_required_result_elicitation", Json.object());
        ObjectNode answers = accept("user_name", object("{\"name\":\"Alice\"}"));
        answers.set("unknown_extra_key", object("{\"action\":\"accept\",\"content\":{\"foo\":\"bar\"}}"));
        ((ObjectNode) call.get("params")).set("inputResponses", answers);
        assertEquals("Hello, Alice!", assertCompletedText(call));
    }

    @Test
    void missingCapabilityIsRefusedWithItsName() {
        ObjectNode call = client.toolCall("test_missing_capability", Json.object(), "{}");
        JsonNode error = assertError(client.send(call), 400, -32021, call);
        assertTrue(
                error.path("data").path("requiredCapabilities").path("sampling").isObject(),
                () -> "names sampling: " + error);
    }

    @Test
    void versionHeaderMismatchWinsOverAnUnsupportedBodyVersion() {
        ObjectNode discover = client.request("server/discover", null, "{}");
        ((ObjectNode) discover.path("params").path("_meta")).put("io.modelcontextprotocol/protocolVersion", "v999.0.0");
        assertError(
                client.send(discover, Map.of("MCP-Protocol-Version", McpTestClient.VERSION)), 400, -32020, discover);
    }

    private static String assertCompletedText(ObjectNode call) {
        return assertCompleted(client.send(call), call)
                .path("content")
                .path(0)
                .path("text")
                .asText();
    }

    private static List<JsonNode> toList(JsonNode array) {
        List<JsonNode> items = new ArrayList<>();
        array.forEach(items::add);
        return items;
    }
}
