package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/** {@code completion/complete} (spec §7.5). */
public final class Completion {
    private Completion() {}

    /** At most this many values are sent; {@code total} and {@code hasMore} tell the rest. */
    public static final int MAX_VALUES = 100;

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record Values(List<String> values, Integer total, Boolean hasMore) {
        public Values {
            Objects.requireNonNull(values, "values");
        }

        /** The first {@link #MAX_VALUES} of {@code all}, with the total. */
        public static Values of(List<String> all) {
            return new Values(
                    List.copyOf(all.subList(0, Math.min(all.size(), MAX_VALUES))), all.size(), all.size() > MAX_VALUES);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record CompleteResult(String resultType, Values completion) {
        public CompleteResult {
            Objects.requireNonNull(completion, "completion");
        }

        public CompleteResult(Values completion) {
            this(McpNames.ResultTypes.COMPLETE, completion);
        }
    }
}
