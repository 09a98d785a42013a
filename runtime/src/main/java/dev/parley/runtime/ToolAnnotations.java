package dev.parley.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Hints about a tool's behaviour (spec §8); null members are left out. */
@JsonInclude(JsonInclude.Include.NON_ABSENT)
public record ToolAnnotations(
        String title, Boolean readOnlyHint, Boolean destructiveHint, Boolean idempotentHint, Boolean openWorldHint) {

    public static ToolAnnotations readOnly() {
        return new ToolAnnotations(null, true, false, true, false);
    }
}
