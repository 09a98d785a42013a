package dev.parley.http.internal.ops;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Fallback;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.SamplingRequest;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the MCP guidance says to measure: elicitation answers by tool, mode and action (a
 * fallback counts as unanswerable), the time from a question to its answer by mode, and
 * requests that use deprecated features. Known flows move the counters by exactly their count.
 */
class ElicitationMetricsTest {
    private static final String ANSWERS = "parley_elicitation_answers_total";
    private static final String ANSWER_TIME = "parley_elicitation_answer_duration_seconds_count";
    private static final String DEPRECATED = "parley_deprecated_requests_total";

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    record Size(String size) {}

    record Topic(String topic) {}

    static McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-metrics-tests", "0.0.1")
                .tool(ToolDefinition.tool("pick", Topic.class).handler((args, ctx) -> {
                    Size size = ctx.elicit(
                                    "size",
                                    Elicitation.form("Which size?", Size.class),
                                    Fallback.returning(cannot -> ToolResult.text("Pass a size: " + cannot)))
                            .orElseReturn(no -> ToolResult.text("No size: " + no));
                    return ToolResult.text("size " + size.size());
                }))
                .tool(ToolDefinition.tool("visit", Topic.class).handler((args, ctx) -> {
                    ctx.elicit("page", Elicitation.url("Open the page", "https://example.com/" + args.topic()))
                            .orElseReturn(no -> ToolResult.text("Not visited: " + no));
                    return ToolResult.text("visited");
                }))
                .tool(ToolDefinition.tool("summarize", Topic.class).handler((args, ctx) -> {
                    @SuppressWarnings("deprecation")
                    var summary = ctx.sample("summary", SamplingRequest.userText("Summarize " + args.topic(), 50));
                    return ToolResult.text("summarized " + summary.text());
                }))
                .build();
    }

    @BeforeAll
    static void start() {
        server = McpHttpServer.builder(definition())
                .dataDirectory(data)
                .port(0)
                .config(ConfigFactory.parseString("parley.management.port = 0"))
                .start();
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void answersByToolModeAndActionTheirTimesAndDeprecatedRequestsMoveByExactlyTheFlowsCounts() {
        String before = Prometheus.scrape(server.managementPort());

        answerPick("{\"action\":\"accept\",\"content\":{\"size\":\"M\"}}", "size M");
        answerPick("{\"action\":\"decline\"}", "No size: declined");
        answerPick("{\"action\":\"cancel\"}", "No size: cancelled");
        ObjectNode cannot = client.toolCall("pick", Json.object().put("topic", "t"), "{}");
        assertEquals("Pass a size: this client cannot show a form", text(assertCompleted(client.send(cannot), cannot)));

        ObjectNode visit = client.toolCall("visit", Json.object().put("topic", "t"), McpTestClient.ALL_ELICITATION);
        JsonNode page = assertInputRequired(client.send(visit), visit);
        ObjectNode visited =
                client.retry(visit, page.get("requestState").asText(), answer("page", "{\"action\":\"accept\"}"));
        assertEquals("visited", text(assertCompleted(client.send(visited), visited)));

        ObjectNode summarize = client.toolCall("summarize", Json.object().put("topic", "t"), "{\"sampling\":{}}");
        assertInputRequired(client.send(summarize), summarize);

        String after = Prometheus.scrape(server.managementPort());
        for (String action : new String[] {"accept", "decline", "cancel", "unanswerable"}) {
            assertEquals(
                    1, delta(before, after, ANSWERS, Map.of("tool", "pick", "mode", "form", "action", action)), action);
        }
        assertEquals(1, delta(before, after, ANSWERS, Map.of("tool", "visit", "mode", "url", "action", "accept")));
        assertEquals(5, delta(before, after, ANSWERS, Map.of()));
        assertEquals(3, delta(before, after, ANSWER_TIME, Map.of("mode", "form")), "no time for the unanswerable");
        assertEquals(1, delta(before, after, ANSWER_TIME, Map.of("mode", "url")));
        assertEquals(
                1, delta(before, after, DEPRECATED, Map.of("feature", "sampling", "method", "sampling/createMessage")));
        assertEquals(1, delta(before, after, DEPRECATED, Map.of()));
    }

    @Test
    void aSessionsLoggingSetLevelIsADeprecatedRequest() {
        String before = Prometheus.scrape(server.managementPort());
        ObjectNode params = Json.object().put("protocolVersion", "2025-11-25");
        params.set("capabilities", Json.object());
        params.set("clientInfo", Json.object().put("name", "metrics-test").put("version", "1"));
        String session = client.post(Json.write(request(0, "initialize", params)), headers(null))
                .headers()
                .firstValue("mcp-session-id")
                .orElseThrow();
        client.post(Json.write(request(1, "logging/setLevel", Json.object().put("level", "info"))), headers(session));
        client.post(Json.write(request(2, "ping", Json.object())), headers(session));

        String after = Prometheus.scrape(server.managementPort());
        assertEquals(1, delta(before, after, DEPRECATED, Map.of("feature", "logging", "method", "logging/setLevel")));
        assertEquals(1, delta(before, after, DEPRECATED, Map.of()));
    }

    private static void answerPick(String response, String expected) {
        ObjectNode call = client.toolCall("pick", Json.object().put("topic", "t"), McpTestClient.FORM_ONLY);
        JsonNode asked = assertInputRequired(client.send(call), call);
        ObjectNode retry = client.retry(call, asked.get("requestState").asText(), answer("size", response));
        assertEquals(expected, text(assertCompleted(client.send(retry), retry)));
    }

    private static ObjectNode answer(String key, String response) {
        ObjectNode answers = Json.object();
        answers.set(key, Json.parse(response));
        return answers;
    }

    private static String text(JsonNode result) {
        return result.at("/content/0/text").asText();
    }

    private static double delta(String before, String after, String name, Map<String, String> labels) {
        return Prometheus.sample(after, name, labels) - Prometheus.sample(before, name, labels);
    }

    private static ObjectNode request(int id, String method, ObjectNode params) {
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        message.set("params", params);
        return message;
    }

    private static Map<String, String> headers(String session) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json");
        if (session != null) {
            headers.put("Mcp-Session-Id", session);
            headers.put("MCP-Protocol-Version", "2025-11-25");
        }
        return headers;
    }
}
