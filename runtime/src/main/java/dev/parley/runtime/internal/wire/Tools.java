package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/** {@code tools/list} and {@code tools/call} wire types (spec §8). */
public final class Tools {
    private Tools() {}

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ToolInfo(
            String name,
            String title,
            String description,
            JsonNode inputSchema,
            JsonNode outputSchema,
            JsonNode annotations,

            @com.fasterxml.jackson.annotation.JsonProperty("_meta")
            java.util.Map<String, Object> meta) {}
}
