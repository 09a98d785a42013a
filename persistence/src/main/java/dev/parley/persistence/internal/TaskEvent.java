package dev.parley.persistence.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The journal of one task ({@code io.modelcontextprotocol/tasks}). Every event carries the
 * time it happened, which is the task's {@code lastUpdatedAt}. Same evolution rules as
 * {@link CallEvent}.
 */
public sealed interface TaskEvent extends JournalEvent {

    Instant at();

    /** Calls {@code visitor}'s method for this event's type. */
    void accept(Visitor visitor);

    /** One method per task event type. */
    interface Visitor {
        void visit(TaskCreated event);

        void visit(TaskStepRecorded event);

        void visit(TaskInputRequested event);

        void visit(TaskAnswersReceived event);

        void visit(TaskCompleted event);

        void visit(TaskFailed event);

        void visit(TaskCancelled event);
    }

    /** A task's status as its latest event tells. */
    enum Status {
        WORKING(true),
        INPUT_REQUIRED(true),
        COMPLETED(false),
        FAILED(false),
        CANCELLED(false);

        public final boolean open;

        Status(boolean open) {
            this.open = open;
        }

        /** Its wire name: {@code working}, {@code input_required}, ... */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Every task event type, its stored name and the task's status once it is the latest event.
     * Answers received count as working: the journal alone does not tell whether they were all the
     * task waited for (the entity does).
     */
    List<JournalEvent.Type<Status>> TYPES = List.of(
            new JournalEvent.Type<>(TaskCreated.class, "parley.task.created.v1", Status.WORKING),
            new JournalEvent.Type<>(TaskStepRecorded.class, "parley.task.step-recorded.v1", Status.WORKING),
            new JournalEvent.Type<>(TaskInputRequested.class, "parley.task.input-requested.v1", Status.INPUT_REQUIRED),
            new JournalEvent.Type<>(TaskAnswersReceived.class, "parley.task.answers-received.v1", Status.WORKING),
            new JournalEvent.Type<>(TaskCompleted.class, "parley.task.completed.v1", Status.COMPLETED),
            new JournalEvent.Type<>(TaskFailed.class, "parley.task.failed.v1", Status.FAILED),
            new JournalEvent.Type<>(TaskCancelled.class, "parley.task.cancelled.v1", Status.CANCELLED));

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

        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    record TaskStepRecorded(String name, JsonNode value, Instant at) implements TaskEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** The run asked: the task is {@code input_required} until every question is answered. */
    record TaskInputRequested(List<AskedQuestion> questions, Instant at) implements TaskEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** Answers from a {@code tasks/update} (possibly a part of the open questions). */
    record TaskAnswersReceived(Map<String, RecordedAnswer> answers, Instant at) implements TaskEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    record TaskCompleted(ObjectNode result, Instant at) implements TaskEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** A JSON-RPC (protocol) error, an internal failure, or the ttl ran out. */
    record TaskFailed(ErrorObject error, Instant at) implements TaskEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    record TaskCancelled(Instant at) implements TaskEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }
}
