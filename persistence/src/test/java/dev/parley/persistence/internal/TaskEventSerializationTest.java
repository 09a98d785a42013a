package dev.parley.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.persistence.internal.CallEvent.CallBecameTask;
import dev.parley.persistence.internal.TaskEvent.TaskAnswersReceived;
import dev.parley.persistence.internal.TaskEvent.TaskCancelled;
import dev.parley.persistence.internal.TaskEvent.TaskCompleted;
import dev.parley.persistence.internal.TaskEvent.TaskCreated;
import dev.parley.persistence.internal.TaskEvent.TaskFailed;
import dev.parley.persistence.internal.TaskEvent.TaskInputRequested;
import dev.parley.persistence.internal.TaskEvent.TaskStepRecorded;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.Test;

/**
 * The journal of a task, and the call event that hands a call over to one, stored under stable
 * type names (DESIGN.md §5): each reads back as the event that was written.
 */
class TaskEventSerializationTest {
    static {
        // Initialise SLF4J before any actor system logs (STACK.md G10).
        org.slf4j.LoggerFactory.getILoggerFactory();
    }

    /** The names stored rows carry. Changing one orphans every task row written under it. */
    private static final Map<Class<?>, String> STABLE_NAMES = Map.of(
            TaskCreated.class, "parley.task.created.v1",
            TaskStepRecorded.class, "parley.task.step-recorded.v1",
            TaskInputRequested.class, "parley.task.input-requested.v1",
            TaskAnswersReceived.class, "parley.task.answers-received.v1",
            TaskCompleted.class, "parley.task.completed.v1",
            TaskFailed.class, "parley.task.failed.v1",
            TaskCancelled.class, "parley.task.cancelled.v1",
            CallBecameTask.class, "parley.call.became-task.v1");

    private static final Elicitation.Form DATE = Elicitation.form("Which day?")
            .field("date", FormField.string("Date", "date"))
            .build();
    private static final Elicitation.Form ATTENDEES = Elicitation.form("How many attend?")
            .field("count", FormField.integer("Attendees").minimum(1).maximum(500))
            .field("remote", FormField.bool("Remote").optional())
            .build();

    private final JournalEventSerializer serializer = new JournalEventSerializer();

    /** One sample of every task event type and of CallBecameTask, with every field set. */
    static List<JournalEvent> samples() {
        ObjectNode arguments =
                (ObjectNode) Json.parse("{\"subject\":\"planning\",\"rooms\":[\"A\",null],\"budget\":12.5,"
                        + "\"owner\":{\"id\":7,\"vip\":true}}");
        ObjectNode capabilities = (ObjectNode) Json.parse("{\"elicitation\":{\"form\":{},\"url\":{}},"
                + "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}");
        AskedQuestion date = AskedQuestion.of("date", DATE.toInputRequest());
        AskedQuestion attendees = AskedQuestion.of("attendees", ATTENDEES.toInputRequest());
        Map<String, RecordedAnswer> answers = new LinkedHashMap<>();
        answers.put(
                "date",
                new RecordedAnswer(
                        date.fingerprint(),
                        Json.parse("{\"action\":\"accept\",\"content\":{\"date\":\"2026-09-01\"}}")));
        answers.put("attendees", new RecordedAnswer(attendees.fingerprint(), Json.parse("{\"action\":\"decline\"}")));
        Map<String, JsonNode> steps = new LinkedHashMap<>();
        steps.put("reserve", Json.parse("{\"id\":\"r-1\",\"cents\":12000}"));
        steps.put("parley.now.0", Json.parse("\"2026-07-28T10:15:30Z\""));
        ObjectNode errorData = (ObjectNode) Json.parse("{\"requiredCapabilities\":{\"elicitation\":{\"form\":{}}}}");
        Instant at = Instant.parse("2026-07-28T10:15:30.123456789Z");
        return List.of(
                new TaskCreated(
                        "tools/call", "plan_meeting", arguments, "alice", capabilities, answers, steps, 3_600_000L, at),
                new TaskStepRecorded("book_room", Json.parse("{\"room\":\"A\",\"held\":true}"), at.plusMillis(1)),
                new TaskInputRequested(List.of(date, attendees), at.plusMillis(2)),
                new TaskAnswersReceived(answers, at.plusMillis(3)),
                new TaskCompleted(ToolResult.structured(Map.of("booked", true)).toWire(), at.plusMillis(4)),
                new TaskFailed(
                        new ErrorObject(
                                ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
                                "Missing required client capability",
                                errorData),
                        at.plusMillis(5)),
                new TaskCancelled(at.plusMillis(6)),
                new CallBecameTask(2, "786512e2-9e0d-4c4d-a5b1-0a9a4f8d7c11"));
    }

    /**
     * Same type and the same JSON. Record equality is too strict for nested {@link JsonNode}s: a
     * {@code LongNode(1)} (what {@code FormField.minimum} builds) reads back as an {@code IntNode(1)}.
     */
    private static void assertSameEvent(Object expected, Object actual) {
        assertEquals(expected.getClass(), actual.getClass());
        assertEquals(
                Json.canonical(Json.tree(expected)),
                Json.canonical(Json.tree(actual)),
                () -> "round trip of " + expected.getClass().getSimpleName());
    }

    private Object roundTrip(Object event) throws Exception {
        return serializer.fromBinary(serializer.toBinary(event), serializer.manifest(event));
    }

    @Test
    void samplesCoverEveryTaskEventTypeAndTheHandOverFromACall() {
        Set<Class<?>> sampled = samples().stream().map(Object::getClass).collect(Collectors.toSet());
        Set<Class<?>> expected = new HashSet<>(Arrays.asList(TaskEvent.class.getPermittedSubclasses()));
        expected.add(CallBecameTask.class);
        assertEquals(expected, sampled, "a new TaskEvent needs a sample here and a stable name in the serializer");
        assertEquals(expected, STABLE_NAMES.keySet());
    }

    @Test
    void everyTaskEventRoundTripsToAnEqualEvent() throws Exception {
        for (JournalEvent event : samples()) {
            assertSameEvent(event, roundTrip(event));
        }
    }

    @Test
    void everyTaskEventIsStoredUnderItsStableNameNeverItsClassName() {
        for (JournalEvent event : samples()) {
            String manifest = serializer.manifest(event);
            assertEquals(STABLE_NAMES.get(event.getClass()), manifest);
            assertFalse(manifest.contains(event.getClass().getSimpleName()), manifest);
            assertFalse(manifest.contains("dev.parley"), manifest);
        }
    }

    @Test
    void manifestsOfAllJournalEventsAreDistinct() {
        List<JournalEvent> all = new ArrayList<>(samples());
        all.addAll(JournalEventSerializerTest.samples());
        Set<String> manifests = all.stream().map(serializer::manifest).collect(Collectors.toSet());
        assertEquals(all.stream().map(Object::getClass).distinct().count(), manifests.size(), manifests::toString);
    }

    @Test
    void theCreationTimeKeepsItsNanosecondsAndTheHistoryItsOrderAndFingerprints() throws Exception {
        TaskCreated created = (TaskCreated) samples().get(0);
        TaskCreated back = (TaskCreated) roundTrip(created);
        assertEquals(created.at(), back.at());
        assertEquals(created.ttlMs(), back.ttlMs());
        assertEquals(List.of("date", "attendees"), List.copyOf(back.answers().keySet()));
        assertEquals(
                List.of("reserve", "parley.now.0"), List.copyOf(back.steps().keySet()));
        assertEquals(
                created.answers().get("date").fingerprint(),
                back.answers().get("date").fingerprint());
        assertEquals(created.capabilities(), back.capabilities());
    }

    @Test
    void anAskedQuestionKeepsItsFingerprintThroughTheJournal() throws Exception {
        TaskInputRequested requested = (TaskInputRequested) samples().get(2);
        TaskInputRequested back = (TaskInputRequested) roundTrip(requested);
        assertEquals(
                List.of("date", "attendees"),
                back.questions().stream().map(AskedQuestion::key).toList());
        for (AskedQuestion question : back.questions()) {
            assertEquals(
                    question.fingerprint(),
                    AskedQuestion.fingerprint(question.request()),
                    "a replayed question must still match the question the handler asks again");
        }
    }

    @Test
    void aFailureKeepsItsJsonRpcErrorAndACompletionItsCallToolResult() throws Exception {
        TaskFailed failed = (TaskFailed) roundTrip(samples().get(5));
        assertEquals(
                ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, failed.error().code());
        assertEquals("Missing required client capability", failed.error().message());
        assertTrue(failed.error().data().path("requiredCapabilities").has("elicitation"));

        TaskCompleted completed = (TaskCompleted) roundTrip(samples().get(4));
        assertEquals("complete", completed.result().path("resultType").asText());
        assertTrue(completed.result().path("structuredContent").path("booked").asBoolean());
    }

    @Test
    void aFailureWithoutErrorDataRoundTrips() throws Exception {
        TaskFailed failed = new TaskFailed(
                new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Task expired after 60000 ms", null),
                Instant.parse("2026-07-28T11:00:00Z"));
        TaskFailed back = (TaskFailed) roundTrip(failed);
        assertEquals(failed.error().code(), back.error().code());
        assertEquals(failed.error().message(), back.error().message());
        assertTrue(
                back.error().data() == null || back.error().data().isNull(),
                String.valueOf(back.error().data()));
    }

    @Test
    void aCallThatBecameATaskNamesItsTask() throws Exception {
        CallBecameTask became = (CallBecameTask) samples().get(7);
        assertEquals(became, roundTrip(became));
    }

    @Test
    void storedPayloadIsPlainJsonWithoutTypeInformation() throws Exception {
        for (JournalEvent event : samples()) {
            String text = new String(serializer.toBinary(event), StandardCharsets.UTF_8);
            assertTrue(Json.MAPPER.readTree(text).isObject(), text);
            assertFalse(text.contains("dev.parley"), () -> "class names leaked into the stored payload: " + text);
        }
    }

    @Test
    void fieldsAddedByANewerVersionAreIgnoredWhenReading() throws Exception {
        byte[] newer = "{\"at\":\"2026-07-28T10:15:30Z\",\"reason\":\"user\",\"addedLater\":42}"
                .getBytes(StandardCharsets.UTF_8);
        Object event = serializer.fromBinary(newer, "parley.task.cancelled.v1");
        assertEquals(new TaskCancelled(Instant.parse("2026-07-28T10:15:30Z")), event);
    }

    @Test
    void anEventWrittenBeforeAFieldExistedReadsWithTheFieldAbsent() throws Exception {
        byte[] older = "{\"name\":\"book_room\",\"at\":\"2026-07-28T10:15:30Z\"}".getBytes(StandardCharsets.UTF_8);
        TaskStepRecorded event =
                assertInstanceOf(TaskStepRecorded.class, serializer.fromBinary(older, "parley.task.step-recorded.v1"));
        assertEquals("book_room", event.name());
        assertTrue(event.value() == null || event.value().isNull(), String.valueOf(event.value()));
    }

    @Test
    void referenceConfBindsEveryTaskEventToTheJournalSerializer() throws Exception {
        ActorTestKit testKit = ActorTestKit.create("TaskEventSerializationTest");
        try {
            Serialization serialization =
                    SerializationExtension.get(testKit.system().classicSystem());
            for (JournalEvent event : samples()) {
                Serializer bound = serialization.findSerializerFor(event);
                assertEquals(
                        JournalEventSerializer.IDENTIFIER,
                        bound.identifier(),
                        event.getClass().getSimpleName());
                String manifest = Serializers.manifestFor(bound, event);
                assertEquals(STABLE_NAMES.get(event.getClass()), manifest);
                byte[] bytes = serialization.serialize(event).get();
                assertSameEvent(
                        event,
                        serialization
                                .deserialize(bytes, JournalEventSerializer.IDENTIFIER, manifest)
                                .get());
            }
        } finally {
            testKit.shutdownTestKit();
        }
    }

    @Test
    void aCancelledEventHoldsNothingButItsTime() throws Exception {
        String text = new String(serializer.toBinary(samples().get(6)), StandardCharsets.UTF_8);
        List<String> fields = new ArrayList<>();
        Json.MAPPER.readTree(text).fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("at"), fields, text);
    }
}
