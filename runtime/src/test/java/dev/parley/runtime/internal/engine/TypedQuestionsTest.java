package dev.parley.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.Description;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.Title;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Typed questions: a form derived from a record, its answer read as that record, a refusal
 * ended in one call, and the fingerprint contract (untyped unchanged, typed = its form's).
 */
class TypedQuestionsTest {
    private static final ClientCapabilities FORM_AND_URL =
            ClientCapabilities.of(Json.parse("{\"elicitation\":{\"form\":{},\"url\":{}}}"));

    record Window(@Title("Release window start") Instant window) {}

    enum Currency {
        EUR,
        CHF
    }

    record Order(
            @Title("Currency") @Description("ISO code") Currency currency,
            int quantity,
            Optional<String> note,
            LocalDate day) {}

    record Nested(Window window) {}

    record Release(String service) {}

    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final ReplayEngine engine = new ReplayEngine(executor);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static final ToolDefinition<Release> TOOL = ToolDefinition.tool("schedule_release", Release.class)
            .handler((args, ctx) -> {
                Window window = ctx.elicit(
                                "window",
                                Elicitation.form("When should " + args.service() + " be released?", Window.class))
                        .orElseReturn(
                                refusal -> ToolResult.text("Nothing scheduled: the request was " + refusal + "."));
                return ToolResult.text("Scheduled for " + window.window());
            });

    private RunOutcome run(CallHistory history) throws Exception {
        return engine.run(
                        TOOL,
                        Json.parse("{\"service\":\"billing\"}"),
                        RunEnvironment.of("alice", FORM_AND_URL),
                        history,
                        StepJournal.NONE)
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
    }

    /** The hand-built form the README showed before typed questions existed. */
    private static Elicitation.Form untypedWindow() {
        return Elicitation.form("When should billing be released?")
                .field("window", FormField.string("Release window start", "date-time"))
                .build();
    }

    @Test
    void theUntypedFingerprintIsUnchanged() {
        // Pinned: recorded answers in existing journals carry this value (computed independently
        // as SHA-256 of the canonical JSON). If it changes, every waiting call asks again.
        assertEquals(
                "6c38a8a87ae755020a14dd6bcd9b6d51c4bcf115ceea26e31ad37a6982c36cc2",
                AskedQuestion.fingerprint(untypedWindow().toInputRequest()));
    }

    @Test
    void aTypedFormIsOnTheWireTheFormItsRecordDescribes() {
        Elicitation.TypedForm<Window> typed = Elicitation.form("When should billing be released?", Window.class);
        assertEquals(
                Json.canonical(untypedWindow().requestedSchema()),
                Json.canonical(typed.form().requestedSchema()));
        assertEquals(
                AskedQuestion.fingerprint(untypedWindow().toInputRequest()),
                AskedQuestion.fingerprint(typed.form().toInputRequest()),
                "a typed form's fingerprint is its form's: migrating a tool to the typed API keeps waiting answers");
    }

    @Test
    void theTypedFingerprintChangesWithTheRecord() {
        record Renamed(@Title("Release window start") Instant start) {}
        record Retitled(@Title("Window") Instant window) {}
        String original = fingerprint(Elicitation.form("When?", Window.class));
        assertNotEquals(original, fingerprint(Elicitation.form("When?", Renamed.class)));
        assertNotEquals(original, fingerprint(Elicitation.form("When?", Retitled.class)));
        assertNotEquals(original, fingerprint(Elicitation.form("When exactly?", Window.class)));
        assertNotEquals(
                original,
                fingerprint(Elicitation.form("When?", Window.class).defaultValue("window", "2026-12-01T10:00:00Z")));
        assertEquals(
                original, fingerprint(Elicitation.form("When?", Window.class)), "the same record, the same question");
    }

    private static String fingerprint(Elicitation.TypedForm<?> form) {
        return AskedQuestion.fingerprint(form.form().toInputRequest());
    }

    @Test
    void formSchemasCoverEnumsOptionalsAndDates() {
        ObjectNode schema = Elicitation.form("Order?", Order.class).form().requestedSchema();
        assertEquals(
                Json.parse("{\"type\":\"object\",\"properties\":{"
                        + "\"currency\":{\"type\":\"string\",\"enum\":[\"EUR\",\"CHF\"],\"title\":\"Currency\",\"description\":\"ISO code\"},"
                        + "\"quantity\":{\"type\":\"integer\"},\"note\":{\"type\":\"string\"},"
                        + "\"day\":{\"type\":\"string\",\"format\":\"date\"}},"
                        + "\"required\":[\"currency\",\"quantity\",\"day\"]}"),
                schema);
    }

    @Test
    void aRecordThatIsNotFlatIsRefusedWithAClearMessage() {
        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> Elicitation.form("When?", Nested.class));
        assertTrue(refused.getMessage().contains("Nested.window"), refused.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> Elicitation.form("When?", Window.class).defaultValue("start", "x"));
    }

    @Test
    void anAcceptedAnswerIsReadAsTheRecord() throws Exception {
        AskedQuestion asked =
                ((RunOutcome.NeedsInput) run(CallHistory.EMPTY)).questions().get(0);
        JsonNode accept = Json.parse("{\"action\":\"accept\",\"content\":{\"window\":\"2026-12-01T10:00:00Z\"}}");
        RunOutcome done =
                run(new CallHistory(Map.of("window", new RecordedAnswer(asked.fingerprint(), accept)), Map.of()));
        assertEquals("Scheduled for 2026-12-01T10:00:00Z", text(done));
    }

    @Test
    void aDeclineOrCancelEndsTheToolWithTheGivenResult() throws Exception {
        AskedQuestion asked =
                ((RunOutcome.NeedsInput) run(CallHistory.EMPTY)).questions().get(0);
        for (String action : List.of("decline", "cancel")) {
            JsonNode refusal = Json.parse("{\"action\":\"" + action + "\"}");
            RunOutcome done =
                    run(new CallHistory(Map.of("window", new RecordedAnswer(asked.fingerprint(), refusal)), Map.of()));
            assertEquals(
                    "Nothing scheduled: the request was " + action + (action.equals("decline") ? "d." : "led."),
                    text(done));
        }
    }

    @Test
    void orElseReturnOutsideAToolIsAnErrorNotAResult() throws Exception {
        var prompt = dev.parley.runtime.PromptDefinition.prompt("p").handler((args, ctx) -> {
            ctx.elicit("ok", Elicitation.url("Open it", "https://example.org/x"))
                    .orElseReturn(r -> ToolResult.text("no"));
            return dev.parley.runtime.PromptDefinition.Result.of();
        });
        AskedQuestion asked = ((RunOutcome.NeedsInput) engine.run(
                                prompt,
                                Json.object(),
                                RunEnvironment.of("alice", FORM_AND_URL),
                                CallHistory.EMPTY,
                                StepJournal.NONE)
                        .toCompletableFuture()
                        .get(30, TimeUnit.SECONDS))
                .questions()
                .get(0);
        RunOutcome outcome = engine.run(
                        prompt,
                        Json.object(),
                        RunEnvironment.of("alice", FORM_AND_URL),
                        new CallHistory(
                                Map.of(
                                        "ok",
                                        new RecordedAnswer(
                                                asked.fingerprint(), Json.parse("{\"action\":\"decline\"}"))),
                                Map.of()),
                        StepJournal.NONE)
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        assertInstanceOf(RunOutcome.Failed.class, outcome);
    }

    private static String text(RunOutcome outcome) {
        return assertInstanceOf(RunOutcome.Completed.class, outcome)
                .result()
                .path("content")
                .get(0)
                .path("text")
                .asText();
    }
}
