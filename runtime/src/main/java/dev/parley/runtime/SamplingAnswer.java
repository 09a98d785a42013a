package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The client's {@code CreateMessageResult}.
 *
 * @deprecated with {@link SamplingRequest}.
 */
@Deprecated
public record SamplingAnswer(ObjectNode result) implements InputAnswer {

    /** The text of the sampled message, or the empty string when it is not text. */
    public String text() {
        return result.path("content").path("text").asText("");
    }

    public String model() {
        return result.path("model").asText("");
    }
}
