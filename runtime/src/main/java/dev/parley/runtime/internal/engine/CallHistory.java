package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a call has recorded so far: the answers it received (with the fingerprint of the
 * question each one answered) and the results of its journaled steps, by name. Immutable.
 */
public record CallHistory(Map<String, RecordedAnswer> answers, Map<String, JsonNode> steps) {

    public static final CallHistory EMPTY = new CallHistory(Map.of(), Map.of());

    public CallHistory {
        answers = Map.copyOf(answers);
        steps = Map.copyOf(steps);
    }

    /** An answer to the question whose fingerprint is {@code fingerprint}. */
    public record RecordedAnswer(String fingerprint, JsonNode response) {}

    public CallHistory withAnswers(Map<String, RecordedAnswer> more) {
        Map<String, RecordedAnswer> merged = new LinkedHashMap<>(answers);
        merged.putAll(more);
        return new CallHistory(merged, steps);
    }

    public CallHistory withSteps(Map<String, JsonNode> more) {
        Map<String, JsonNode> merged = new LinkedHashMap<>(steps);
        merged.putAll(more);
        return new CallHistory(answers, merged);
    }
}
