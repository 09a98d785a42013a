package dev.parley.http.internal.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.internal.console.ConsoleApi.Round;
import dev.parley.http.internal.console.ConsoleApi.Timeline;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalBrowser.StoredEvent;
import dev.parley.persistence.internal.JournalEvent;
import dev.parley.persistence.internal.JournalEventSerializer;
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the console makes of a call's and a task's journal: rounds, steps, outcome and status. */
class JournalViewsTest {
    private static final long T0 = 1_785_000_000_000L;
    private static final Instant AT = Instant.ofEpochMilli(T0);
    private static final AskedQuestion DATE = question("date");
    private static final AskedQuestion CONFIRM = question("confirm");
    private static final ObjectNode ARGUMENTS = (ObjectNode) Json.parse("{\"venue\":\"Harbour Hall\"}");
    private static final ObjectNode RESULT = ToolResult.text("Booked").toWire();

    private static AskedQuestion question(String key) {
        return AskedQuestion.of(
                key,
                Elicitation.form("Which " + key + "?")
                        .field(key, FormField.string(key))
                        .build()
                        .toInputRequest());
    }

    private static Map<String, RecordedAnswer> answer(AskedQuestion question) {
        return Map.of(
                question.key(),
                new RecordedAnswer(
                        question.fingerprint(),
                        Json.parse("{\"action\":\"accept\",\"content\":{\"" + question.key() + "\":\"x\"}}")));
    }

    /** Events as the journal browser returns them: {@code writtenAt} is T0 plus the given offset. */
    private static List<StoredEvent> stored(Object... offsetsAndEvents) {
        JournalEventSerializer serializer = new JournalEventSerializer();
        List<StoredEvent> events = new ArrayList<>();
        for (int i = 0; i < offsetsAndEvents.length; i += 2) {
            JournalEvent event = (JournalEvent) offsetsAndEvents[i + 1];
            events.add(new StoredEvent(
                    events.size() + 1, T0 + (Integer) offsetsAndEvents[i], serializer.manifest(event), event));
        }
        return events;
    }

    private static List<String> ended(Timeline timeline) {
        return timeline.rounds().stream().map(Round::ended).toList();
    }

    @Test
    void aCallsRoundsStepsAndOutcome() {
        List<StoredEvent> journal = stored(
                0,
                new CallEvent.CallStarted(
                        "tools/call",
                        "book_venue",
                        ARGUMENTS,
                        "alice",
                        Map.of("reserve", Json.parse("\"r-1\"")),
                        List.of(DATE),
                        AT),
                100,
                new CallEvent.StepRecorded("hold", Json.parse("\"h-1\"")),
                150,
                new CallEvent.AnswersReceived(1, answer(DATE)),
                150,
                new CallEvent.InputRequested(1, List.of(CONFIRM)),
                300,
                new CallEvent.AnswersReceived(2, answer(CONFIRM)),
                300,
                new CallEvent.CallCompleted(2, RESULT));

        Timeline shown = new JournalViews(true).callTimeline("c-1", journal).orElseThrow();

        assertEquals("completed", shown.status());
        assertEquals(List.of("input_required", "input_required", "completed"), ended(shown));
        Round second = shown.rounds().get(1);
        assertEquals(2, second.number());
        assertEquals(Instant.ofEpochMilli(T0 + 100), second.at(), "a round starts with its first journaled step");
        assertEquals(List.of("hold"), second.steps());
        assertEquals("date", second.answers().get(0).key());
        assertEquals("confirm", second.questions().get(0).key());
        assertEquals(
                List.of("reserve", "hold"),
                shown.steps().stream().map(ConsoleApi.Step::name).toList());
        assertEquals(
                List.of(1, 2),
                shown.steps().stream().map(ConsoleApi.Step::round).toList());
        assertEquals("completed", shown.outcome().status());
        assertEquals(RESULT, shown.outcome().result());

        Timeline redacted = new JournalViews(false).callTimeline("c-1", journal).orElseThrow();
        assertNull(redacted.outcome().result());
        assertNull(redacted.arguments());
        assertTrue(redacted.rounds().get(1).answers().get(0).redacted());

        Timeline running = new JournalViews(true)
                .callTimeline("c-1", journal.subList(0, 2))
                .orElseThrow();
        assertEquals("running", running.status());
        assertEquals(
                List.of("input_required", "running"), ended(running), "its steps are journaled, its answers not yet");
    }

    @Test
    void aTasksRoundsEndWhenItAsksAndItsOutcome() {
        List<StoredEvent> journal = stored(
                0,
                new TaskEvent.TaskCreated(
                        "tools/call", "approve", ARGUMENTS, "alice", Json.object(), Map.of(), Map.of(), 60_000L, AT),
                40,
                new TaskEvent.TaskStepRecorded("prepare", Json.parse("\"p-1\""), AT),
                50,
                new TaskEvent.TaskInputRequested(List.of(CONFIRM), AT),
                90,
                new TaskEvent.TaskAnswersReceived(answer(CONFIRM), AT),
                120,
                new TaskEvent.TaskCancelled(AT));

        Timeline asking = new JournalViews(true)
                .taskTimeline("t-1", journal.subList(0, 3), "waiting for approval")
                .orElseThrow();
        assertEquals("input_required", asking.status());
        assertEquals("waiting for approval", asking.statusMessage());

        Timeline cancelled =
                new JournalViews(true).taskTimeline("t-1", journal, "gone").orElseThrow();
        assertEquals("cancelled", cancelled.status());
        assertNull(cancelled.statusMessage(), "an ended task has no status message");
        assertEquals(List.of("input_required", "cancelled"), ended(cancelled));
        assertEquals(List.of("prepare"), cancelled.rounds().get(0).steps());
        assertEquals(Long.valueOf(40), cancelled.steps().get(0).durationMs());
        Round second = cancelled.rounds().get(1);
        assertEquals(Instant.ofEpochMilli(T0 + 90), second.at(), "a round starts when its answers arrive");
        assertEquals("confirm", second.answers().get(0).key());
        assertEquals("cancelled", cancelled.outcome().status());
    }

    @Test
    void statusesAndOpenOnesComeFromTheJournalsVocabulary() {
        assertEquals("waiting", JournalViews.CALL_STATUS.get("parley.call.input-requested.v1"));
        assertEquals("became_task", JournalViews.CALL_STATUS.get("parley.call.became-task.v1"));
        assertEquals("working", JournalViews.TASK_STATUS.get("parley.task.answers-received.v1"));
        assertEquals(Set.of("waiting", "running"), JournalViews.OPEN_CALL);
        assertEquals(Set.of("working", "input_required"), JournalViews.OPEN_TASK);
    }
}
