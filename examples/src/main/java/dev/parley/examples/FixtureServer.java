package dev.parley.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.Completer;
import dev.parley.runtime.Content;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.PromptDefinition.Message;
import dev.parley.runtime.ResourceContents;
import dev.parley.runtime.ResourceDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.util.List;

/**
 * The conformance fixture: every tool, prompt and resource the official MCP conformance suite
 * ({@code @modelcontextprotocol/conformance}, requirement set 2026-07-28) calls by name, with the
 * behaviour it checks (docs: CONFORMANCE.md §6.1-§6.7). Written against the public author
 * API only; the MRTR fixtures are in {@link FixtureMrtr}, the tasks fixtures in {@link FixtureTasks}.
 */
public final class FixtureServer {
    /** A 1x1 PNG (CONFORMANCE.md §6.1). */
    static final String PNG =
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    /** A minimal WAV (CONFORMANCE.md §6.1). */
    static final String WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

    /** The tool and prompt the change hooks add and remove, so list_changed has a real cause. */
    static final String DYNAMIC_TOOL = "test_dynamic_tool";

    static final String DYNAMIC_PROMPT = "test_dynamic_prompt";

    static final String JSON_SCHEMA_2020_12 = """
      {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
       "$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
       "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},
         "contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},
       "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
       "if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
       "then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}
      """;

    private final McpServerDefinition definition;

    public FixtureServer() {
        McpServerDefinition.Builder builder = McpServerDefinition.builder("parley-fixtures", "0.1.0")
                .title("Parley conformance fixtures")
                .instructions(
                        "Fixture tools, prompts and resources of the MCP conformance suite (2026-07-28 and 2025-11-25).");
        coreTools().forEach(builder::tool);
        diagnosticTools().forEach(builder::tool);
        FixtureMrtr.tools().forEach(builder::tool);
        FixtureTasks.tools().forEach(builder::tool);
        FixtureLegacy.tools().forEach(builder::tool);
        prompts().forEach(builder::prompt);
        builder.prompt(FixtureMrtr.prompt());
        resources().forEach(builder::resource);
        builder.resource(FixtureLegacy.watchedResource());
        this.definition = builder.build();
    }

    public McpServerDefinition definition() {
        return definition;
    }

    // --- core tools (§6.2) ------------------------------------------------------------------

    private static List<ToolDefinition<?>> coreTools() {
        return List.of(
                noArguments(
                        "test_simple_text",
                        "Returns a simple text response",
                        (args, ctx) -> ToolResult.text("This is a simple text response for testing.")),
                noArguments(
                        "test_image_content",
                        "Returns an image",
                        (args, ctx) -> content(new Content.Image(PNG, "image/png"))),
                noArguments(
                        "test_audio_content",
                        "Returns audio",
                        (args, ctx) -> content(new Content.Audio(WAV, "audio/wav"))),
                noArguments(
                        "test_embedded_resource",
                        "Returns an embedded resource",
                        (args, ctx) -> content(new Content.EmbeddedResource(ResourceContents.text(
                                "test://embedded-resource", "text/plain", "This is an embedded resource content.")))),
                noArguments(
                        "test_multiple_content_types",
                        "Returns text, an image and a resource",
                        (args, ctx) -> content(
                                Content.text("Multiple content types test:"),
                                new Content.Image(PNG, "image/png"),
                                new Content.EmbeddedResource(ResourceContents.text(
                                        "test://mixed-content-resource",
                                        "application/json",
                                        Json.write(Json.object()
                                                .put("test", "data")
                                                .put("value", 123)))))),
                noArguments(
                        "test_error_handling",
                        "Always fails as a tool (isError result)",
                        (args, ctx) -> ToolResult.error("This tool intentionally returns an error for testing")),
                noArguments(
                        "test_tool_with_progress",
                        "Reports progress 0, 50, 100 of 100, then answers",
                        FixtureServer::withProgress),
                ToolDefinition.tool("json_schema_2020_12_tool", Json.parse(JSON_SCHEMA_2020_12))
                        .description("Tool with JSON Schema 2020-12 features")
                        .handler((args, ctx) -> ToolResult.text("Received: " + Json.write(args))),
                headerParameterTool());
    }

    private static ToolResult withProgress(ObjectNode args, CallContext ctx) throws InterruptedException {
        for (int step = 0; step <= 2; step++) {
            if (step > 0) {
                Thread.sleep(50);
            }
            int done = step * 50;
            ctx.progress(done, 100.0, "Completed step " + done + " of 100");
        }
        return ToolResult.text("Progress reported: 0, 50, 100 of 100");
    }

    /**
     * A tool whose {@code region} argument is mirrored in the {@code Mcp-Param-Region} header
     * ({@code x-mcp-header}, spec §6.2), so the runtime's header validation can be exercised.
     */
    private static ToolDefinition<ObjectNode> headerParameterTool() {
        ObjectNode schema = Json.object().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        properties
                .putObject("region")
                .put("type", "string")
                .put("description", "Region to query")
                .put("x-mcp-header", "Region");
        properties.putObject("query").put("type", "string").put("description", "What to look up");
        schema.putArray("required").add("region");
        return ToolDefinition.tool("test_header_parameter", schema)
                .description("Echoes its region argument, which clients also send as the Mcp-Param-Region header")
                .handler((args, ctx) ->
                        ToolResult.text("Region: " + args.path("region").asText()));
    }

    // --- 2026-only diagnostics used by server-stateless (§6.4) -------------------------------

    private List<ToolDefinition<?>> diagnosticTools() {
        return List.of(
                noArguments(
                        "test_missing_capability",
                        "Needs the sampling capability; -32021 without it",
                        FixtureServer::needsSampling),
                noArguments(
                        "test_streaming_elicitation",
                        "Answers without ever sending a request on the response stream",
                        (args, ctx) -> ToolResult.text("Streaming complete")),
                noArguments(
                        "test_logging_tool", "Logs only when the request asked for a log level", FixtureServer::logs),
                noArguments(
                        "test_trigger_tool_change",
                        "Adds or removes " + DYNAMIC_TOOL + " (tools list_changed)",
                        (args, ctx) -> {
                            toggleTool();
                            return ToolResult.text("Mutation triggered");
                        }),
                noArguments(
                        "test_trigger_prompt_change",
                        "Adds or removes " + DYNAMIC_PROMPT + " (prompts list_changed)",
                        (args, ctx) -> {
                            togglePrompt();
                            return ToolResult.text("Mutation triggered");
                        }));
    }

    private static ToolResult needsSampling(ObjectNode args, CallContext ctx) {
        if (!ctx.clientCapabilities().sampling()) {
            ObjectNode data = Json.object();
            data.putObject("requiredCapabilities").putObject("sampling");
            throw new McpException(
                    ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, "MissingRequiredClientCapabilityError", data);
        }
        return ToolResult.text("Success");
    }

    @SuppressWarnings("deprecation")
    private static ToolResult logs(ObjectNode args, CallContext ctx) {
        // The runtime drops these unless _meta["io.modelcontextprotocol/logLevel"] asked for them.
        ctx.log(LogLevel.INFO, "fixtures", "Logging tool evaluated");
        return ToolResult.text("Logging evaluated");
    }

    /** Each call flips the dynamic tool's presence: one real change, one notification. */
    private synchronized void toggleTool() {
        if (!definition.removeTool(DYNAMIC_TOOL)) {
            definition.addTool(noArguments(
                    DYNAMIC_TOOL,
                    "Added at runtime by test_trigger_tool_change",
                    (args, ctx) -> ToolResult.text("Dynamic tool")));
        }
    }

    private synchronized void togglePrompt() {
        if (!definition.removePrompt(DYNAMIC_PROMPT)) {
            definition.addPrompt(PromptDefinition.prompt(DYNAMIC_PROMPT)
                    .description("Added at runtime by test_trigger_prompt_change")
                    .handler((args, ctx) -> PromptDefinition.Result.of(Message.user(Content.text("Dynamic prompt")))));
        }
    }

    // --- prompts and completion (§6.3) ------------------------------------------------------

    private static List<PromptDefinition> prompts() {
        Completer arg1 = (prefix, others) -> List.of("paris", "park", "party", "hello").stream()
                .filter(value -> value.startsWith(prefix))
                .toList();
        return List.of(
                PromptDefinition.prompt("test_simple_prompt")
                        .description("A simple prompt without arguments")
                        .handler((args, ctx) -> PromptDefinition.Result.of(
                                Message.user(Content.text("This is a simple prompt for testing.")))),
                PromptDefinition.prompt("test_prompt_with_arguments")
                        .description("A prompt with required arguments")
                        .argument("arg1", "First test argument", true)
                        .argument("arg2", "Second test argument", true)
                        .completion("arg1", arg1)
                        .handler((args, ctx) ->
                                PromptDefinition.Result.of(Message.user(Content.text("Prompt with arguments: arg1='"
                                        + args.get("arg1") + "', arg2='" + args.get("arg2") + "'")))),
                PromptDefinition.prompt("test_prompt_with_embedded_resource")
                        .description("A prompt with an embedded resource")
                        .argument("resourceUri", "URI of the resource to embed", true)
                        .handler((args, ctx) -> PromptDefinition.Result.of(
                                Message.user(new Content.EmbeddedResource(ResourceContents.text(
                                        args.get("resourceUri"),
                                        "text/plain",
                                        "Embedded resource content for testing."))),
                                Message.user(Content.text("Please process the embedded resource above.")))),
                PromptDefinition.prompt("test_prompt_with_image")
                        .description("A prompt with an image")
                        .handler((args, ctx) -> PromptDefinition.Result.of(
                                Message.user(new Content.Image(PNG, "image/png")),
                                Message.user(Content.text("Please analyze the image above.")))));
    }

    // --- resources (§6.3) -------------------------------------------------------------------

    private static List<ResourceDefinition> resources() {
        return List.of(
                ResourceDefinition.resource("test://static-text", "static-text")
                        .title("Static Text Resource")
                        .description("A static text resource for testing")
                        .mimeType("text/plain")
                        .handler((read, ctx) -> List.of(ResourceContents.text(
                                read.uri(), "text/plain", "This is the content of the static text resource."))),
                ResourceDefinition.resource("test://static-binary", "static-binary")
                        .title("Static Binary Resource")
                        .description("A static binary resource (image) for testing")
                        .mimeType("image/png")
                        .handler((read, ctx) -> List.of(ResourceContents.blob(read.uri(), "image/png", PNG))),
                ResourceDefinition.template("test://template/{id}/data", "template-data")
                        .title("Template Resource")
                        .description("A resource template with an id parameter")
                        .mimeType("application/json")
                        .handler((read, ctx) -> {
                            String id = read.variables().get("id");
                            JsonNode data = Json.object()
                                    .put("id", id)
                                    .put("templateTest", true)
                                    .put("data", "Data for ID: " + id);
                            return List.of(ResourceContents.text(read.uri(), "application/json", Json.write(data)));
                        }));
    }

    // --- helpers ----------------------------------------------------------------------------

    /** The schema of a tool without arguments: {@code {"type":"object","properties":{}}}. */
    static ObjectNode noArgumentsSchema() {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties");
        return schema;
    }

    static ToolDefinition<ObjectNode> noArguments(
            String name, String description, dev.parley.runtime.ToolHandler<ObjectNode> handler) {
        return ToolDefinition.tool(name, noArgumentsSchema())
                .description(description)
                .handler(handler);
    }

    private static ToolResult content(Content... blocks) {
        return new ToolResult(List.of(blocks), null, false);
    }
}
