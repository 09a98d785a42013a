package dev.parley.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.engine.EarlyResult;
import java.util.function.Function;

/**
 * The user's answer to an elicitation. All three outcomes are normal: a handler decides what a
 * decline or a cancel means for its call.
 */
public sealed interface ElicitAnswer extends InputAnswer {

    /**
     * This answer if the user accepted; when they declined or cancelled, the tool call ends here
     * with the result {@code onRefusal} makes (only in a tool handler).
     */
    default Accepted orElseReturn(Function<Refusal, ToolResult> onRefusal) {
        if (this instanceof Accepted accepted) {
            return accepted;
        }
        throw new EarlyResult(onRefusal.apply(this instanceof Declined ? Refusal.DECLINED : Refusal.CANCELLED));
    }

    /** The user accepted; {@code content} holds the form values (empty for URL mode). */
    record Accepted(ObjectNode content) implements ElicitAnswer {
        public String string(String field) {
            JsonNode value = content.get(field);
            return value == null || value.isNull() ? null : value.asText();
        }

        public long integer(String field) {
            return content.path(field).asLong();
        }

        public double number(String field) {
            return content.path(field).asDouble();
        }

        public boolean bool(String field) {
            return content.path(field).asBoolean();
        }

        public <T> T as(Class<T> type) {
            return Json.MAPPER.convertValue(content, type);
        }
    }

    record Declined() implements ElicitAnswer {}

    record Cancelled() implements ElicitAnswer {}

    /** Reads an {@code ElicitResult} the client sent, already validated against its question. */
    static ElicitAnswer fromWire(JsonNode result) {
        return switch (result.path("action").asText()) {
            case "accept" -> new Accepted(result.get("content") instanceof ObjectNode o ? o : Json.object());
            case "decline" -> new Declined();
            default -> new Cancelled();
        };
    }
}
