package dev.parley.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import java.util.Map;

/**
 * How the load generator answers what a server asks (MRTR {@code inputRequests} and task
 * {@code inputRequests}): form elicitations are filled from the configured values, else from
 * the schema; URL elicitations are accepted (there is no user to visit the page); sampling gets
 * a fixed text; roots/list an empty list.
 */
public final class Answers {
    private final ObjectNode values;
    private final String action;

    /** @param values form values by property name; @param action accept, decline or cancel */
    public Answers(ObjectNode values, String action) {
        this.values = values;
        this.action = action;
    }

    /** An {@code inputResponses} object answering every entry of {@code inputRequests}. */
    public ObjectNode respond(JsonNode inputRequests) {
        ObjectNode responses = Json.object();
        for (Map.Entry<String, JsonNode> request : inputRequests.properties()) {
            responses.set(request.getKey(), respondTo(request.getValue()));
        }
        return responses;
    }

    /** The answer to one input request ({@code {method, params}}). */
    public ObjectNode respondTo(JsonNode request) {
        String method = request.path("method").asText();
        JsonNode params = request.path("params");
        switch (method) {
            case "elicitation/create" -> {
                ObjectNode answer = Json.object().put("action", action);
                if (action.equals("accept") && !"url".equals(params.path("mode").asText("form"))) {
                    answer.set("content", fill(params.path("requestedSchema")));
                }
                return answer;
            }
            case "sampling/createMessage" -> {
                ObjectNode answer = Json.object()
                        .put("role", "assistant")
                        .put("model", "parley-load")
                        .put("stopReason", "endTurn");
                answer.putObject("content").put("type", "text").put("text", "ok");
                return answer;
            }
            case "roots/list" -> {
                ObjectNode answer = Json.object();
                answer.putArray("roots");
                return answer;
            }
            default -> {
                // Unknown kinds get a decline-shaped answer; the server decides what that means.
                return Json.object().put("action", "decline");
            }
        }
    }

    /** Content for a form's {@code requestedSchema}: every property, configured value first. */
    public ObjectNode fill(JsonNode requestedSchema) {
        ObjectNode content = Json.object();
        for (Map.Entry<String, JsonNode> property :
                requestedSchema.path("properties").properties()) {
            JsonNode configured = values.get(property.getKey());
            content.set(property.getKey(), configured != null ? configured : placeholder(property.getValue()));
        }
        return content;
    }

    /** The schema's default, else its first enum value (or oneOf/anyOf const), else a typed placeholder. */
    static JsonNode placeholder(JsonNode schema) {
        if (schema.has("default")) {
            return schema.get("default");
        }
        if (schema.path("enum").isArray() && !schema.path("enum").isEmpty()) {
            return schema.path("enum").get(0);
        }
        for (String choice : new String[] {"oneOf", "anyOf"}) {
            JsonNode options = schema.path(choice);
            if (options.isArray() && !options.isEmpty() && options.get(0).has("const")) {
                return options.get(0).get("const");
            }
        }
        String type = schema.path("type").asText("string");
        return switch (type) {
            case "integer" -> Json.MAPPER.getNodeFactory().numberNode((long) Math.ceil(bounded(schema)));
            case "number" -> Json.MAPPER.getNodeFactory().numberNode(bounded(schema));
            case "boolean" -> Json.MAPPER.getNodeFactory().booleanNode(true);
            case "array" -> {
                ArrayNode array = Json.MAPPER.createArrayNode();
                JsonNode items = schema.path("items");
                if (items.isObject()) {
                    array.add(placeholder(items));
                }
                yield array;
            }
            default -> Json.MAPPER.getNodeFactory().textNode(placeholderText(schema));
        };
    }

    private static double bounded(JsonNode schema) {
        double value = 1;
        if (schema.has("minimum")) {
            value = Math.max(value, schema.get("minimum").asDouble());
        }
        if (schema.has("exclusiveMinimum") && schema.get("exclusiveMinimum").isNumber()) {
            value = Math.max(value, schema.get("exclusiveMinimum").asDouble() + 1);
        }
        if (schema.has("maximum")) {
            value = Math.min(value, schema.get("maximum").asDouble());
        }
        return value;
    }

    private static String placeholderText(JsonNode schema) {
        String text = switch (schema.path("format").asText("")) {
            case "date" -> "2026-12-20";
            case "date-time" -> "2026-12-20T10:00:00Z";
            case "email" -> "load@example.com";
            case "uri" -> "https://example.com/";
            default -> "x";
        };
        int minLength = schema.path("minLength").asInt(0);
        StringBuilder padded = new StringBuilder(text);
        while (padded.length() < Math.min(minLength, 10_000)) {
            padded.append('x');
        }
        return padded.toString();
    }
}
