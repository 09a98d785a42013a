package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/** Multi Round-Trip Request wire types (spec §2). */
public final class Mrtr {
    private Mrtr() {}

    /** One request inside {@code inputRequests}: method and params only, no id. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record InputRequest(String method, JsonNode params) {
        public InputRequest {
            java.util.Objects.requireNonNull(method, "method");
        }
    }

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record InputRequiredResult(String resultType, Map<String, InputRequest> inputRequests, String requestState) {
        public InputRequiredResult(Map<String, InputRequest> inputRequests, String requestState) {
            this(McpNames.ResultTypes.INPUT_REQUIRED, inputRequests, requestState);
        }
    }
}
