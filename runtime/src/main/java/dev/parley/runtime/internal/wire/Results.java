package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** Results shared by several methods. */
public final class Results {
    private Results() {}

    /** An empty result: the acknowledgement of {@code tasks/update} and {@code tasks/cancel}. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record EmptyResult(
            String resultType, @JsonProperty("_meta") Map<String, Object> meta) {
        public static final EmptyResult ACK = new EmptyResult(McpNames.ResultTypes.COMPLETE, null);
    }
}
