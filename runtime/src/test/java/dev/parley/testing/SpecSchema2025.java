package dev.parley.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Validates what a server sends a 2025-11-25 client against that revision's JSON Schema
 * ({@code mcp-2025-11-25-schema.json}, a copy of {@code shared/spec}): each message as a JSON-RPC
 * message, then by what it is: a server→client request or a notification by its method, a
 * result by the method of the request it answers (the schema's {@code Result} is open, so a
 * result is checked against the definition of that method's result, e.g. {@code CallToolResult}).
 */
public final class SpecSchema2025 {
    public static final String RESOURCE = "/mcp-2025-11-25-schema.json";
    private static final String ID = "https://parley.dev/spec/mcp-2025-11-25-schema.json";

    /** Server→client requests and notifications, by method. */
    private static final Map<String, String> BY_METHOD = Map.ofEntries(
            Map.entry("elicitation/create", "ElicitRequest"),
            Map.entry("sampling/createMessage", "CreateMessageRequest"),
            Map.entry("roots/list", "ListRootsRequest"),
            Map.entry("ping", "PingRequest"),
            Map.entry("notifications/progress", "ProgressNotification"),
            Map.entry("notifications/message", "LoggingMessageNotification"),
            Map.entry("notifications/resources/updated", "ResourceUpdatedNotification"),
            Map.entry("notifications/resources/list_changed", "ResourceListChangedNotification"),
            Map.entry("notifications/tools/list_changed", "ToolListChangedNotification"),
            Map.entry("notifications/prompts/list_changed", "PromptListChangedNotification"),
            Map.entry("notifications/cancelled", "CancelledNotification"),
            Map.entry("notifications/elicitation/complete", "ElicitationCompleteNotification"));

    /** Results, by the method of the request they answer. */
    private static final Map<String, String> RESULT_OF = Map.ofEntries(
            Map.entry("initialize", "InitializeResult"),
            Map.entry("ping", "EmptyResult"),
            Map.entry("logging/setLevel", "EmptyResult"),
            Map.entry("resources/subscribe", "EmptyResult"),
            Map.entry("resources/unsubscribe", "EmptyResult"),
            Map.entry("tools/list", "ListToolsResult"),
            Map.entry("tools/call", "CallToolResult"),
            Map.entry("prompts/list", "ListPromptsResult"),
            Map.entry("prompts/get", "GetPromptResult"),
            Map.entry("resources/list", "ListResourcesResult"),
            Map.entry("resources/templates/list", "ListResourceTemplatesResult"),
            Map.entry("resources/read", "ReadResourceResult"),
            Map.entry("completion/complete", "CompleteResult"));

    private static final SchemaRegistry REGISTRY;
    private static final Map<String, Schema> COMPILED = new ConcurrentHashMap<>();

    static {
        String text;
        try (InputStream in = SpecSchema2025.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        REGISTRY = SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12,
                builder -> builder.schemas(Map.of(ID, text))
                        .schemaRegistryConfig(SchemaRegistryConfig.builder()
                                .formatAssertionsEnabled(true)
                                .build()));
    }

    private SpecSchema2025() {}

    /** The problems of {@code instance} against {@code #/$defs/<definitionName>}; empty when valid. */
    public static List<String> problems(String definitionName, JsonNode instance) {
        List<String> problems = new ArrayList<>();
        for (Error error : COMPILED.computeIfAbsent(
                        definitionName, name -> REGISTRY.getSchema(SchemaLocation.of(ID + "#/$defs/" + name)))
                .validate(instance)) {
            problems.add(error.toString());
        }
        return problems;
    }

    /**
     * Fails unless {@code message}, sent by the server to a 2025-11-25 client, is valid: a request or
     * notification by its method (an unknown method fails), a response to a request of
     * {@code requestMethod} by that method's result (or as an error response).
     */
    public static void assertValidServerMessage(JsonNode sent, String requestMethod) {
        // "id": null on an error whose request id could not be read: checked as the id-less reply the schema has.
        JsonNode message = SpecSchema.withoutNullId(sent);
        List<String> problems = new ArrayList<>(problems("JSONRPCMessage", message));
        if (message.has("method")) {
            String definition = BY_METHOD.get(message.path("method").asText());
            if (definition == null) {
                problems.add("a server does not send " + message.path("method").asText() + " to a 2025-11-25 client");
            } else {
                problems.addAll(problems(definition, message));
            }
        } else if (message.has("error")) {
            problems.addAll(problems("JSONRPCErrorResponse", message));
        } else {
            problems.addAll(problems("JSONRPCResultResponse", message));
            String result = RESULT_OF.get(requestMethod);
            if (result == null) {
                throw new IllegalArgumentException("no result definition for " + requestMethod);
            }
            problems.addAll(problems(result, message.path("result")));
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("not a valid 2025-11-25 server message (answering " + requestMethod + "):\n  - "
                    + String.join("\n  - ", problems) + "\nmessage: " + Json.write(message));
        }
    }
}
