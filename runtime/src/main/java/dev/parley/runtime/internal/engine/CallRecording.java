package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A call's recorded history as it is exported from a node's journal (management port
 * {@code GET /calls/{id}/history}) and read by the replay check: what was called, the steps in
 * the order they were journaled, every question asked (in order), the answers received, and how
 * the call stands. The JSON shape is a file format kept in test resources: members are only
 * ever added.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CallRecording(
        int format,
        String id,
        Kind kind,
        String method,
        String name,
        ObjectNode arguments,
        List<RecordedStep> steps,
        List<AskedQuestion> questions,
        Map<String, CallHistory.RecordedAnswer> answers,
        Status status,
        JsonNode result) {

    public static final int FORMAT = 1;

    /** A {@code ToolCallEntity} (the synchronous rounds) or a {@code TaskEntity} (a task's whole history). */
    public enum Kind {
        CALL,
        TASK
    }

    /** Where the call stands at export. */
    public enum Status {
        /** Waiting for answers to its last questions. */
        INPUT_REQUIRED,
        /** A task's background run is (or was, when its node stopped) in progress. */
        WORKING,
        /** Ended with a result. */
        COMPLETED,
        /** Ended with a JSON-RPC error. */
        FAILED,
        /** Handed over to a task; the task's recording goes on from here. */
        BECAME_TASK,
        CANCELLED
    }

    public record RecordedStep(String name, JsonNode value) {}

    public CallRecording {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(status, "status");
        steps = List.copyOf(steps);
        questions = List.copyOf(questions);
        answers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(answers));
    }

    /** The history a re-run replays. */
    public CallHistory history() {
        Map<String, JsonNode> values = new LinkedHashMap<>();
        steps.forEach(step -> values.put(step.name(), step.value()));
        return new CallHistory(answers, values);
    }
}
