package dev.parley.persistence.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The journal of one multi-round call. Events are facts, named in the past tense; their JSON
 * shape is their schema, so fields are only ever added (with defaults), never renamed.
 */
public sealed interface CallEvent extends JournalEvent {

    /**
     * The first round asked questions: the call becomes durable. {@code steps} are the step
     * results the first round already produced (in order).
     */
    record CallStarted(
            String method,
            String name,
            ObjectNode arguments,
            String principal,
            Map<String, JsonNode> steps,
            List<AskedQuestion> questions,
            Instant startedAt,
            @JsonInclude(JsonInclude.Include.NON_NULL) String traceParent)
            implements CallEvent {

        /** Without a trace: {@code traceParent} (the W3C traceparent of the first request's span) stays null. */
        public CallStarted(
                String method,
                String name,
                ObjectNode arguments,
                String principal,
                Map<String, JsonNode> steps,
                List<AskedQuestion> questions,
                Instant startedAt) {
            this(method, name, arguments, principal, steps, questions, startedAt, null);
        }
    }

    /** Valid answers to the questions of {@code round} arrived. */
    record AnswersReceived(int round, Map<String, RecordedAnswer> answers) implements CallEvent {}

    /** A journaled step ran; its result is replayed from now on. */
    record StepRecorded(String name, JsonNode value) implements CallEvent {}

    /** Round {@code round} ended by asking {@code questions}: round {@code round + 1} begins. */
    record InputRequested(int round, List<AskedQuestion> questions) implements CallEvent {}

    /** Round {@code round} ended with the call's result (a wire {@code CallToolResult}). */
    record CallCompleted(int round, ObjectNode result) implements CallEvent {}

    /** Round {@code round} handed the call over to task {@code taskId}; the task owns the rest. */
    record CallBecameTask(int round, String taskId) implements CallEvent {}

    /** Round {@code round} ended the call with a JSON-RPC error. */
    record CallFailed(int round, ErrorObject error) implements CallEvent {}
}
