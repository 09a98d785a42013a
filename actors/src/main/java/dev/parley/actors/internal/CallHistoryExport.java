package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.persistence.internal.CallEvent;
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
        return journal.currentEventsByPersistenceId(persistenceId.id(), 0L, Long.MAX_VALUE)
                .map(EventEnvelope::event)
                .runWith(Sink.seq(), system);
    }

    /** The fields of a recording, filled event by event. */
    private static final class Builder {
        String method;
        String name;
        ObjectNode arguments;
        final List<CallRecording.RecordedStep> steps = new ArrayList<>();
        final List<AskedQuestion> questions = new ArrayList<>();
        final Map<String, RecordedAnswer> answers = new LinkedHashMap<>();
        CallRecording.Status status = CallRecording.Status.WORKING;
        JsonNode result;

        void steps(Map<String, JsonNode> values) {
            values.forEach((step, value) -> steps.add(new CallRecording.RecordedStep(step, value)));
        }

        CallRecording build(String id, CallRecording.Kind kind) {
            return new CallRecording(
                    CallRecording.FORMAT, id, kind, method, name, arguments, steps, questions, answers, status, result);
        }
    }

    static CallRecording fromCall(String id, List<Object> events) {
        Builder recording = new Builder();
        for (Object event : events) {
            if (event instanceof CallEvent.CallStarted started) {
                recording.method = started.method();
                recording.name = started.name();
                recording.arguments = started.arguments();
                recording.steps(started.steps());
                recording.questions.addAll(started.questions());
                recording.status = CallRecording.Status.INPUT_REQUIRED;
            } else if (event instanceof CallEvent.StepRecorded step) {
                recording.steps.add(new CallRecording.RecordedStep(step.name(), step.value()));
                recording.status = CallRecording.Status.WORKING; // a round runs
            } else if (event instanceof CallEvent.AnswersReceived received) {
                recording.answers.putAll(received.answers());
                recording.status = CallRecording.Status.WORKING;
            } else if (event instanceof CallEvent.InputRequested requested) {
                recording.questions.addAll(requested.questions());
                recording.status = CallRecording.Status.INPUT_REQUIRED;
            } else if (event instanceof CallEvent.CallCompleted completed) {
                recording.status = CallRecording.Status.COMPLETED;
                recording.result = completed.result();
            } else if (event instanceof CallEvent.CallBecameTask task) {
                recording.status = CallRecording.Status.BECAME_TASK;
                recording.result = Json.object().put("taskId", task.taskId());
            } else if (event instanceof CallEvent.CallFailed failed) {
                recording.status = CallRecording.Status.FAILED;
                recording.result = Json.tree(failed.error());
            }
        }
        return recording.build(id, CallRecording.Kind.CALL);
    }

    static CallRecording fromTask(String id, List<Object> events) {
        Builder recording = new Builder();
        for (Object event : events) {
            if (event instanceof TaskEvent.TaskCreated created) {
                recording.method = created.method();
                recording.name = created.name();
                recording.arguments = created.arguments();
                recording.answers.putAll(created.answers());
                recording.steps(created.steps());
            } else if (event instanceof TaskEvent.TaskStepRecorded step) {
                recording.steps.add(new CallRecording.RecordedStep(step.name(), step.value()));
            } else if (event instanceof TaskEvent.TaskInputRequested requested) {
                recording.questions.addAll(requested.questions());
                recording.status = CallRecording.Status.INPUT_REQUIRED;
            } else if (event instanceof TaskEvent.TaskAnswersReceived received) {
                recording.answers.putAll(received.answers());
                recording.status = CallRecording.Status.WORKING;
            } else if (event instanceof TaskEvent.TaskCompleted completed) {
                recording.status = CallRecording.Status.COMPLETED;
                recording.result = completed.result();
            } else if (event instanceof TaskEvent.TaskFailed failed) {
                recording.status = CallRecording.Status.FAILED;
                recording.result = Json.tree(failed.error());
            } else if (event instanceof TaskEvent.TaskCancelled) {
                recording.status = CallRecording.Status.CANCELLED;
            }
        }
        return recording.build(id, CallRecording.Kind.TASK);
    }
}
