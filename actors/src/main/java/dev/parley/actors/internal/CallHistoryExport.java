package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalEvent;
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.CallRecording;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * Reads one call's journal (its {@code ToolCallEntity}, or the {@code TaskEntity} it became)
 * and turns it into a {@link CallRecording}: the history the replay check of the test kit
 * re-runs against changed code. Read-only; nothing is sent to the entity.
 */
public final class CallHistoryExport {
    /** Call and task ids are UUIDs; anything else never names an entity. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9-]{1,64}");

    private final ActorSystem<?> system;
    private final JdbcReadJournal journal;

    public CallHistoryExport(ActorSystem<?> system) {
        this.system = system;
        this.journal = PersistenceQuery.get(system.classicSystem())
                .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
    }

    public static boolean isValidId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** The recording of call or task {@code id}; empty when the journal has neither. */
    public CompletionStage<Optional<CallRecording>> export(String id) {
        if (!isValidId(id)) {
            throw new IllegalArgumentException("not a call or task id: " + id);
        }
        return events(PersistenceId.of(ToolCallEntity.ENTITY_TYPE_KEY.name(), id))
                .thenCompose(callEvents -> !callEvents.isEmpty()
                        ? java.util.concurrent.CompletableFuture.completedFuture(Optional.of(fromCall(id, callEvents)))
                        : events(PersistenceId.of(TaskEntity.ENTITY_TYPE_KEY.name(), id))
                                .thenApply(taskEvents -> taskEvents.isEmpty()
                                        ? Optional.empty()
                                        : Optional.of(fromTask(id, taskEvents))));
    }

    private CompletionStage<List<Object>> events(PersistenceId persistenceId) {
        return PekkoStages.direct(journal.currentEventsByPersistenceId(persistenceId.id(), 0L, Long.MAX_VALUE)
                .map(EventEnvelope::event)
                .runWith(Sink.seq(), system));
    }

    /**
     * The fields of a recording, filled event by event: each visit takes what its event adds, and
     * the status comes from the journal's vocabulary (the status after the latest event).
     */
    private static final class Builder implements CallEvent.Visitor, TaskEvent.Visitor {
        String method;
        String name;
        ObjectNode arguments;
        final List<CallRecording.RecordedStep> steps = new ArrayList<>();
        final List<AskedQuestion> questions = new ArrayList<>();
        final Map<String, RecordedAnswer> answers = new LinkedHashMap<>();
        CallRecording.Status status = CallRecording.Status.WORKING;
        JsonNode result;

        void apply(CallEvent event) {
            event.accept(this);
            status = switch (JournalEvent.statusAfter(CallEvent.TYPES, event)) {
                case WAITING -> CallRecording.Status.INPUT_REQUIRED;
                case RUNNING -> CallRecording.Status.WORKING;
                case COMPLETED -> CallRecording.Status.COMPLETED;
                case FAILED -> CallRecording.Status.FAILED;
                case BECAME_TASK -> CallRecording.Status.BECAME_TASK;
            };
        }

        void apply(TaskEvent event) {
            event.accept(this);
            status = switch (JournalEvent.statusAfter(TaskEvent.TYPES, event)) {
                case WORKING -> CallRecording.Status.WORKING;
                case INPUT_REQUIRED -> CallRecording.Status.INPUT_REQUIRED;
                case COMPLETED -> CallRecording.Status.COMPLETED;
                case FAILED -> CallRecording.Status.FAILED;
                case CANCELLED -> CallRecording.Status.CANCELLED;
            };
        }

        private void begin(String method, String name, ObjectNode arguments, Map<String, JsonNode> steps) {
            this.method = method;
            this.name = name;
            this.arguments = arguments;
            steps.forEach((step, value) -> this.steps.add(new CallRecording.RecordedStep(step, value)));
        }

        private void step(String step, JsonNode value) {
            steps.add(new CallRecording.RecordedStep(step, value));
        }

        @Override
        public void visit(CallEvent.CallStarted started) {
            begin(started.method(), started.name(), started.arguments(), started.steps());
            questions.addAll(started.questions());
        }

        @Override
        public void visit(CallEvent.AnswersReceived received) {
            answers.putAll(received.answers());
        }

        @Override
        public void visit(CallEvent.StepRecorded recorded) {
            step(recorded.name(), recorded.value());
        }

        @Override
        public void visit(CallEvent.InputRequested requested) {
            questions.addAll(requested.questions());
        }

        @Override
        public void visit(CallEvent.CallCompleted completed) {
            result = completed.result();
        }

        @Override
        public void visit(CallEvent.CallBecameTask task) {
            result = Json.object().put("taskId", task.taskId());
        }

        @Override
        public void visit(CallEvent.CallFailed failed) {
            result = Json.tree(failed.error());
        }

        @Override
        public void visit(TaskEvent.TaskCreated created) {
            begin(created.method(), created.name(), created.arguments(), created.steps());
            answers.putAll(created.answers());
        }

        @Override
        public void visit(TaskEvent.TaskStepRecorded recorded) {
            step(recorded.name(), recorded.value());
        }

        @Override
        public void visit(TaskEvent.TaskInputRequested requested) {
            questions.addAll(requested.questions());
        }

        @Override
        public void visit(TaskEvent.TaskAnswersReceived received) {
            answers.putAll(received.answers());
        }

        @Override
        public void visit(TaskEvent.TaskCompleted completed) {
            result = completed.result();
        }

        @Override
        public void visit(TaskEvent.TaskFailed failed) {
            result = Json.tree(failed.error());
        }

        @Override
        public void visit(TaskEvent.TaskCancelled cancelled) {}

        CallRecording build(String id, CallRecording.Kind kind) {
            return new CallRecording(
                    CallRecording.FORMAT, id, kind, method, name, arguments, steps, questions, answers, status, result);
        }
    }

    static CallRecording fromCall(String id, List<Object> events) {
        Builder recording = new Builder();
        events.forEach(event -> recording.apply((CallEvent) event));
        return recording.build(id, CallRecording.Kind.CALL);
    }

    static CallRecording fromTask(String id, List<Object> events) {
        Builder recording = new Builder();
        events.forEach(event -> recording.apply((TaskEvent) event));
        return recording.build(id, CallRecording.Kind.TASK);
    }
}
