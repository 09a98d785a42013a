package dev.parley.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.wire.JsonRpc.Response;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import dev.parley.testing.SpecSchema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Replay over recorded histories: the determinism contract of DESIGN.md §4. Each test runs a
 * handler against a history (built by hand, or captured from an earlier run) and checks what the
 * run replays, what it asks, and what it performs.
 */
class ReplayEngineTest {
    private static final ClientCapabilities FORM_AND_URL =
            ClientCapabilities.of(Json.parse("{\"elicitation\":{\"form\":{},\"url\":{}}}"));
    private static final ClientCapabilities FORM_ONLY = ClientCapabilities.of(Json.parse("{\"elicitation\":{}}"));

    private static final Elicitation.Form WINDOW = Elicitation.form("When should billing be released?")
            .field("window", FormField.string("Release window", "date-time"))
            .build();
    private static final Elicitation.Form CONFIRM = Elicitation.form("Charge the deposit?")
            .field("ok", FormField.bool("Confirm"))
            .build();
    private static final Elicitation.Url DEPOSIT =
            Elicitation.url("Pay the deposit on the venue's page", "https://127.0.0.1:8443/pay/call-1");

    private static final Elicitation.Form CURRENCY = Elicitation.form("Which currency?")
            .field("currency", FormField.choice("Currency", List.of("EUR", "USD", "CHF")))
            .build();
    private static final Elicitation.Form AMOUNT = Elicitation.form("How much?")
            .field("amount", FormField.number("Amount").minimum(0))
            .build();

    private static final JsonNode ACCEPT_WINDOW =
            Json.parse("{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\"}}");
    private static final JsonNode DECLINE = Json.parse("{\"action\":\"decline\"}");
    private static final JsonNode CANCEL = Json.parse("{\"action\":\"cancel\"}");

    record Release(String service) {}

    record Booking(String date, int guests) {}

    record Receipt(String id, long cents) {}

    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final ReplayEngine engine = new ReplayEngine(executor);

    @AfterEach
    void stopExecutor() {
        executor.shutdownNow();
    }

    // --- helpers -------------------------------------------------------------------------------

    private static JsonNode args(String json) {
        return Json.parse(json);
    }

    private static RecordedAnswer answer(Elicitation question, JsonNode response) {
        return new RecordedAnswer(AskedQuestion.fingerprint(question.toInputRequest()), response);
    }

    private static CallHistory answers(Map<String, RecordedAnswer> answers) {
        return new CallHistory(answers, Map.of());
    }

    private <A> RunOutcome run(ToolDefinition<A> tool, JsonNode arguments, CallHistory history) throws Exception {
        return run(tool, arguments, RunEnvironment.of("alice", FORM_AND_URL), history, StepJournal.NONE);
    }

    private <A> RunOutcome run(
            ToolDefinition<A> tool,
            JsonNode arguments,
            RunEnvironment environment,
            CallHistory history,
            StepJournal journal)
            throws Exception {
        return engine.run(tool, arguments, environment, history, journal)
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }

    private static ObjectNode completed(RunOutcome outcome) {
        return assertInstanceOf(RunOutcome.Completed.class, outcome, outcome::toString)
                .result();
    }

    private static String text(RunOutcome outcome) {
        ObjectNode result = completed(outcome);
        SpecSchema.assertValid("CallToolResult", result);
        return result.path("content").path(0).path("text").asText();
    }

    private static RunOutcome.NeedsInput needsInput(RunOutcome outcome) {
        return assertInstanceOf(RunOutcome.NeedsInput.class, outcome, outcome::toString);
    }

    private static List<String> keys(RunOutcome.NeedsInput needsInput) {
        return needsInput.questions().stream().map(AskedQuestion::key).toList();
    }

    private static RunOutcome.Failed failed(RunOutcome outcome) {
        return assertInstanceOf(RunOutcome.Failed.class, outcome, outcome::toString);
    }

    /** A journal that remembers what it was given, in order. */
    private static final class RecordingJournal implements StepJournal {
        final Map<String, JsonNode> recorded = Collections.synchronizedMap(new LinkedHashMap<>());

        @Override
        public void record(String name, JsonNode value) {
            recorded.put(name, value);
        }
    }

    private static String describe(ElicitAnswer answer) {
        if (answer instanceof ElicitAnswer.Accepted accepted) {
            return accepted.content().has("window") ? "accepted " + accepted.string("window") : "accepted";
        }
        return answer instanceof ElicitAnswer.Declined ? "declined" : "cancelled";
    }

    private static ToolDefinition<Release> scheduleRelease() {
        return ToolDefinition.tool("schedule_release", Release.class).handler((release, ctx) -> {
            ElicitAnswer answer = ctx.elicit("window", WINDOW);
            return ToolResult.text(release.service() + ": " + describe(answer));
        });
    }

    private static ToolDefinition<Release> scheduleReleaseAsync() {
        return ToolDefinition.tool("schedule_release", Release.class)
                .asyncHandler((release, ctx) -> CompletableFuture.completedFuture(
                        ToolResult.text(release.service() + ": " + describe(ctx.elicit("window", WINDOW)))));
    }

    // --- one round -----------------------------------------------------------------------------

    @Test
    void aOneRoundToolCompletes() throws Exception {
        ToolDefinition<Release> tool = ToolDefinition.tool("status", Release.class)
                .handler((release, ctx) -> ToolResult.text(
                        release.service() + " is up for " + ctx.principal().id()));

        RunOutcome outcome = run(tool, args("{\"service\":\"billing\"}"), CallHistory.EMPTY);

        assertEquals("billing is up for alice", text(outcome));
        assertFalse(completed(outcome).has("isError"));
        assertEquals("complete", completed(outcome).path("resultType").asText());
    }

    @Test
    void aOneRoundAsyncToolCompletesOnTheCallingThread() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("echo", Json.parse("{\"type\":\"object\"}"))
                .asyncHandler((arguments, ctx) -> {
                    ranOn.set(Thread.currentThread());
                    return CompletableFuture.completedFuture(ToolResult.structured(arguments));
                });

        RunOutcome outcome = run(tool, args("{\"x\":1}"), CallHistory.EMPTY);

        assertSame(Thread.currentThread(), ranOn.get());
        assertEquals(args("{\"x\":1}"), completed(outcome).get("structuredContent"));
    }

    @Test
    void aBlockingToolRunsOnTheToolExecutor() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("where", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    ranOn.set(Thread.currentThread());
                    return ToolResult.text("here");
                });

        run(tool, null, CallHistory.EMPTY);

        assertNotEquals(Thread.currentThread(), ranOn.get());
    }

    // --- asking --------------------------------------------------------------------------------

    @Test
    void aToolThatAsksEndsTheRoundWithTheQuestion() throws Exception {
        RunOutcome.NeedsInput needsInput =
                needsInput(run(scheduleRelease(), args("{\"service\":\"billing\"}"), CallHistory.EMPTY));

        assertEquals(List.of("window"), keys(needsInput));
        AskedQuestion question = needsInput.questions().get(0);
        InputRequest request = question.request();
        assertEquals("elicitation/create", request.method());
        assertEquals("form", request.params().path("mode").asText());
        assertEquals(
                "When should billing be released?",
                request.params().path("message").asText());
        assertEquals(WINDOW.requestedSchema(), request.params().get("requestedSchema"));
        assertEquals(
                "date-time",
                request.params().at("/requestedSchema/properties/window/format").asText());
        assertEquals(AskedQuestion.fingerprint(WINDOW.toInputRequest()), question.fingerprint());
        assertEquals(Set.of("parley.seed"), needsInput.newSteps().keySet());
        SpecSchema.assertValid("InputRequest", Json.tree(request));
    }

    @Test
    void theFingerprintIsTheDigestOfTheCanonicalMethodAndParams() {
        Elicitation.Form question = Elicitation.form("Currency?")
                .field("currency", FormField.string("Currency"))
                .build();
        String canonical = "{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Currency?\",\"mode\":\"form\","
                + "\"requestedSchema\":{\"properties\":{\"currency\":{\"title\":\"Currency\",\"type\":\"string\"}},"
                + "\"required\":[\"currency\"],\"type\":\"object\"}}}";

        assertEquals(Json.sha256Hex(canonical), AskedQuestion.fingerprint(question.toInputRequest()));
    }

    @Test
    void anAsyncToolThatAsksEndsTheRoundWithTheQuestion() throws Exception {
        RunOutcome.NeedsInput needsInput =
                needsInput(run(scheduleReleaseAsync(), args("{\"service\":\"billing\"}"), CallHistory.EMPTY));

        assertEquals(List.of("window"), keys(needsInput));
    }

    @Test
    void anAsyncToolThatAsksInsideAContinuationOnAnotherThreadEndsTheRound() throws Exception {
        ToolDefinition<Release> tool = ToolDefinition.tool("schedule_release", Release.class)
                .asyncHandler((release, ctx) -> CompletableFuture.supplyAsync(release::service, executor)
                        .thenApply(
                                service -> ToolResult.text(service + ": " + describe(ctx.elicit("window", WINDOW)))));

        assertEquals(
                List.of("window"), keys(needsInput(run(tool, args("{\"service\":\"billing\"}"), CallHistory.EMPTY))));
        assertEquals(
                "billing: accepted 2026-08-01T10:00:00Z",
                text(run(
                        tool,
                        args("{\"service\":\"billing\"}"),
                        answers(Map.of("window", answer(WINDOW, ACCEPT_WINDOW))))));
    }

    @Test
    void aRecordedAnswerIsReplayedAndTheToolCompletes() throws Exception {
        CallHistory history = answers(Map.of("window", answer(WINDOW, ACCEPT_WINDOW)));

        assertEquals(
                "billing: accepted 2026-08-01T10:00:00Z",
                text(run(scheduleRelease(), args("{\"service\":\"billing\"}"), history)));
        assertEquals(
                "billing: accepted 2026-08-01T10:00:00Z",
                text(run(scheduleReleaseAsync(), args("{\"service\":\"billing\"}"), history)));
    }

    @Test
    void aHandWrittenHistoryWithALiteralFingerprintReplays() throws Exception {
        String fingerprint = Json.sha256Hex("{\"method\":\"elicitation/create\",\"params\":{\"message\":"
                + "\"When should billing be released?\",\"mode\":\"form\",\"requestedSchema\":{\"properties\":{\"window\":"
                + "{\"format\":\"date-time\",\"title\":\"Release window\",\"type\":\"string\"}},\"required\":[\"window\"],"
                + "\"type\":\"object\"}}}");
        CallHistory history = answers(Map.of("window", new RecordedAnswer(fingerprint, ACCEPT_WINDOW)));

        assertEquals(
                "billing: accepted 2026-08-01T10:00:00Z",
                text(run(scheduleRelease(), args("{\"service\":\"billing\"}"), history)));
    }

    @Test
    void aHistoryCapturedFromTheFirstRunReplaysOnTheNextRound() throws Exception {
        AtomicInteger charges = new AtomicInteger();
        AtomicReference<Instant> firstSeen = new AtomicReference<>();
        List<Instant> seen = Collections.synchronizedList(new ArrayList<>());
        ToolDefinition<Booking> tool = ToolDefinition.tool("book_venue", Booking.class)
                .handler((booking, ctx) -> {
                    Instant now = ctx.now();
                    seen.add(now);
                    firstSeen.compareAndSet(null, now);
                    Receipt receipt = ctx.step(
                            "hold", Receipt.class, () -> new Receipt("hold-" + charges.incrementAndGet(), 5000));
                    ElicitAnswer confirm = ctx.elicit("confirm", CONFIRM);
                    ElicitAnswer paid = ctx.elicit("deposit", DEPOSIT);
                    return ToolResult.text(booking.date() + " for " + booking.guests() + ", " + receipt.id() + ", at "
                            + now + ", " + (confirm instanceof ElicitAnswer.Accepted a && a.bool("ok")) + ", "
                            + (paid instanceof ElicitAnswer.Accepted));
                });
        JsonNode arguments = args("{\"date\":\"2026-08-01\",\"guests\":40}");

        RunOutcome.NeedsInput round1 = needsInput(run(tool, arguments, CallHistory.EMPTY));
        CallHistory history = CallHistory.EMPTY
                .withSteps(round1.newSteps())
                .withAnswers(Map.of(
                        "confirm",
                        new RecordedAnswer(
                                round1.questions().get(0).fingerprint(),
                                Json.parse("{\"action\":\"accept\",\"content\":{\"ok\":true}}"))));
        RunOutcome.NeedsInput round2 = needsInput(run(tool, arguments, history));
        assertEquals(List.of("deposit"), keys(round2));
        assertEquals(
                "url", round2.questions().get(0).request().params().path("mode").asText());
        assertTrue(round2.newSteps().isEmpty(), round2.newSteps()::toString);
        history = history.withAnswers(Map.of(
                "deposit",
                new RecordedAnswer(round2.questions().get(0).fingerprint(), Json.parse("{\"action\":\"accept\"}"))));

        String result = text(run(tool, arguments, history));

        assertEquals("2026-08-01 for 40, hold-1, at " + firstSeen.get() + ", true, true", result);
        assertEquals(1, charges.get());
        assertEquals(List.of(firstSeen.get(), firstSeen.get(), firstSeen.get()), seen);
    }

    @Test
    void severalQuestionsAskedTogetherComeBackTogether() throws Exception {
        ToolDefinition<ObjectNode> tool = invoiceTool();

        RunOutcome.NeedsInput needsInput = needsInput(run(tool, args("{\"client\":\"acme\"}"), CallHistory.EMPTY));

        assertEquals(List.of("currency", "amount", "deposit"), keys(needsInput));
    }

    @Test
    void onlyTheUnansweredQuestionsOfARoundAreAskedAgain() throws Exception {
        ToolDefinition<ObjectNode> tool = invoiceTool();
        CallHistory history = answers(Map.of(
                "currency",
                answer(CURRENCY, Json.parse("{\"action\":\"accept\",\"content\":{\"currency\":\"EUR\"}}"))));

        RunOutcome.NeedsInput needsInput = needsInput(run(tool, args("{\"client\":\"acme\"}"), history));

        assertEquals(List.of("amount", "deposit"), keys(needsInput));
    }

    @Test
    void whenEveryQuestionOfARoundIsAnsweredTheAnswersComeBackInTheOrderAsked() throws Exception {
        CallHistory history = answers(Map.of(
                "deposit", answer(DEPOSIT, CANCEL),
                "amount", answer(AMOUNT, Json.parse("{\"action\":\"accept\",\"content\":{\"amount\":12.5}}")),
                "currency",
                        answer(CURRENCY, Json.parse("{\"action\":\"accept\",\"content\":{\"currency\":\"EUR\"}}"))));

        assertEquals(
                "acme: currency=EUR amount=12.5 deposit=cancelled",
                text(run(invoiceTool(), args("{\"client\":\"acme\"}"), history)));
    }

    private static ToolDefinition<ObjectNode> invoiceTool() {
        return ToolDefinition.tool(
                        "create_invoice",
                        Json.parse(
                                "{\"type\":\"object\",\"properties\":{\"client\":{\"type\":\"string\"}},\"required\":[\"client\"]}"))
                .handler((arguments, ctx) -> {
                    Map<String, Elicitation> questions = new LinkedHashMap<>();
                    questions.put("currency", CURRENCY);
                    questions.put("amount", AMOUNT);
                    questions.put("deposit", DEPOSIT);
                    Map<String, ElicitAnswer> answers = ctx.elicitAll(questions);
                    StringBuilder text =
                            new StringBuilder(arguments.path("client").asText()).append(':');
                    answers.forEach((key, answer) -> text.append(' ')
                            .append(key)
                            .append('=')
                            .append(
                                    answer instanceof ElicitAnswer.Accepted accepted
                                            ? accepted.content().path(key).asText()
                                            : describe(answer)));
                    return ToolResult.text(text.toString());
                });
    }

    @Test
    void questionsAskedInLaterRoundsAreAskedOneRoundAtATime() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("two_steps", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    ElicitAnswer currency = ctx.elicit("currency", CURRENCY);
                    ElicitAnswer amount = ctx.elicit("amount", AMOUNT);
                    return ToolResult.text(((ElicitAnswer.Accepted) currency).string("currency") + " "
                            + ((ElicitAnswer.Accepted) amount).number("amount"));
                });

        assertEquals(List.of("currency"), keys(needsInput(run(tool, null, CallHistory.EMPTY))));
        CallHistory history = answers(Map.of(
                "currency",
                answer(CURRENCY, Json.parse("{\"action\":\"accept\",\"content\":{\"currency\":\"CHF\"}}"))));
        assertEquals(List.of("amount"), keys(needsInput(run(tool, null, history))));
        history = history.withAnswers(
                Map.of("amount", answer(AMOUNT, Json.parse("{\"action\":\"accept\",\"content\":{\"amount\":3}}"))));
        assertEquals("CHF 3.0", text(run(tool, null, history)));
    }

    // --- decline and cancel --------------------------------------------------------------------

    @Test
    void aDeclineIsDeliveredAsADeclinedAnswer() throws Exception {
        AtomicReference<ElicitAnswer> delivered = new AtomicReference<>();
        ToolDefinition<Release> tool = ToolDefinition.tool("schedule_release", Release.class)
                .handler((release, ctx) -> {
                    delivered.set(ctx.elicit("window", WINDOW));
                    return ToolResult.text("Nothing was scheduled.");
                });

        String text =
                text(run(tool, args("{\"service\":\"billing\"}"), answers(Map.of("window", answer(WINDOW, DECLINE)))));

        assertInstanceOf(ElicitAnswer.Declined.class, delivered.get());
        assertEquals("Nothing was scheduled.", text);
    }

    @Test
    void aCancelIsDeliveredAsACancelledAnswer() throws Exception {
        String text = text(run(
                scheduleRelease(),
                args("{\"service\":\"billing\"}"),
                answers(Map.of("window", answer(WINDOW, CANCEL)))));

        assertEquals("billing: cancelled", text);
    }

    @Test
    void aUrlModeAcceptIsDeliveredAsAnAcceptedAnswerWithNoContent() throws Exception {
        AtomicReference<ElicitAnswer> delivered = new AtomicReference<>();
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("pay", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    delivered.set(ctx.elicit("deposit", DEPOSIT));
                    return ToolResult.text("checking the payment");
                });

        run(tool, null, answers(Map.of("deposit", answer(DEPOSIT, Json.parse("{\"action\":\"accept\"}")))));

        ElicitAnswer.Accepted accepted = assertInstanceOf(ElicitAnswer.Accepted.class, delivered.get());
        assertTrue(accepted.content().isEmpty());
    }

    // --- journaled steps -----------------------------------------------------------------------

    private static ToolDefinition<ObjectNode> chargeTool(AtomicInteger charges) {
        return ToolDefinition.tool("charge", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    Receipt receipt = ctx.step(
                            "charge-card",
                            Receipt.class,
                            () -> new Receipt("receipt-" + charges.incrementAndGet(), 12_50));
                    ElicitAnswer confirm = ctx.elicit("confirm", CONFIRM);
                    return ToolResult.text(receipt.id() + " " + receipt.cents() + " " + describe(confirm));
                });
    }

    @Test
    void aStepRunsOnceAndIsJournaledBeforeTheRoundEnds() throws Exception {
        AtomicInteger charges = new AtomicInteger();
        RecordingJournal journal = new RecordingJournal();

        RunOutcome.NeedsInput needsInput = needsInput(
                run(chargeTool(charges), null, RunEnvironment.of("alice", FORM_ONLY), CallHistory.EMPTY, journal));

        assertEquals(1, charges.get());
        String expected = "{\"cents\":1250,\"id\":\"receipt-1\"}";
        assertEquals(List.of("charge-card"), List.copyOf(journal.recorded.keySet()));
        assertEquals(expected, Json.canonical(journal.recorded.get("charge-card")));
        assertEquals(
                List.of("charge-card", "parley.seed"),
                List.copyOf(needsInput.newSteps().keySet()));
        assertEquals(expected, Json.canonical(needsInput.newSteps().get("charge-card")));
    }

    @Test
    void aRecordedStepIsNotRunAgainAndItsRecordedValueIsReturned() throws Exception {
        AtomicInteger charges = new AtomicInteger();
        RecordingJournal journal = new RecordingJournal();
        CallHistory history = new CallHistory(
                Map.of("confirm", answer(CONFIRM, Json.parse("{\"action\":\"accept\",\"content\":{\"ok\":true}}"))),
                Map.of("charge-card", Json.parse("{\"id\":\"receipt-42\",\"cents\":999}")));

        String text = text(run(chargeTool(charges), null, RunEnvironment.of("alice", FORM_ONLY), history, journal));

        assertEquals("receipt-42 999 accepted", text);
        assertEquals(0, charges.get());
        assertTrue(journal.recorded.isEmpty());
    }

    @Test
    void aStepIsNotRepeatedWhenTheSameRoundIsRunAgain() throws Exception {
        AtomicInteger charges = new AtomicInteger();
        RunOutcome.NeedsInput first = needsInput(run(chargeTool(charges), null, CallHistory.EMPTY));

        RunOutcome.NeedsInput retry =
                needsInput(run(chargeTool(charges), null, CallHistory.EMPTY.withSteps(first.newSteps())));

        assertEquals(1, charges.get());
        assertEquals(keys(first), keys(retry));
        assertTrue(retry.newSteps().isEmpty());
    }

    @Test
    void aStepThatReturnsNullReplaysNull() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("nothing", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    String value = ctx.step("lookup", String.class, () -> {
                        runs.incrementAndGet();
                        return null;
                    });
                    ctx.elicit("confirm", CONFIRM);
                    return ToolResult.text(String.valueOf(value));
                });
        RunOutcome.NeedsInput first = needsInput(run(tool, null, CallHistory.EMPTY));
        CallHistory history =
                CallHistory.EMPTY.withSteps(first.newSteps()).withAnswers(Map.of("confirm", answer(CONFIRM, DECLINE)));

        assertEquals("null", text(run(tool, null, history)));
        assertEquals(1, runs.get());
    }

    /** No arguments are checked against the schema as any are, on every call (the answer is kept). */
    @Test
    void noArgumentsAreValidatedOnEveryCall() throws Exception {
        ToolDefinition<ObjectNode> open = ToolDefinition.tool("open", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> ToolResult.text("ran"));
        ToolDefinition<ObjectNode> needsOne = ToolDefinition.tool(
                        "needs_one",
                        Json.parse("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
                                + "\"required\":[\"a\"]}"))
                .handler((arguments, ctx) -> ToolResult.text("ran"));

        for (int call = 0; call < 2; call++) {
            assertEquals("ran", text(run(open, null, CallHistory.EMPTY)));
            ObjectNode refused = completed(run(needsOne, null, CallHistory.EMPTY));
            assertTrue(refused.path("isError").asBoolean(), refused::toString);
            assertEquals("ran", text(run(needsOne, Json.object().put("a", "x"), CallHistory.EMPTY)));
        }
    }

    @Test
    void aStepNameUsedTwiceInOneRunIsAToolError() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("twice", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    ctx.step("send-mail", String.class, () -> "sent");
                    ctx.step("send-mail", String.class, () -> "sent again");
                    return ToolResult.text("done");
                });

        ObjectNode result = completed(run(tool, null, CallHistory.EMPTY));

        assertTrue(result.path("isError").asBoolean());
    }

    @Test
    void stepNamesWithTheReservedPrefixAreRefused() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("sneaky", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> ToolResult.text(ctx.step("parley.now.0", String.class, () -> "x")));

        assertTrue(completed(run(tool, null, CallHistory.EMPTY)).path("isError").asBoolean());
    }

    /** A step the journal did not take ends the run as retryable, not as the tool's failure. */
    @Test
    void aJournalThatCannotRecordEndsTheRunAsJournalUnavailable() throws Exception {
        AtomicInteger charges = new AtomicInteger();
        StepJournal broken = (name, value) -> {
            throw new IllegalStateException("journal unavailable");
        };

        RunOutcome outcome =
                run(chargeTool(charges), null, RunEnvironment.of("alice", FORM_ONLY), CallHistory.EMPTY, broken);

        assertTrue(outcome instanceof RunOutcome.Failed, outcome::toString);
        assertEquals(
                dev.parley.runtime.ErrorCodes.JOURNAL_UNAVAILABLE,
                ((RunOutcome.Failed) outcome).error().code());
    }

    /** A handler that catches every exception around its step cannot go on as if it was journaled. */
    @Test
    void aHandlerCannotSwallowAStepTheJournalDidNotTake() throws Exception {
        StepJournal broken = (name, value) -> {
            throw new IllegalStateException("journal unavailable");
        };
        ToolDefinition<ObjectNode> swallowing = ToolDefinition.tool("swallow", Json.parse("{\"type\":\"object\"}"))
                .description("Catches everything around its step.")
                .handler((args, ctx) -> {
                    try {
                        ctx.step("charge", Integer.class, () -> 1);
                    } catch (Exception ignored) {
                        // goes on as if the step had been journaled
                    }
                    return dev.parley.runtime.ToolResult.text("went on");
                });

        RunOutcome outcome = run(swallowing, null, RunEnvironment.of("alice", FORM_ONLY), CallHistory.EMPTY, broken);

        assertEquals(
                dev.parley.runtime.ErrorCodes.JOURNAL_UNAVAILABLE,
                ((RunOutcome.Failed) outcome).error().code());
    }

    // --- idempotency keys of steps -------------------------------------------------------------

    /** Charges with the step's key and then asks; every key it was handed is kept. */
    private static ToolDefinition<ObjectNode> keyedChargeTool(List<String> keys) {
        return ToolDefinition.tool("charge", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    String charged = ctx.step("charge-card", String.class, key -> {
                        keys.add(key);
                        return "charged under " + key;
                    });
                    String mailed = ctx.step("send-receipt", String.class, key -> {
                        keys.add(key);
                        return "mailed under " + key;
                    });
                    ElicitAnswer confirm = ctx.elicit("confirm", CONFIRM);
                    return ToolResult.text(charged + "; " + mailed + "; " + describe(confirm));
                });
    }

    @Test
    void aKeyedStepGetsTheSameKeyWhenItRunsAgainAfterACrashAndAsATask() throws Exception {
        List<String> keys = Collections.synchronizedList(new ArrayList<>());
        RunOutcome.NeedsInput first = needsInput(run(keyedChargeTool(keys), null, CallHistory.EMPTY));
        assertEquals(2, keys.size());
        String chargeKey = keys.get(0);
        assertTrue(chargeKey.matches("[0-9a-f]{32}"), chargeKey);
        assertFalse(chargeKey.equals(keys.get(1)), "each step has its own key");
        assertTrue(first.newSteps().containsKey(ReplayEngine.SEED_STEP), "the seed is journaled with the first event");

        // A crash after the actions ran but before their results were journaled: only the seed is
        // in the history. The actions run again, with the same keys, in the entity and in a task.
        CallHistory seedOnly = CallHistory.EMPTY.withSteps(
                Map.of(ReplayEngine.SEED_STEP, first.newSteps().get(ReplayEngine.SEED_STEP)));
        keys.clear();
        needsInput(run(keyedChargeTool(keys), null, seedOnly));
        RunEnvironment task = new RunEnvironment(
                "alice",
                FORM_AND_URL,
                RunEnvironment.RequestSink.NONE,
                new Cancellation(),
                RunEnvironment.TaskMode.TASK);
        needsInput(run(keyedChargeTool(keys), null, task, seedOnly, StepJournal.NONE));
        assertEquals(
                List.of(
                        chargeKey,
                        first.newSteps().get("send-receipt").asText().substring("mailed under ".length()),
                        chargeKey,
                        first.newSteps().get("send-receipt").asText().substring("mailed under ".length())),
                keys);

        // Journaled results replay without running the action at all.
        keys.clear();
        needsInput(run(keyedChargeTool(keys), null, CallHistory.EMPTY.withSteps(first.newSteps())));
        assertEquals(List.of(), keys);

        // Another call has other keys.
        needsInput(run(keyedChargeTool(keys), null, CallHistory.EMPTY));
        assertFalse(keys.contains(chargeKey), () -> "another call's keys: " + keys);
    }

    @Test
    void aKeyedStepJournalsTheSeedBeforeItsActionRuns() throws Exception {
        List<String> journaledBeforeAction = new ArrayList<>();
        RecordingJournal journal = new RecordingJournal();
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("t", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    String done = ctx.step("effect", String.class, key -> {
                        journaledBeforeAction.addAll(journal.recorded.keySet());
                        return key;
                    });
                    return ToolResult.text(done);
                });
        // A later round of a call journaled without a seed: the seed must be durable before the effect.
        completed(run(tool, null, RunEnvironment.of("alice", FORM_AND_URL), CallHistory.EMPTY, journal));

        assertEquals(List.of(ReplayEngine.SEED_STEP), journaledBeforeAction);
        assertEquals(List.of(ReplayEngine.SEED_STEP, "effect"), List.copyOf(journal.recorded.keySet()));
    }

    // --- deterministic helpers -----------------------------------------------------------------

    @Test
    void nowIsRecordedOnTheFirstRunAndRandomUuidsComeFromTheCallsSeed() throws Exception {
        AtomicReference<Instant> now = new AtomicReference<>();
        AtomicReference<UUID> uuid = new AtomicReference<>();
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("ticket", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    now.set(ctx.now());
                    uuid.set(ctx.randomUuid());
                    ctx.elicit("confirm", CONFIRM);
                    return ToolResult.text("ticket");
                });

        RunOutcome.NeedsInput needsInput = needsInput(run(tool, null, CallHistory.EMPTY));

        assertEquals(
                TextNode.valueOf(now.get().toString()), needsInput.newSteps().get("parley.now.0"));
        assertTrue(needsInput.newSteps().containsKey("parley.seed"), needsInput.newSteps()::toString);
        assertEquals(4, uuid.get().version());
        assertEquals(2, uuid.get().variant());
    }

    /** A ticket tool that takes two UUIDs after its question is answered. */
    private static ToolDefinition<ObjectNode> twoUuidsAfterConfirm() {
        return ToolDefinition.tool("ticket", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    ctx.elicit("confirm", CONFIRM);
                    return ToolResult.text(ctx.randomUuid() + " " + ctx.randomUuid());
                });
    }

    @Test
    void aCallThatAsksCarriesASeedSoLaterRoundsJournalNoUuid() throws Exception {
        RunOutcome.NeedsInput first = needsInput(run(twoUuidsAfterConfirm(), null, CallHistory.EMPTY));
        CallHistory history = new CallHistory(
                Map.of("confirm", answer(CONFIRM, Json.parse("{\"action\":\"accept\",\"content\":{\"ok\":true}}"))),
                first.newSteps());
        RecordingJournal journal = new RecordingJournal();

        String once = text(run(twoUuidsAfterConfirm(), null, RunEnvironment.of("alice", FORM_ONLY), history, journal));
        String again = text(run(twoUuidsAfterConfirm(), null, RunEnvironment.of("alice", FORM_ONLY), history, journal));

        assertEquals(once, again);
        String[] uuids = once.split(" ");
        assertNotEquals(uuids[0], uuids[1]);
        assertTrue(journal.recorded.isEmpty(), journal.recorded::toString);
    }

    @Test
    void aLaterRoundOfACallWithoutASeedJournalsOneBeforeItsFirstUuid() throws Exception {
        CallHistory history = new CallHistory(
                Map.of("confirm", answer(CONFIRM, Json.parse("{\"action\":\"accept\",\"content\":{\"ok\":true}}"))),
                Map.of());
        RecordingJournal journal = new RecordingJournal();

        String text = text(run(twoUuidsAfterConfirm(), null, RunEnvironment.of("alice", FORM_ONLY), history, journal));

        assertEquals(List.of("parley.seed"), List.copyOf(journal.recorded.keySet()));
        assertEquals(
                text,
                text(run(
                        twoUuidsAfterConfirm(),
                        null,
                        RunEnvironment.of("alice", FORM_ONLY),
                        history.withSteps(journal.recorded),
                        new RecordingJournal())));
    }

    @Test
    void recordedNowValuesReplayAsRecorded() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("ticket", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> ToolResult.text(ctx.now() + " " + ctx.now()));
        CallHistory history = new CallHistory(
                Map.of(),
                Map.of(
                        "parley.now.0", TextNode.valueOf("2026-07-28T12:00:00Z"),
                        "parley.now.1", TextNode.valueOf("2026-07-28T12:00:05Z")));

        assertEquals("2026-07-28T12:00:00Z 2026-07-28T12:00:05Z", text(run(tool, null, history)));
    }

    // --- changed questions ---------------------------------------------------------------------

    @Test
    void aQuestionWhoseMessageChangedIsAskedAgain() throws Exception {
        Elicitation.Form before = Elicitation.form("When should billing go out?")
                .field("window", FormField.string("Release window", "date-time"))
                .build();
        CallHistory history = answers(Map.of("window", answer(before, ACCEPT_WINDOW)));

        RunOutcome.NeedsInput needsInput =
                needsInput(run(scheduleRelease(), args("{\"service\":\"billing\"}"), history));

        assertEquals(List.of("window"), keys(needsInput));
        assertEquals(
                AskedQuestion.fingerprint(WINDOW.toInputRequest()),
                needsInput.questions().get(0).fingerprint());
        assertNotEquals(
                history.answers().get("window").fingerprint(),
                needsInput.questions().get(0).fingerprint());
    }

    @Test
    void aChangedQuestionIsLoggedAsAWarning() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(ReplayEngine.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            Elicitation.Form before = Elicitation.form("Old wording")
                    .field("window", FormField.string("Window"))
                    .build();

            run(
                    scheduleRelease(),
                    args("{\"service\":\"billing\"}"),
                    answers(Map.of("window", answer(before, ACCEPT_WINDOW))));

            assertTrue(
                    appender.list.stream()
                            .anyMatch(event -> event.getLevel() == Level.WARN
                                    && event.getFormattedMessage().contains("'window' changed")),
                    appender.list::toString);
        } finally {
            logger.detachAppender(appender);
        }
    }

    @Test
    void aQuestionWhoseSchemaChangedIsAskedAgain() throws Exception {
        Elicitation.Form before = Elicitation.form("When should billing be released?")
                .field("window", FormField.string("Release window", "date"))
                .build();
        CallHistory history = answers(Map.of(
                "window",
                answer(before, Json.parse("{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01\"}}"))));

        assertEquals(
                List.of("window"),
                keys(needsInput(run(scheduleRelease(), args("{\"service\":\"billing\"}"), history))));
    }

    @Test
    void oneKeyUsedForTwoDifferentQuestionsIsAToolErrorNotAnEndlessExchange() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("reuse", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    ctx.elicit("q", CURRENCY);
                    ctx.elicit("q", AMOUNT);
                    return ToolResult.text("done");
                });
        CallHistory history = answers(Map.of(
                "q", answer(CURRENCY, Json.parse("{\"action\":\"accept\",\"content\":{\"currency\":\"EUR\"}}"))));

        ObjectNode result = completed(new ReplayEngine(executor, new FailureReports(true))
                .run(tool, null, RunEnvironment.of("alice", FORM_AND_URL), history, StepJournal.NONE)
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS));

        assertTrue(result.path("isError").asBoolean());
        // The author's mistake is named (here with the development switch on; otherwise in the log).
        assertTrue(result.path("content").path(0).path("text").asText().contains("'q'"), result::toString);
    }

    @Test
    void theSameQuestionAskedTwiceUnderOneKeyGetsTheSameAnswer() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("again", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) ->
                        ToolResult.text(((ElicitAnswer.Accepted) ctx.elicit("c", CURRENCY)).string("currency")
                                + ((ElicitAnswer.Accepted) ctx.elicit("c", CURRENCY)).string("currency")));
        CallHistory history = answers(Map.of(
                "c", answer(CURRENCY, Json.parse("{\"action\":\"accept\",\"content\":{\"currency\":\"USD\"}}"))));

        assertEquals("USDUSD", text(run(tool, null, history)));
    }

    @Test
    void anAnswerRecordedUnderAnotherKeyDoesNotAnswerTheQuestion() throws Exception {
        CallHistory history = answers(Map.of("when", answer(WINDOW, ACCEPT_WINDOW)));

        assertEquals(
                List.of("window"),
                keys(needsInput(run(scheduleRelease(), args("{\"service\":\"billing\"}"), history))));
    }

    // --- capabilities --------------------------------------------------------------------------

    @Test
    void aQuestionForAClientWithoutElicitationFailsWithMissingCapability() throws Exception {
        RunOutcome outcome = run(
                scheduleRelease(),
                args("{\"service\":\"billing\"}"),
                RunEnvironment.of("alice", ClientCapabilities.NONE),
                CallHistory.EMPTY,
                StepJournal.NONE);

        RunOutcome.Failed failed = failed(outcome);
        assertEquals(-32021, failed.error().code());
        assertEquals(
                Json.parse("{\"elicitation\":{\"form\":{}}}"),
                failed.error().data().get("requiredCapabilities"));
        SpecSchema.assertValidErrorResponse(
                "MissingRequiredClientCapabilityError", Json.tree(Response.error(IntNode.valueOf(4), failed.error())));
    }

    @Test
    void aUrlQuestionForAFormOnlyClientFailsWithMissingCapability() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("pay", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> ToolResult.text(describe(ctx.elicit("deposit", DEPOSIT))));

        RunOutcome.Failed failed =
                failed(run(tool, null, RunEnvironment.of("alice", FORM_ONLY), CallHistory.EMPTY, StepJournal.NONE));

        assertEquals(
                ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, failed.error().code());
        assertEquals(
                Json.parse("{\"elicitation\":{\"url\":{}}}"),
                failed.error().data().get("requiredCapabilities"));
    }

    @Test
    void aFormQuestionForAUrlOnlyClientFailsWithMissingCapability() throws Exception {
        ClientCapabilities urlOnly = ClientCapabilities.of(Json.parse("{\"elicitation\":{\"url\":{}}}"));

        RunOutcome.Failed failed = failed(run(
                scheduleRelease(),
                args("{\"service\":\"billing\"}"),
                RunEnvironment.of("alice", urlOnly),
                CallHistory.EMPTY,
                StepJournal.NONE));

        assertEquals(-32021, failed.error().code());
    }

    @Test
    void aRecordedAnswerReplaysEvenWhenThisRoundDeclaresNoCapability() throws Exception {
        RunOutcome outcome = run(
                scheduleRelease(),
                args("{\"service\":\"billing\"}"),
                RunEnvironment.of("alice", ClientCapabilities.NONE),
                answers(Map.of("window", answer(WINDOW, ACCEPT_WINDOW))),
                StepJournal.NONE);

        assertEquals("billing: accepted 2026-08-01T10:00:00Z", text(outcome));
    }

    @Test
    void aHandlerCanCheckTheCapabilitiesAndGoOnWithoutAsking() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("polite", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> ctx.clientCapabilities().elicitationForm()
                        ? ToolResult.text(describe(ctx.elicit("window", WINDOW)))
                        : ToolResult.text("used the default window"));

        assertEquals(
                "used the default window",
                text(run(
                        tool,
                        null,
                        RunEnvironment.of("alice", ClientCapabilities.NONE),
                        CallHistory.EMPTY,
                        StepJournal.NONE)));
    }

    // --- failures ------------------------------------------------------------------------------

    @Test
    void aHandlerThrowingAnMcpExceptionEndsWithThatError() throws Exception {
        ToolDefinition<ObjectNode> blocking = ToolDefinition.tool("venue", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    throw new McpException(
                            ErrorCodes.INVALID_PARAMS,
                            "Unknown venue",
                            Json.object().put("venue", "x"));
                });
        ToolDefinition<ObjectNode> async = ToolDefinition.tool("venue", Json.parse("{\"type\":\"object\"}"))
                .asyncHandler((arguments, ctx) ->
                        CompletableFuture.failedFuture(McpException.invalidParams("Unknown venue")));

        RunOutcome.Failed fromBlocking = failed(run(blocking, null, CallHistory.EMPTY));
        RunOutcome.Failed fromAsync = failed(run(async, null, CallHistory.EMPTY));

        assertEquals(-32602, fromBlocking.error().code());
        assertEquals("Unknown venue", fromBlocking.error().message());
        assertEquals(Json.object().put("venue", "x"), fromBlocking.error().data());
        assertEquals(-32602, fromAsync.error().code());
    }

    @Test
    void aHandlerThrowingARuntimeExceptionCompletesAsAToolError() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("flaky", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    throw new IllegalStateException("the venue API is down");
                });

        Logger logger = (Logger) LoggerFactory.getLogger(FailureReports.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        ObjectNode result;
        try {
            result = completed(run(tool, null, CallHistory.EMPTY));
        } finally {
            logger.detachAppender(logged);
        }

        assertTrue(result.path("isError").asBoolean());
        String text = result.path("content").path(0).path("text").asText();
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile(
                        "Tool flaky failed \\(reference ([0-9a-f]{12})\\)")
                .matcher(text);
        assertTrue(matcher.matches(), text);
        assertFalse(text.contains("venue API") || text.contains("IllegalStateException"), text);
        SpecSchema.assertValid("CallToolResult", result);
        // The detail is logged once, under the reference the client got.
        assertEquals(1, logged.list.size(), () -> logged.list.toString());
        ILoggingEvent line = logged.list.get(0);
        assertTrue(line.getFormattedMessage().contains(matcher.group(1)), line.getFormattedMessage());
        assertEquals("the venue API is down", line.getThrowableProxy().getMessage());
    }

    @Test
    void theDevelopmentSwitchShowsTheFailureDetailAfterTheReference() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("flaky", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    throw new IllegalStateException("the venue API is down");
                });
        ReplayEngine development = new ReplayEngine(executor, new FailureReports(true));

        ObjectNode result = completed(development
                .run(tool, null, RunEnvironment.of("alice", FORM_AND_URL), CallHistory.EMPTY, StepJournal.NONE)
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS));

        assertTrue(
                result.path("content")
                        .path(0)
                        .path("text")
                        .asText()
                        .matches(
                                "Tool flaky failed \\(reference [0-9a-f]{12}\\): java.lang.IllegalStateException: the venue API is down"),
                result::toString);
    }

    @Test
    void argumentsThatDoNotConvertAreExplainedWithoutJavaClassNames() throws Exception {
        ToolDefinition<Booking> tool =
                ToolDefinition.tool("book", Booking.class).handler((booking, ctx) -> ToolResult.text("booked"));

        // An integer beyond int passes the generated schema's "integer" but not the record's int.
        String text = completed(run(tool, args("{\"date\":\"2026-01-01\",\"guests\":99999999999}"), CallHistory.EMPTY))
                .path("content")
                .path(0)
                .path("text")
                .asText();

        assertEquals(
                "Invalid arguments for tool book: the value at /guests does not fit the tool's argument type", text);
    }

    @Test
    void aHandlerThrowingACheckedExceptionCompletesAsAToolError() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("io", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    throw new java.io.IOException("disk full");
                });

        assertTrue(completed(run(tool, null, CallHistory.EMPTY)).path("isError").asBoolean());
    }

    @Test
    void anAsyncHandlerThatThrowsOrFailsCompletesAsAToolError() throws Exception {
        ToolDefinition<ObjectNode> throwing = ToolDefinition.tool("a", Json.parse("{\"type\":\"object\"}"))
                .asyncHandler((arguments, ctx) -> {
                    throw new IllegalArgumentException("boom");
                });
        ToolDefinition<ObjectNode> failing = ToolDefinition.tool("b", Json.parse("{\"type\":\"object\"}"))
                .asyncHandler((arguments, ctx) -> CompletableFuture.failedFuture(new IllegalArgumentException("boom")));
        ToolDefinition<ObjectNode> returningNull =
                ToolDefinition.tool("c", Json.parse("{\"type\":\"object\"}")).asyncHandler((arguments, ctx) -> null);

        assertTrue(completed(run(throwing, null, CallHistory.EMPTY))
                .path("isError")
                .asBoolean());
        assertTrue(
                completed(run(failing, null, CallHistory.EMPTY)).path("isError").asBoolean());
        assertTrue(completed(run(returningNull, null, CallHistory.EMPTY))
                .path("isError")
                .asBoolean());
    }

    @Test
    void aHandlerReturningNoResultCompletesAsAToolError() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("silent", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> null);

        assertTrue(completed(run(tool, null, CallHistory.EMPTY)).path("isError").asBoolean());
    }

    @Test
    void aHandlerCatchingExceptionCannotSwallowTheRoundEnding() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("greedy", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    try {
                        ctx.elicit("window", WINDOW);
                    } catch (Exception e) {
                        return ToolResult.text("swallowed");
                    }
                    return ToolResult.text("answered");
                });

        assertEquals(List.of("window"), keys(needsInput(run(tool, null, CallHistory.EMPTY))));
    }

    @Test
    void aHandlerCatchingThrowableCannotSwallowTheRoundEndingEither() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("greedier", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    try {
                        ctx.elicit("window", WINDOW);
                    } catch (Throwable t) {
                        return ToolResult.text("swallowed");
                    }
                    return ToolResult.text("answered");
                });

        assertEquals(List.of("window"), keys(needsInput(run(tool, null, CallHistory.EMPTY))));
    }

    @Test
    void aHandlerThatSwallowedItsRoundEndingCannotRunStepsOrAskMore() throws Exception {
        AtomicInteger charges = new AtomicInteger();
        AtomicReference<Throwable> refused = new AtomicReference<>();
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("reckless", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    try {
                        ctx.elicit("confirm", CONFIRM);
                    } catch (Throwable ignored) {
                        // carries on as if confirmed
                    }
                    try {
                        ctx.step("charge-card", String.class, () -> "receipt-" + charges.incrementAndGet());
                    } catch (Throwable t) {
                        refused.set(t);
                    }
                    ctx.elicit("window", WINDOW);
                    return ToolResult.text("charged");
                });

        RunOutcome.NeedsInput needsInput = needsInput(run(tool, null, CallHistory.EMPTY));

        assertEquals(List.of("confirm"), keys(needsInput));
        assertEquals(0, charges.get());
        assertTrue(refused.get() != null);
        assertEquals(Set.of("parley.seed"), needsInput.newSteps().keySet());
    }

    @Test
    void anAsyncHandlerRecoveringFromEveryFailureCannotSwallowTheRoundEnding() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("recovering", Json.parse("{\"type\":\"object\"}"))
                .asyncHandler((arguments, ctx) -> CompletableFuture.supplyAsync(() -> "x", executor)
                        .thenApply(x -> ToolResult.text(describe(ctx.elicit("window", WINDOW))))
                        .exceptionally(failure -> ToolResult.text("recovered")));

        assertEquals(List.of("window"), keys(needsInput(run(tool, null, CallHistory.EMPTY))));
    }

    @Test
    void aHandlerCatchingTheMissingCapabilityCannotSwallowIt() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("greedy", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    try {
                        ctx.elicit("deposit", DEPOSIT);
                    } catch (Throwable t) {
                        return ToolResult.text("swallowed");
                    }
                    return ToolResult.text("answered");
                });

        assertEquals(
                -32021,
                failed(run(tool, null, RunEnvironment.of("alice", FORM_ONLY), CallHistory.EMPTY, StepJournal.NONE))
                        .error()
                        .code());
    }

    @Test
    void aFullToolExecutorEndsTheRunWithAnInternalErrorInsteadOfThrowing() throws Exception {
        ReplayEngine saturated = new ReplayEngine(task -> {
            throw new RejectedExecutionException("tool executor is full");
        });

        CompletionStage<RunOutcome> stage = saturated.run(
                scheduleRelease(),
                args("{\"service\":\"billing\"}"),
                RunEnvironment.of("alice", FORM_AND_URL),
                CallHistory.EMPTY,
                StepJournal.NONE);

        assertEquals(
                ErrorCodes.INTERNAL_ERROR,
                failed(stage.toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .error()
                        .code());
    }

    // --- arguments -----------------------------------------------------------------------------

    @Test
    void argumentsOfTheWrongTypeForARecordToolCompleteAsAToolErrorWithoutRunningTheHandler() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        ToolDefinition<Booking> tool = ToolDefinition.tool("book_venue", Booking.class)
                .handler((booking, ctx) -> {
                    ran.set(true);
                    return ToolResult.text("booked");
                });

        for (String arguments : List.of(
                "{\"date\":\"2026-08-01\",\"guests\":\"many\"}",
                "{\"date\":\"2026-08-01\"}",
                "{\"guests\":4}",
                "{\"date\":\"2026-08-01\",\"guests\":null}",
                "[1,2]",
                "\"text\"")) {
            ObjectNode result = completed(run(tool, args(arguments), CallHistory.EMPTY));
            assertTrue(result.path("isError").asBoolean(), arguments);
            assertTrue(result.path("content").path(0).path("text").asText().contains("book_venue"), arguments);
        }
        assertFalse(ran.get());
    }

    @Test
    void argumentsThatBreakAGivenSchemaCompleteAsAToolError() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool(
                        "create_invoice",
                        Json.parse(
                                "{\"type\":\"object\",\"properties\":{\"client\":{\"type\":\"string\"}},\"required\":[\"client\"]}"))
                .handler((arguments, ctx) -> {
                    ran.set(true);
                    return ToolResult.text("invoiced");
                });

        assertTrue(completed(run(tool, args("{\"client\":7}"), CallHistory.EMPTY))
                .path("isError")
                .asBoolean());
        assertTrue(completed(run(tool, args("{}"), CallHistory.EMPTY))
                .path("isError")
                .asBoolean());
        assertTrue(completed(run(tool, args("[]"), CallHistory.EMPTY))
                .path("isError")
                .asBoolean());
        assertFalse(ran.get());
    }

    @Test
    void aRecordToolWithOptionalAndDateComponentsReceivesTypedArguments() throws Exception {
        record Window(java.time.LocalDate day, Optional<String> note, List<String> teams) {}
        ToolDefinition<Window> tool = ToolDefinition.tool("plan", Window.class)
                .handler((window, ctx) -> ToolResult.text(
                        window.day().getDayOfWeek() + " " + window.note().orElse("-") + " " + window.teams()));

        assertEquals(
                "SATURDAY - [ops]",
                text(run(tool, args("{\"day\":\"2026-08-01\",\"teams\":[\"ops\"]}"), CallHistory.EMPTY)));
        assertEquals(
                "SATURDAY late [ops, qa]",
                text(run(
                        tool,
                        args("{\"day\":\"2026-08-01\",\"note\":\"late\",\"teams\":[\"ops\",\"qa\"]}"),
                        CallHistory.EMPTY)));
    }

    @Test
    void missingArgumentsAreAnEmptyObject() throws Exception {
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("noargs", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> ToolResult.text("args=" + arguments));

        assertEquals("args={}", text(run(tool, null, CallHistory.EMPTY)));
    }

    // --- environment ---------------------------------------------------------------------------

    @Test
    void progressAndCancellationReachTheEnvironment() throws Exception {
        List<String> reported = Collections.synchronizedList(new ArrayList<>());
        Cancellation cancelled = new Cancellation();
        cancelled.cancel();
        RunEnvironment environment = new RunEnvironment(
                "alice",
                FORM_ONLY,
                new RunEnvironment.RequestSink() {
                    @Override
                    public void progress(double done, Double total, String message) {
                        reported.add(done + "/" + total + " " + message);
                    }
                },
                cancelled);
        ToolDefinition<ObjectNode> tool = ToolDefinition.tool("long", Json.parse("{\"type\":\"object\"}"))
                .handler((arguments, ctx) -> {
                    ctx.progress(1, 2.0, "half way");
                    return ToolResult.text("cancelled=" + ctx.isCancelled());
                });

        assertEquals("cancelled=true", text(run(tool, null, environment, CallHistory.EMPTY, StepJournal.NONE)));
        assertEquals(List.of("1.0/2.0 half way"), reported);
    }
}
