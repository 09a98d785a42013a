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
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Validates JSON against the official MCP 2026-07-28 JSON Schema ({@code mcp-2026-07-28-schema.json},
 * a copy of {@code shared/spec}, on the test classpath of every module that depends on the runtime
 * test-jar). Each check names a definition of the schema's {@code $defs}, e.g. {@code CallToolResult},
 * {@code InputRequiredResult}, {@code DiscoverResult}, {@code ListToolsResult}, {@code JSONRPCErrorResponse}.
 *
 * <p>Draft 2020-12, with {@code format} asserted. Besides the schema, two rules the spec states in
 * prose are checked: an {@code InputRequiredResult} has {@code resultType: "input_required"} and at
 * least one of {@code inputRequests} / {@code requestState}; any other definition that has a
 * {@code resultType} member must carry {@code "complete"}.
 *
 * <pre>{@code
 * SpecSchema.assertValid("CallToolResult", result);
 * SpecSchema.assertValidResultResponse("ListToolsResult", response);
 * SpecSchema.assertValidErrorResponse("MissingRequiredClientCapabilityError", response);
 * }</pre>
 */
public final class SpecSchema {
    /** Where the schema lives on the test classpath. */
    public static final String RESOURCE = "/mcp-2026-07-28-schema.json";
    /** The document has no {@code $id}; it is registered under this one. */
    private static final String ID = "https://parley.dev/spec/mcp-2026-07-28-schema.json";

    private static final JsonNode DOCUMENT;
    private static final SchemaRegistry REGISTRY;
    private static final Map<String, Schema> COMPILED = new ConcurrentHashMap<>();

    static {
        String text;
        try (InputStream in = SpecSchema.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DOCUMENT = Json.parse(text);
        REGISTRY = SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12,
                builder -> builder.schemas(Map.of(ID, text))
                        .schemaRegistryConfig(SchemaRegistryConfig.builder()
                                .formatAssertionsEnabled(true)
                                .build()));
    }

    private SpecSchema() {}

    /** The names under {@code $defs}, sorted. */
    public static Set<String> definitionNames() {
        Set<String> names = new TreeSet<>();
        DOCUMENT.path("$defs").fieldNames().forEachRemaining(names::add);
        return Collections.unmodifiableSet(names);
    }

    /** The problems of {@code instance} against {@code #/$defs/<definitionName>}; empty when it is valid. */
    public static List<String> problems(String definitionName, JsonNode instance) {
        List<String> problems = new ArrayList<>();
        for (Error error : compiled(definitionName).validate(instance)) {
            problems.add(error.toString());
        }
        problems.addAll(proseRules(definitionName, instance));
        return problems;
    }

    /** Throws an {@link AssertionError} listing every problem when {@code instance} is not a valid {@code definitionName}. */
    public static void assertValid(String definitionName, JsonNode instance) {
        List<String> problems = problems(definitionName, instance);
        if (!problems.isEmpty()) {
            throw new AssertionError("not a valid " + definitionName + " (MCP 2026-07-28 schema):\n  - "
                    + String.join("\n  - ", problems) + "\ninstance: " + Json.write(instance));
        }
    }

    /** A whole JSON-RPC response, result or error: {@code JSONRPCResponse}. */
    public static void assertValidResponse(JsonNode jsonRpcMessage) {
        if (jsonRpcMessage != null && jsonRpcMessage.has("error")) {
            assertValidErrorResponse(jsonRpcMessage);
        } else {
            assertValid("JSONRPCResultResponse", jsonRpcMessage);
        }
    }

    /**
     * A result response ({@code JSONRPCResultResponse}) whose {@code result} is a valid
     * {@code resultDefinitionName}, e.g. {@code CallToolResult} or {@code InputRequiredResult}.
     */
    public static void assertValidResultResponse(String resultDefinitionName, JsonNode response) {
        assertValid("JSONRPCResultResponse", response);
        assertValid(resultDefinitionName, response.get("result"));
    }

    /** An error response: {@code JSONRPCErrorResponse}. */
    public static void assertValidErrorResponse(JsonNode response) {
        assertValid("JSONRPCErrorResponse", withoutNullId(response));
    }

    /**
     * JSON-RPC 2.0 requires {@code "id": null} on an error reply to a request whose id could not be
     * read; the MCP schema allows only a string or integer id, or none. Such a reply is checked as
     * the id-less response the schema describes.
     */
    static JsonNode withoutNullId(JsonNode response) {
        if (response instanceof com.fasterxml.jackson.databind.node.ObjectNode object
                && object.has("id")
                && object.get("id").isNull()
                && object.has("error")) {
            com.fasterxml.jackson.databind.node.ObjectNode copy = object.deepCopy();
            copy.remove("id");
            return copy;
        }
        return response;
    }

    /**
     * An error response that is also a valid {@code errorDefinitionName}. The schema has two kinds:
     * whole responses ({@code MissingRequiredClientCapabilityError}, {@code HeaderMismatchError},
     * {@code UnsupportedProtocolVersionError}), checked against the response; and error objects
     * ({@code ParseError}, {@code InvalidRequestError}, {@code MethodNotFoundError},
     * {@code InvalidParamsError}, {@code InternalError}), checked against its {@code error} member.
     */
    public static void assertValidErrorResponse(String errorDefinitionName, JsonNode response) {
        assertValidErrorResponse(response);
        boolean wholeResponse =
                definition(errorDefinitionName).path("properties").has("error");
        assertValid(errorDefinitionName, wholeResponse ? withoutNullId(response) : response.get("error"));
    }

    /** The raw schema of {@code #/$defs/<definitionName>}. */
    public static JsonNode definition(String definitionName) {
        JsonNode definition = DOCUMENT.path("$defs").get(definitionName);
        if (definition == null) {
            throw new IllegalArgumentException(
                    "the MCP schema has no $defs/" + definitionName + "; known: " + definitionNames());
        }
        return definition;
    }

    private static Schema compiled(String definitionName) {
        definition(definitionName);
        return COMPILED.computeIfAbsent(
                definitionName, name -> REGISTRY.getSchema(SchemaLocation.of(ID + "#/$defs/" + name)));
    }

    private static List<String> proseRules(String definitionName, JsonNode instance) {
        if (instance == null
                || !instance.isObject()
                || !definition(definitionName).path("properties").has("resultType")) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        JsonNode resultType = instance.get("resultType");
        String expected = "InputRequiredResult".equals(definitionName) ? "input_required" : "complete";
        if (resultType != null && !expected.equals(resultType.asText())) {
            problems.add("/resultType: must be \"" + expected + "\" for a " + definitionName + ", was " + resultType);
        }
        if ("InputRequiredResult".equals(definitionName)
                && !instance.has("inputRequests")
                && !instance.has("requestState")) {
            problems.add(": an InputRequiredResult must have inputRequests or requestState (spec §2.1)");
        }
        return problems;
    }
}
