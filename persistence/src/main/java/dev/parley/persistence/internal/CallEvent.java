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
 * The journal of one multi-round call. Events are facts, named in the past tense; their JSON
 * shape is their schema, so fields are only ever added (with defaults), never renamed.
 *
 * <p>{@link #TYPES} lists every event type once, with its stored name and the call's status after
 * it; {@link Visitor} makes each reader of the journal handle every type (a new type does not
 * compile until each visitor has a method for it).
 */
public sealed interface CallEvent extends JournalEvent {

    /** Calls {@code visitor}'s method for this event's type. */
    void accept(Visitor visitor);

    /** One method per call event type. */
    interface Visitor {
        void visit(CallStarted event);

        void visit(AnswersReceived event);

        void visit(StepRecorded event);

        void visit(InputRequested event);

        void visit(CallCompleted event);

        void visit(CallBecameTask event);

        void visit(CallFailed event);
    }

    /** What a call is doing, as its latest event tells. */
    enum Status {
        /** Its questions are out: it waits for the client's retry with the answers. */
        WAITING(true),
        /** A round runs (its answers or steps are journaled, its outcome not yet). */
        RUNNING(true),
        COMPLETED(false),
        FAILED(false),
        /** A task owns the rest of the call. */
        BECAME_TASK(false);

        public final boolean open;

        Status(boolean open) {
            this.open = open;
        }

        /** How the console and the docs name it: {@code waiting}, {@code became_task}, ... */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Every call event type, its stored name and the call's status once it is the latest event. */
    List<JournalEvent.Type<Status>> TYPES = List.of(
            new JournalEvent.Type<>(CallStarted.class, "parley.call.started.v1", Status.WAITING),
            new JournalEvent.Type<>(AnswersReceived.class, "parley.call.answers-received.v1", Status.RUNNING),
            new JournalEvent.Type<>(StepRecorded.class, "parley.call.step-recorded.v1", Status.RUNNING),
            new JournalEvent.Type<>(InputRequested.class, "parley.call.input-requested.v1", Status.WAITING),
            new JournalEvent.Type<>(CallCompleted.class, "parley.call.completed.v1", Status.COMPLETED),
            new JournalEvent.Type<>(CallBecameTask.class, "parley.call.became-task.v1", Status.BECAME_TASK),
            new JournalEvent.Type<>(CallFailed.class, "parley.call.failed.v1", Status.FAILED));

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

        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** Valid answers to the questions of {@code round} arrived. */
    record AnswersReceived(int round, Map<String, RecordedAnswer> answers) implements CallEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** A journaled step ran; its result is replayed from now on. */
    record StepRecorded(String name, JsonNode value) implements CallEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** Round {@code round} ended by asking {@code questions}: round {@code round + 1} begins. */
    record InputRequested(int round, List<AskedQuestion> questions) implements CallEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** Round {@code round} ended with the call's result (a wire {@code CallToolResult}). */
    record CallCompleted(int round, ObjectNode result) implements CallEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** Round {@code round} handed the call over to task {@code taskId}; the task owns the rest. */
    record CallBecameTask(int round, String taskId) implements CallEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }

    /** Round {@code round} ended the call with a JSON-RPC error. */
    record CallFailed(int round, ErrorObject error) implements CallEvent {
        @Override
        public void accept(Visitor visitor) {
            visitor.visit(this);
        }
    }
}
