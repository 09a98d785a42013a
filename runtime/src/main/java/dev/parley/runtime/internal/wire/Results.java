package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import java.util.Map;

/** Results shared by several methods. */
public final class Results {
    private Results() {}

    /**
     * A new complete result ({@code resultType: "complete"}) for the method's own members to be
     * added to: the start of every {@code CallToolResult}, {@code GetPromptResult} and
     * {@code ReadResourceResult}.
     */
    public static ObjectNode complete() {
        return Json.object().put("resultType", McpNames.ResultTypes.COMPLETE);
    }

    /** An empty result: the acknowledgement of {@code tasks/update} and {@code tasks/cancel}. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record EmptyResult(
            String resultType, @JsonProperty("_meta") Map<String, Object> meta) {
        public static final EmptyResult ACK = new EmptyResult(McpNames.ResultTypes.COMPLETE, null);
    }
}
