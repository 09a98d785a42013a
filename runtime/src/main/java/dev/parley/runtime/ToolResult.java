package dev.parley.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.wire.Results;
import java.util.List;
import java.util.Objects;

/**
 * What a tool handler returns: content blocks, optional structured content, and whether the
 * call failed as a tool (an {@code isError} result is a normal outcome, not a JSON-RPC error).
 */
public record ToolResult(List<Content> content, JsonNode structuredContent, boolean isError) {

    public ToolResult {
        content = List.copyOf(Objects.requireNonNull(content, "content"));
    }

    public static ToolResult text(String text) {
        return new ToolResult(List.of(Content.text(text)), null, false);
    }

    public static ToolResult error(String message) {
        return new ToolResult(List.of(Content.text(message)), null, true);
    }

    /** A result carrying {@code value} as structured content, and its JSON text as a text block. */
    public static ToolResult structured(Object value) {
        JsonNode node = Json.tree(value);
        return new ToolResult(List.of(Content.text(Json.write(node))), node, false);
    }

    /** The wire form: a {@code CallToolResult} with {@code resultType: "complete"}. */
    public ObjectNode toWire() {
        ObjectNode wire = Results.complete();
        // One block at a time: a bare List would lose the element type, and with it the "type" member.
        ArrayNode blocks = wire.putArray("content");
        content.forEach(block -> blocks.add(Json.tree(block)));
        if (structuredContent != null) {
            wire.set("structuredContent", structuredContent);
        }
        if (isError) {
            wire.put("isError", true);
        }
        return wire;
    }
}
