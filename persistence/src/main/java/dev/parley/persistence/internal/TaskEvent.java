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
 * The journal of one task ({@code io.modelcontextprotocol/tasks}). Every event carries the
 * time it happened, which is the task's {@code lastUpdatedAt}. Same evolution rules as
 * {@link CallEvent}.
 */
public sealed interface TaskEvent extends JournalEvent {

    Instant at();

    /**
     * The call became a task. {@code answers} and {@code steps} are what its synchronous rounds
     * recorded before; the background run starts from them and asks with {@code capabilities},
     * those the creating request declared.
     */
    record TaskCreated(
            String method,
            String name,
            ObjectNode arguments,
            String principal,
            ObjectNode capabilities,
            Map<String, RecordedAnswer> answers,
            Map<String, JsonNode> steps,
            long ttlMs,
            Instant at,
            @JsonInclude(JsonInclude.Include.NON_NULL) String traceParent)
            implements TaskEvent {

        /** Without a trace: {@code traceParent} (the W3C traceparent of the creating request's span) stays null. */
        public TaskCreated(
                String method,
                String name,
                ObjectNode arguments,
                String principal,
                ObjectNode capabilities,
                Map<String, RecordedAnswer> answers,
                Map<String, JsonNode> steps,
                long ttlMs,
                Instant at) {
            this(method, name, arguments, principal, capabilities, answers, steps, ttlMs, at, null);
        }
    }

    record TaskStepRecorded(String name, JsonNode value, Instant at) implements TaskEvent {}

    /** The run asked: the task is {@code input_required} until every question is answered. */
    record TaskInputRequested(List<AskedQuestion> questions, Instant at) implements TaskEvent {}

    /** Answers from a {@code tasks/update} (possibly a part of the open questions). */
    record TaskAnswersReceived(Map<String, RecordedAnswer> answers, Instant at) implements TaskEvent {}

    record TaskCompleted(ObjectNode result, Instant at) implements TaskEvent {}

    /** A JSON-RPC (protocol) error, an internal failure, or the ttl ran out. */
    record TaskFailed(ErrorObject error, Instant at) implements TaskEvent {}

    record TaskCancelled(Instant at) implements TaskEvent {}
}
