package dev.parley.persistence.internal;

import dev.parley.runtime.Json;
import java.io.IOException;
import java.io.NotSerializableException;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * JSON serializer for journal events with stable type names as manifests. Renaming or moving
 * an event class changes nothing stored; changing an event's meaning needs a new name.
 */
public final class JournalEventSerializer extends SerializerWithStringManifest {
    /** Registered in reference.conf; never change it, stored rows refer to it. */
    public static final int IDENTIFIER = 7_210_001;

    /** The events that end a call: a call whose latest event is none of them still waits for answers. */
    public static final java.util.Set<String> CALL_ENDED =
            java.util.Set.of("parley.call.completed.v1", "parley.call.failed.v1", "parley.call.became-task.v1");

    public static final String TASK_CREATED = "parley.task.created.v1";
    public static final String TASK_INPUT_REQUESTED = "parley.task.input-requested.v1";
    public static final String TASK_COMPLETED = "parley.task.completed.v1";
    public static final String TASK_FAILED = "parley.task.failed.v1";
    public static final String TASK_CANCELLED = "parley.task.cancelled.v1";

    private static final Map<Class<?>, String> NAMES = Map.ofEntries(
            Map.entry(CallEvent.CallStarted.class, "parley.call.started.v1"),
            Map.entry(CallEvent.AnswersReceived.class, "parley.call.answers-received.v1"),
            Map.entry(CallEvent.StepRecorded.class, "parley.call.step-recorded.v1"),
            Map.entry(CallEvent.InputRequested.class, "parley.call.input-requested.v1"),
            Map.entry(CallEvent.CallCompleted.class, "parley.call.completed.v1"),
            Map.entry(CallEvent.CallFailed.class, "parley.call.failed.v1"),
            Map.entry(CallEvent.CallBecameTask.class, "parley.call.became-task.v1"),
            Map.entry(TaskEvent.TaskCreated.class, TASK_CREATED),
            Map.entry(TaskEvent.TaskStepRecorded.class, "parley.task.step-recorded.v1"),
            Map.entry(TaskEvent.TaskInputRequested.class, TASK_INPUT_REQUESTED),
            Map.entry(TaskEvent.TaskAnswersReceived.class, "parley.task.answers-received.v1"),
            Map.entry(TaskEvent.TaskCompleted.class, TASK_COMPLETED),
            Map.entry(TaskEvent.TaskFailed.class, TASK_FAILED),
            Map.entry(TaskEvent.TaskCancelled.class, TASK_CANCELLED),
            Map.entry(SessionEvent.SessionOpened.class, "parley.session.opened.v1"),
            Map.entry(SessionEvent.LogLevelSet.class, "parley.session.log-level-set.v1"),
            Map.entry(SessionEvent.ResourceSubscribed.class, "parley.session.resource-subscribed.v1"),
            Map.entry(SessionEvent.ResourceUnsubscribed.class, "parley.session.resource-unsubscribed.v1"),
            Map.entry(SessionEvent.SessionEnded.class, "parley.session.ended.v1"));

    private static final Map<String, Class<?>> TYPES =
            NAMES.entrySet().stream().collect(Collectors.toMap(Map.Entry::getValue, Map.Entry::getKey));

    @Override
    public int identifier() {
        return IDENTIFIER;
    }

    @Override
    public String manifest(Object event) {
        String name = NAMES.get(event.getClass());
        if (name == null) {
            throw new IllegalArgumentException(
                    "no stable type name for " + event.getClass().getName());
        }
        return name;
    }

    @Override
    public byte[] toBinary(Object event) {
        manifest(event);
        try {
            return Json.MAPPER.writeValueAsBytes(event);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot serialize " + event.getClass().getName(), e);
        }
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
        Class<?> type = TYPES.get(manifest);
        if (type == null) {
            throw new NotSerializableException("unknown journal event type '" + manifest + "'");
        }
        try {
            return Json.MAPPER.readValue(bytes, type);
        } catch (IOException e) {
            NotSerializableException failure =
                    new NotSerializableException("corrupt '" + manifest + "' event: " + e.getMessage());
            failure.initCause(e);
            throw failure;
        }
    }
}
