package dev.parley.actors.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.CallRecording;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A call's and a task's journal become the recording the replay check reads, steps in journal order. */
class CallHistoryExportConversionTest {
    private static final Instant AT = Instant.parse("2026-07-28T10:15:30Z");
    private static final AskedQuestion WHEN = AskedQuestion.of(
            "when", Elicitation.url("Pick a slot", "https://example.org/slots").toInputRequest());
    private static final AskedQuestion CONFIRM = AskedQuestion.of(
            "confirm", Elicitation.url("Confirm", "https://example.org/confirm").toInputRequest());
    private static final ObjectNode ARGUMENTS = (ObjectNode) Json.parse("{\"room\":\"A\"}");

    private static Map<String, JsonNode> steps(String... names) {
        Map<String, JsonNode> steps = new LinkedHashMap<>();
        for (String name : names) {
            steps.put(name, Json.parse("\"" + name + "-value\""));
        }
        return steps;
    }

    private static Map<String, RecordedAnswer> answered(AskedQuestion question) {
        return Map.of(
                question.key(), new RecordedAnswer(question.fingerprint(), Json.parse("{\"action\":\"accept\"}")));
    }

    private static List<String> stepNames(CallRecording recording) {
        return recording.steps().stream().map(CallRecording.RecordedStep::name).toList();
    }

    @Test
    void aCallsJournalInEveryState() {
        List<Object> events = new java.util.ArrayList<>(List.of(
                new CallEvent.CallStarted(
                        "tools/call", "book", ARGUMENTS, "alice", steps("parley.seed", "hold"), List.of(WHEN), AT),
                new CallEvent.StepRecorded("reserve", Json.parse("1"))));
        CallRecording running = CallHistoryExport.fromCall("c-1", events);
        assertEquals(CallRecording.Status.WORKING, running.status());
        assertEquals(List.of("parley.seed", "hold", "reserve"), stepNames(running));

        events.add(new CallEvent.AnswersReceived(1, answered(WHEN)));
        events.add(new CallEvent.InputRequested(1, List.of(CONFIRM)));
        CallRecording waiting = CallHistoryExport.fromCall("c-1", events);
        assertEquals(CallRecording.Status.INPUT_REQUIRED, waiting.status());
        assertEquals(
                List.of("when", "confirm"),
                waiting.questions().stream().map(AskedQuestion::key).toList());
        assertEquals(List.of("when"), List.copyOf(waiting.answers().keySet()));
        assertEquals(CallRecording.Kind.CALL, waiting.kind());
        assertEquals(ARGUMENTS, waiting.arguments());

        events.add(new CallEvent.CallBecameTask(2, "t-1"));
        CallRecording handedOver = CallHistoryExport.fromCall("c-1", events);
        assertEquals(CallRecording.Status.BECAME_TASK, handedOver.status());
        assertEquals("t-1", handedOver.result().path("taskId").asText());
    }

    @Test
    void aTasksJournalCarriesTheStepsAndAnswersOfItsCall() {
        List<Object> events = List.of(
                new TaskEvent.TaskCreated(
                        "tools/call",
                        "book",
                        ARGUMENTS,
                        "alice",
                        Json.object(),
                        answered(WHEN),
                        steps("parley.seed", "hold"),
                        60_000,
                        AT),
                new TaskEvent.TaskStepRecorded("write", Json.parse("2"), AT),
                new TaskEvent.TaskInputRequested(List.of(CONFIRM), AT),
                new TaskEvent.TaskAnswersReceived(answered(CONFIRM), AT),
                new TaskEvent.TaskStepRecorded("send", Json.parse("3"), AT),
                new TaskEvent.TaskCompleted(ToolResult.text("done").toWire(), AT));
        CallRecording recording = CallHistoryExport.fromTask("t-1", events);
        assertEquals(CallRecording.Kind.TASK, recording.kind());
        assertEquals(CallRecording.Status.COMPLETED, recording.status());
        assertEquals(List.of("parley.seed", "hold", "write", "send"), stepNames(recording));
        assertEquals(List.of("when", "confirm"), List.copyOf(recording.answers().keySet()));
        assertEquals(
                "done", recording.result().path("content").get(0).path("text").asText());
        assertEquals(
                CallRecording.Status.CANCELLED,
                CallHistoryExport.fromTask("t-1", List.of(events.get(0), new TaskEvent.TaskCancelled(AT)))
                        .status());
    }
}
