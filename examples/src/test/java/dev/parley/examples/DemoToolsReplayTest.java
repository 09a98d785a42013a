package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo tools keep the author's contract (DESIGN §4): run again over their recorded history
 * (a later round, or a re-run after a crash) they take the same path and repeat no effect.
 * Runs the handlers with the engine directly, recording the history the way the entity does.
 */
class DemoToolsReplayTest {
    @TempDir
    Path data;

    private DemoLedger ledger;
    private DemoTools tools;
    private ExecutorService executor;
    private ReplayEngine engine;
    private final Map<String, JsonNode> steps = new LinkedHashMap<>();
    private final Map<String, RecordedAnswer> answers = new LinkedHashMap<>();

    @BeforeEach
    void setUp() {
        ledger = new DemoLedger(data);
        tools = new DemoTools(ledger, () -> "http://127.0.0.1:8080");
        executor = Executors.newFixedThreadPool(2);
        engine = new ReplayEngine(executor);
    }

    @AfterEach
    void tearDown() {
        executor.shutdownNow();
    }

    private static final ClientCapabilities CAPABILITIES = ClientCapabilities.of(Json.parse(
            "{\"elicitation\":{\"form\":{},\"url\":{}},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}"));

    /** One run over what was recorded so far; steps it performs are recorded as they happen. */
    private RunOutcome run(ToolDefinition<?> tool, ObjectNode arguments) {
        return run(tool, arguments, RunEnvironment.TaskMode.SYNCHRONOUS, new Cancellation(), steps::put);
    }

    private RunOutcome run(
            ToolDefinition<?> tool,
            ObjectNode arguments,
            RunEnvironment.TaskMode mode,
            Cancellation cancellation,
            StepJournal journal) {
        RunEnvironment environment =
                new RunEnvironment("alice", CAPABILITIES, RunEnvironment.RequestSink.NONE, cancellation, mode);
        RunOutcome outcome = engine.run(tool, arguments, environment, new CallHistory(answers, steps), journal)
                .toCompletableFuture()
                .join();
        if (outcome instanceof RunOutcome.NeedsInput needs) {
            steps.putAll(needs.newSteps());
        }
        if (outcome instanceof RunOutcome.BecameTask became) {
            steps.putAll(became.newSteps());
        }
        return outcome;
    }

    private AskedQuestion onlyQuestion(RunOutcome outcome) {
        RunOutcome.NeedsInput needs = assertInstanceOf(RunOutcome.NeedsInput.class, outcome);
        assertEquals(1, needs.questions().size(), () -> "questions: " + needs.questions());
        return needs.questions().get(0);
    }

    private void answer(AskedQuestion question, String response) {
        answers.put(question.key(), new RecordedAnswer(question.fingerprint(), Json.parse(response)));
    }

    @Test
    void bookVenueRunAgainAfterItBookedEndsWithTheSameBookingAndBooksOnce() {
        ToolDefinition<?> bookVenue = tools.bookVenue();
        ObjectNode arguments = Json.object().put("date", "2027-06-01").put("guests", 5);

        AskedQuestion deposit = onlyQuestion(run(bookVenue, arguments));
        assertEquals("deposit_1", deposit.key());
        String url = deposit.request().params().path("url").asText();
        String depositId = url.substring(url.lastIndexOf('/') + 1);
        ledger.append("deposit", "deposit:" + depositId, depositId);
        answer(deposit, "{\"action\":\"accept\"}");

        RunOutcome.Completed booked = assertInstanceOf(RunOutcome.Completed.class, run(bookVenue, arguments));
        // The node dies after the booking step was journaled, before the outcome was: the next
        // retry runs the handler once more over the same history. Its own booking now sits in the
        // ledger; the run must still see its date as free for this call.
        RunOutcome.Completed again = assertInstanceOf(RunOutcome.Completed.class, run(bookVenue, arguments));
        assertEquals(booked.result(), again.result());
        assertEquals(1, ledger.count("booking"), () -> "ledger: " + ledger.lines());
        assertEquals(1, ledger.count("deposit"));
    }

    @Test
    void bookVenueOnATakenDateRunAgainAfterItBookedEndsWithTheSameBooking() {
        ToolDefinition<?> bookVenue = tools.bookVenue();
        ObjectNode arguments = Json.object().put("date", "2026-12-24").put("guests", 50);

        AskedQuestion date = onlyQuestion(run(bookVenue, arguments));
        assertEquals("alternative_date", date.key());
        String suggested = date.request()
                .params()
                .path("requestedSchema")
                .path("properties")
                .path("date")
                .path("default")
                .asText();
        answer(date, "{\"action\":\"accept\",\"content\":{\"date\":\"" + suggested + "\"}}");

        AskedQuestion deposit = onlyQuestion(run(bookVenue, arguments));
        String url = deposit.request().params().path("url").asText();
        String depositId = url.substring(url.lastIndexOf('/') + 1);
        ledger.append("deposit", "deposit:" + depositId, depositId);
        answer(deposit, "{\"action\":\"accept\"}");

        RunOutcome.Completed booked = assertInstanceOf(RunOutcome.Completed.class, run(bookVenue, arguments));
        RunOutcome.Completed again = assertInstanceOf(RunOutcome.Completed.class, run(bookVenue, arguments));
        assertEquals(booked.result(), again.result());
        assertEquals(
                List.of("booking"),
                ledger.lines().stream()
                        .filter(line -> line.startsWith("booking "))
                        .map(line -> line.split(" ")[0])
                        .toList());
    }

    @Test
    void bookVenueAsATaskStoppedMidContractAndRunAgainFromItsHistoryWritesEveryPartOnce() {
        ToolDefinition<?> bookVenue = tools.bookVenue();
        ObjectNode arguments = Json.object().put("date", "2027-06-02").put("guests", 12);
        AskedQuestion deposit = onlyQuestion(run(bookVenue, arguments));
        String url = deposit.request().params().path("url").asText();
        String depositId = url.substring(url.lastIndexOf('/') + 1);
        ledger.append("deposit", "deposit:" + depositId, depositId);
        answer(deposit, "{\"action\":\"accept\"}");

        // The round that may become a task ends at ctx.becomeTask(): nothing of the contract yet.
        assertInstanceOf(
                RunOutcome.BecameTask.class,
                run(bookVenue, arguments, RunEnvironment.TaskMode.MAY_BECOME_TASK, new Cancellation(), steps::put));
        assertEquals(0, ledger.count("contract"));

        // The task's run stops once the first part is journaled, as when its node dies.
        Cancellation dies = new Cancellation();
        run(bookVenue, arguments, RunEnvironment.TaskMode.TASK, dies, (name, value) -> {
            steps.put(name, value);
            if (name.equals("contract_1")) {
                dies.cancel();
            }
        });
        assertEquals(1, ledger.count("contract"), () -> "ledger: " + ledger.lines());
        assertEquals(0, ledger.count("booking"));

        // Resumed from its history, it goes on from part 2.
        RunOutcome.Completed booked = assertInstanceOf(
                RunOutcome.Completed.class,
                run(bookVenue, arguments, RunEnvironment.TaskMode.TASK, new Cancellation(), steps::put));
        RunOutcome.Completed again = assertInstanceOf(
                RunOutcome.Completed.class,
                run(bookVenue, arguments, RunEnvironment.TaskMode.TASK, new Cancellation(), steps::put));
        assertEquals(booked.result(), again.result());
        String bookingId = "BKG-" + url.substring(url.lastIndexOf('/') + 1, url.lastIndexOf('/') + 9);
        assertEquals(
                List.of(
                        "contract " + bookingId + " part 1 of 3",
                        "contract " + bookingId + " part 2 of 3",
                        "contract " + bookingId + " part 3 of 3",
                        "booking " + bookingId + " 2027-06-02 12"),
                ledger.lines().subList(1, ledger.lines().size()));
    }

    @Test
    void publishReportAsATaskAsksForApprovalAfterTheDraftAndRunAgainRepeatsNothing() {
        ToolDefinition<?> report = tools.publishReport();
        ObjectNode arguments = Json.object().put("title", "Ops review");
        assertInstanceOf(
                RunOutcome.BecameTask.class,
                run(report, arguments, RunEnvironment.TaskMode.MAY_BECOME_TASK, new Cancellation(), steps::put));
        AskedQuestion approval =
                onlyQuestion(run(report, arguments, RunEnvironment.TaskMode.TASK, new Cancellation(), steps::put));
        assertEquals("approval", approval.key());
        assertEquals(0, ledger.count("report"));
        answer(approval, "{\"action\":\"accept\",\"content\":{\"channel\":\"website\"}}");
        RunOutcome.Completed first = assertInstanceOf(
                RunOutcome.Completed.class,
                run(report, arguments, RunEnvironment.TaskMode.TASK, new Cancellation(), steps::put));
        RunOutcome.Completed again = assertInstanceOf(
                RunOutcome.Completed.class,
                run(report, arguments, RunEnvironment.TaskMode.TASK, new Cancellation(), steps::put));
        assertEquals(first.result(), again.result());
        assertEquals(1, ledger.count("report"), () -> "ledger: " + ledger.lines());
    }

    @Test
    void scheduleReleaseRunAgainAfterItScheduledRepeatsNothing() {
        ToolDefinition<?> release = tools.scheduleRelease();
        ObjectNode arguments = Json.object().put("service", "auth");
        AskedQuestion window = onlyQuestion(run(release, arguments));
        answer(window, "{\"action\":\"accept\",\"content\":{\"window\":\"2027-02-01T09:00:00Z\"}}");
        RunOutcome.Completed first = assertInstanceOf(RunOutcome.Completed.class, run(release, arguments));
        RunOutcome.Completed again = assertInstanceOf(RunOutcome.Completed.class, run(release, arguments));
        assertEquals(first.result(), again.result());
        assertEquals(1, ledger.count("release"));
    }

    @Test
    void createInvoiceRunAgainAfterItIssuedRepeatsNothing() {
        ToolDefinition<?> invoice = tools.createInvoice();
        ObjectNode arguments = Json.object().put("client", "Umbrella").put("amount", 7.25);
        AskedQuestion currency = onlyQuestion(run(invoice, arguments));
        answer(currency, "{\"action\":\"accept\",\"content\":{\"currency\":\"USD\"}}");
        RunOutcome.Completed first = assertInstanceOf(RunOutcome.Completed.class, run(invoice, arguments));
        RunOutcome.Completed again = assertInstanceOf(RunOutcome.Completed.class, run(invoice, arguments));
        assertEquals(first.result(), again.result());
        assertEquals(1, ledger.count("invoice"));
    }
}
