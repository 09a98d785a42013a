package dev.parley.examples;

import static dev.parley.examples.FixtureServer.noArguments;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Json;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.ResourceContents;
import dev.parley.runtime.ResourceDefinition;
import dev.parley.runtime.SamplingAnswer;
import dev.parley.runtime.SamplingRequest;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.util.List;

/**
 * The fixtures only the 2025-11-25 scenarios use (CONFORMANCE.md §6.8). They are ordinary
 * handlers: on a 2025 session their questions become server→client requests on the call's
 * stream; on 2026-07-28 the same code answers {@code input_required}.
 */
@SuppressWarnings("deprecation") // sampling is deprecated, and exercised here on purpose
final class FixtureLegacy {
    private FixtureLegacy() {}

    static List<ToolDefinition<?>> tools() {
        return List.of(
                noArguments("test_tool_with_logging", "Logs three messages while it runs", FixtureLegacy::withLogging),
                ToolDefinition.tool("test_sampling", stringArgument("prompt"))
                        .description("Asks the client's model to answer a prompt")
                        .handler((args, ctx) -> {
                            SamplingAnswer answer = ctx.sample(
                                    "sampling",
                                    SamplingRequest.userText(args.path("prompt").asText(), 100));
                            return ToolResult.text("LLM response: " + answer.text());
                        }),
                ToolDefinition.tool("test_elicitation", stringArgument("message"))
                        .description("Asks the user for a response")
                        .handler((args, ctx) -> {
                            // The fields the suite's client answers with (CONFORMANCE.md §6.8).
                            ObjectNode schema = Json.object().put("type", "object");
                            ObjectNode properties = schema.putObject("properties");
                            properties
                                    .putObject("username")
                                    .put("type", "string")
                                    .put("description", "Your username");
                            properties
                                    .putObject("email")
                                    .put("type", "string")
                                    .put("description", "Your email address");
                            schema.putArray("required").add("username").add("email");
                            return ToolResult.text("User response: "
                                    + describe(ctx.elicit(
                                            "response",
                                            new Elicitation.Form(
                                                    args.path("message").asText(), schema))));
                        }),
                noArguments(
                        "test_elicitation_sep1034_defaults",
                        "Asks with a form whose fields have defaults",
                        (args, ctx) -> ToolResult.text("Elicitation completed: "
                                + describe(ctx.elicit(
                                        "defaults",
                                        new Elicitation.Form("Please review your details", defaultsSchema()))))),
                noArguments(
                        "test_elicitation_sep1330_enums",
                        "Asks with every kind of enum field",
                        (args, ctx) -> ToolResult.text("Elicitation completed: "
                                + describe(ctx.elicit("enums", new Elicitation.Form("Please choose", enumsSchema()))))),
                // Long work (it may run as a task), so a 2025 call's stream opens at once; the fixture
                // server polls streams after 2 s, so this one ends mid-call and the result comes on the
                // client's GET with Last-Event-ID, from the journal (server-sse-polling).
                ToolDefinition.tool("test_reconnection", FixtureServer.noArgumentsSchema())
                        .description("Works for 3 s; its stream's connection ends before the result")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((args, ctx) -> {
                            Thread.sleep(RECONNECTION_WORK.toMillis());
                            return ToolResult.text("Reconnection test completed successfully");
                        }));
    }

    /** Longer than the fixture server's {@link #POLL_AFTER}. */
    private static final java.time.Duration RECONNECTION_WORK = java.time.Duration.ofMillis(3000);

    /** The fixture server's SSE polling: streams end their connection after this, the client resumes. */
    static final String POLL_AFTER = "parley.http.legacy-streams { poll-after = 2s, retry = 200ms }";

    static ResourceDefinition watchedResource() {
        return ResourceDefinition.resource("test://watched-resource", "watched-resource")
                .description("A resource clients may subscribe to")
                .mimeType("text/plain")
                .handler((read, ctx) ->
                        List.of(ResourceContents.text(read.uri(), "text/plain", "Watched resource content")));
    }

    private static ToolResult withLogging(ObjectNode args, CallContext ctx) throws InterruptedException {
        String[] messages = {"Tool execution started", "Tool processing data", "Tool execution completed"};
        for (int i = 0; i < messages.length; i++) {
            if (i > 0) {
                Thread.sleep(50);
            }
            ctx.log(LogLevel.INFO, "test_tool_with_logging", messages[i]);
        }
        return ToolResult.text("Tool with logging executed successfully");
    }

    private static String describe(ElicitAnswer answer) {
        if (answer instanceof ElicitAnswer.Accepted accepted) {
            return "action=accept, content=" + Json.write(accepted.content());
        }
        return "action=" + (answer instanceof ElicitAnswer.Declined ? "decline" : "cancel") + ", content=null";
    }

    private static ObjectNode stringArgument(String name) {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject(name).put("type", "string");
        schema.putArray("required").add(name);
        return schema;
    }

    private static ObjectNode defaultsSchema() {
        ObjectNode schema = Json.object().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        properties.putObject("name").put("type", "string").put("default", "John Doe");
        properties.putObject("age").put("type", "integer").put("default", 30);
        properties.putObject("score").put("type", "number").put("default", 95.5);
        ObjectNode status = properties.putObject("status").put("type", "string").put("default", "active");
        status.putArray("enum").add("active").add("inactive").add("pending");
        properties.putObject("verified").put("type", "boolean").put("default", true);
        return schema;
    }

    private static ObjectNode enumsSchema() {
        ObjectNode schema = Json.object().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        properties
                .putObject("untitledSingle")
                .put("type", "string")
                .putArray("enum")
                .add("option1")
                .add("option2")
                .add("option3");
        ArrayNode titled =
                properties.putObject("titledSingle").put("type", "string").putArray("oneOf");
        String[] titles = {"First Option", "Second Option", "Third Option"};
        for (int i = 0; i < 3; i++) {
            titled.addObject().put("const", "value" + (i + 1)).put("title", titles[i]);
        }
        ObjectNode legacy = properties.putObject("legacyEnum").put("type", "string");
        legacy.putArray("enum").add("opt1").add("opt2").add("opt3");
        legacy.putArray("enumNames").add("Option One").add("Option Two").add("Option Three");
        ObjectNode untitledMulti = properties
                .putObject("untitledMulti")
                .put("type", "array")
                .put("minItems", 1)
                .put("maxItems", 3);
        untitledMulti
                .putObject("items")
                .put("type", "string")
                .putArray("enum")
                .add("option1")
                .add("option2")
                .add("option3");
        ObjectNode titledMulti = properties
                .putObject("titledMulti")
                .put("type", "array")
                .put("minItems", 1)
                .put("maxItems", 3);
        ArrayNode choices = titledMulti.putObject("items").putArray("anyOf");
        String[] choiceTitles = {"First Choice", "Second Choice", "Third Choice"};
        for (int i = 0; i < 3; i++) {
            choices.addObject().put("const", "value" + (i + 1)).put("title", choiceTitles[i]);
        }
        return schema;
    }
}
