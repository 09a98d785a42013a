package dev.parley.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.persistence.internal.CallEvent.AnswersReceived;
import dev.parley.persistence.internal.CallEvent.CallCompleted;
import dev.parley.persistence.internal.CallEvent.CallFailed;
import dev.parley.persistence.internal.CallEvent.CallStarted;
import dev.parley.persistence.internal.CallEvent.InputRequested;
import dev.parley.persistence.internal.CallEvent.StepRecorded;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.io.NotSerializableException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
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
 * The journal's serialization binding (DESIGN.md §5): every event is stored as JSON under a
 * stable type name, never its class name, and reads back equal.
 */
class JournalEventSerializerTest {
    static {
        // Initialise SLF4J before any actor system logs (STACK.md G10).
        org.slf4j.LoggerFactory.getILoggerFactory();
    }

    /** The names stored rows carry. Changing one orphans every row written under it. */
    private static final Map<Class<?>, String> STABLE_NAMES = Map.of(
            CallStarted.class, "parley.call.started.v1",
            AnswersReceived.class, "parley.call.answers-received.v1",
            StepRecorded.class, "parley.call.step-recorded.v1",
            InputRequested.class, "parley.call.input-requested.v1",
            CallCompleted.class, "parley.call.completed.v1",
            CallFailed.class, "parley.call.failed.v1",
            CallEvent.CallBecameTask.class, "parley.call.became-task.v1");

    private static final Elicitation.Form DATE = Elicitation.form("Which date?")
            .field("date", FormField.string("Date", "date"))
            .field("guests", FormField.integer("Guests").minimum(1).optional())
            .build();
    private static final Elicitation.Form CONFIRM = Elicitation.form("Charge the deposit?")
            .field("ok", FormField.bool("Confirm"))
            .build();

    private final JournalEventSerializer serializer = new JournalEventSerializer();

    /** One sample of every event type, with every field set (and nested JSON of every kind). */
    static List<CallEvent> samples() {
        ObjectNode arguments = (ObjectNode) Json.parse("{\"venue\":\"Harbour Hall\",\"guests\":40,\"vip\":true,"
                + "\"budget\":1250.5,\"tags\":[\"summer\",null],\"contact\":{\"mail\":\"a@example.org\"}}");
        Map<String, JsonNode> steps = new LinkedHashMap<>();
        steps.put("reserve", Json.parse("{\"id\":\"r-1\",\"cents\":12000}"));
        steps.put("parley.now.0", Json.parse("\"2026-07-28T10:15:30Z\""));
        AskedQuestion date = AskedQuestion.of("date", DATE.toInputRequest());
        AskedQuestion confirm = AskedQuestion.of("confirm", CONFIRM.toInputRequest());
        Map<String, RecordedAnswer> answers = new LinkedHashMap<>();
        answers.put(
                "date",
                new RecordedAnswer(
                        date.fingerprint(),
                        Json.parse("{\"action\":\"accept\",\"content\":{\"date\":\"2026-08-01\",\"guests\":40}}")));
        answers.put("other", new RecordedAnswer("0".repeat(64), Json.parse("{\"action\":\"decline\"}")));
        ObjectNode errorData = (ObjectNode) Json.parse("{\"requiredCapabilities\":{\"elicitation\":{\"url\":{}}}}");
        return List.of(
                new CallStarted(
                        "tools/call",
                        "book_venue",
                        arguments,
                        "alice",
                        steps,
                        List.of(date),
                        Instant.parse("2026-07-28T10:15:30.123456789Z")),
                new AnswersReceived(1, answers),
                new StepRecorded("charge", Json.parse("{\"receipt\":\"c-1\",\"cents\":12000}")),
                new InputRequested(1, List.of(confirm)),
                new CallCompleted(
                        2, ToolResult.structured(Map.of("booked", true)).toWire()),
                new CallFailed(
                        2,
                        new ErrorObject(
                                ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
                                "Missing required client capability",
                                errorData)),
                new CallEvent.CallBecameTask(2, "6f1c2a9e-8d0b-4c55-9a51-3f3d1e2b7c40"));
    }

    /**
     * Same type and the same JSON. Record equality is too strict for the nested {@link JsonNode}s:
     * JSON has one number type, so a {@code LongNode(1)} (what {@code FormField.minimum} builds)
     * reads back as an {@code IntNode(1)} that is not {@code equals} to it.
     */
    private static void assertSameEvent(Object expected, Object actual) {
        assertEquals(expected.getClass(), actual.getClass());
        assertEquals(
                Json.canonical(Json.tree(expected)),
                Json.canonical(Json.tree(actual)),
                () -> "round trip of " + expected.getClass().getSimpleName());
    }

    @Test
    void samplesCoverEveryEventType() {
        Set<Class<?>> sampled = samples().stream().map(Object::getClass).collect(Collectors.toSet());
        Set<Class<?>> declared = Set.copyOf(Arrays.asList(CallEvent.class.getPermittedSubclasses()));
        assertEquals(declared, sampled, "a new CallEvent needs a sample here and a stable name in the serializer");
        assertEquals(declared, STABLE_NAMES.keySet());
    }

    @Test
    void everyEventRoundTripsToAnEqualEvent() throws Exception {
        for (CallEvent event : samples()) {
            byte[] bytes = serializer.toBinary(event);
            Object back = serializer.fromBinary(bytes, serializer.manifest(event));
            assertSameEvent(event, back);
        }
    }

    @Test
    void aRecordedQuestionKeepsItsFingerprintThroughTheJournal() throws Exception {
        InputRequested event = (InputRequested) samples().get(3);
        InputRequested back =
                (InputRequested) serializer.fromBinary(serializer.toBinary(event), serializer.manifest(event));
        AskedQuestion question = back.questions().get(0);
        assertEquals(event.questions().get(0).fingerprint(), question.fingerprint());
        assertEquals(
                question.fingerprint(),
                AskedQuestion.fingerprint(question.request()),
                "a replayed question must still match the question the handler asks again");
    }

    @Test
    void everyEventIsStoredUnderItsStableNameNeverItsClassName() {
        for (CallEvent event : samples()) {
            String manifest = serializer.manifest(event);
            assertEquals(STABLE_NAMES.get(event.getClass()), manifest);
            assertFalse(manifest.contains(event.getClass().getSimpleName()), manifest);
            assertFalse(manifest.contains("dev.parley"), manifest);
        }
    }

    @Test
    void storedPayloadIsPlainJsonWithoutTypeInformation() throws Exception {
        for (CallEvent event : samples()) {
            String text = new String(serializer.toBinary(event), StandardCharsets.UTF_8);
            JsonNode json = Json.MAPPER.readTree(text);
            assertTrue(json.isObject(), text);
            assertFalse(text.contains("dev.parley"), () -> "class names leaked into the stored payload: " + text);
        }
    }

    @Test
    void fieldsAddedByANewerVersionAreIgnoredWhenReading() throws Exception {
        byte[] newer =
                "{\"name\":\"charge\",\"value\":{\"ok\":true},\"addedLater\":42}".getBytes(StandardCharsets.UTF_8);
        Object event = serializer.fromBinary(newer, "parley.call.step-recorded.v1");
        assertEquals(new StepRecorded("charge", Json.parse("{\"ok\":true}")), event);
    }

    @Test
    void anUnknownManifestFailsWithNotSerializableException() {
        byte[] bytes = serializer.toBinary(samples().get(2));
        NotSerializableException failure = assertThrows(
                NotSerializableException.class, () -> serializer.fromBinary(bytes, "parley.call.renamed.v9"));
        assertTrue(failure.getMessage().contains("parley.call.renamed.v9"), failure.getMessage());
    }

    @Test
    void aClassNameIsNotAcceptedAsManifest() {
        byte[] bytes = serializer.toBinary(samples().get(2));
        assertThrows(NotSerializableException.class, () -> serializer.fromBinary(bytes, StepRecorded.class.getName()));
    }

    @Test
    void corruptBytesFailWithNotSerializableException() {
        byte[] corrupt = "{\"name\":".getBytes(StandardCharsets.UTF_8);
        NotSerializableException failure = assertThrows(
                NotSerializableException.class, () -> serializer.fromBinary(corrupt, "parley.call.step-recorded.v1"));
        assertNotNull(failure.getCause());
    }

    @Test
    void anObjectWithoutStableNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> serializer.manifest("not an event"));
        assertThrows(IllegalArgumentException.class, () -> serializer.toBinary("not an event"));
    }

    @Test
    void referenceConfBindsEveryEventToTheJournalSerializer() throws Exception {
        ActorTestKit testKit = ActorTestKit.create("JournalEventSerializerTest");
        try {
            Serialization serialization =
                    SerializationExtension.get(testKit.system().classicSystem());
            for (CallEvent event : samples()) {
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
}
