package dev.parley.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Title;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The test kit drives a tool through its rounds with the real replay engine. */
class ToolTestKitTest {
    record Release(String service) {}

    record Window(@Title("Release window start") Instant window) {}

    record Confirm(boolean ok) {}

    /** How often the "outside world" saw a release: the effect the steps guard. */
    private final AtomicInteger releases = new AtomicInteger();

    private ToolDefinition<Release> scheduleRelease() {
        return ToolDefinition.tool("schedule_release", Release.class).handler((args, ctx) -> {
            Window answer = ctx.elicit(
                            "window", Elicitation.form("When should " + args.service() + " be released?", Window.class))
                    .orElseReturn(no -> ToolResult.text("No release: " + no + "."));
            String ticket = ctx.step("schedule", String.class, key -> "REL-" + releases.incrementAndGet());
            boolean ok = ctx.elicit("confirm", Elicitation.form("Announce " + ticket + "?", Confirm.class))
                    .orElseReturn(no -> ToolResult.text(ticket + " scheduled, not announced."))
                    .ok();
            return ToolResult.text(ticket + " for " + answer.window() + (ok ? ", announced." : "."));
        });
    }

    private final ToolTestKit kit = ToolTestKit.of(scheduleRelease());

    @AfterEach
    void close() {
        kit.close();
    }

    @Test
    void drivesACallThroughItsRounds() {
        Round first = kit.call(new Release("billing"));
        assertEquals(
                "When should billing be released?",
                first.question("window").path("message").asText());
        assertEquals(
                "date-time",
                first.question("window")
                        .path("requestedSchema")
                        .path("properties")
                        .path("window")
                        .path("format")
                        .asText());

        Round second = kit.answer("window", Map.of("window", "2026-12-01T10:00:00Z"));
        assertEquals(
                "Announce REL-1?", second.question("confirm").path("message").asText());

        Round done = kit.answer("confirm", new Confirm(true));
        assertEquals("REL-1 for 2026-12-01T10:00:00Z, announced.", done.text());
        kit.assertStepRanOnce("schedule");
        assertEquals(3, kit.rounds());
    }

    @Test
    void aRerunRepeatsNoStep() {
        kit.call(Map.of("service", "billing"));
        kit.answer("window", Map.of("window", "2026-12-01T10:00:00Z"));
        kit.answer("confirm", Map.of("ok", false));
        Round again = kit.rerun();
        assertEquals("REL-1 for 2026-12-01T10:00:00Z.", again.text());
        assertEquals(1, kit.stepRuns("schedule"));
        assertEquals(1, releases.get(), "the effect happened once however often the handler ran");
    }

    @Test
    void aDeclineEndsTheCallAndRunsNoStep() {
        kit.call(Map.of("service", "billing"));
        Round done = kit.decline("window");
        assertEquals("No release: declined.", done.text());
        assertEquals(0, kit.stepRuns("schedule"));
        AssertionError notOnce = assertThrows(AssertionError.class, () -> kit.assertStepRanOnce("schedule"));
        assertTrue(notOnce.getMessage().contains("ran 0 times"), notOnce.getMessage());
    }

    @Test
    void aCancelLaterEndsWithTheStepDoneOnce() {
        kit.call(Map.of("service", "billing"));
        kit.answer("window", Map.of("window", "2026-12-01T10:00:00Z"));
        assertEquals("REL-1 scheduled, not announced.", kit.cancel("confirm").text());
        kit.assertStepRanOnce("schedule");
    }

    @Test
    void anAnswerThatDoesNotFitItsQuestionIsRefusedAndRecordsNothing() {
        kit.call(Map.of("service", "billing"));
        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> kit.answer("window", Map.of("window", 42)));
        assertTrue(refused.getMessage().contains("'window'"), refused.getMessage());
        // The call still waits for the same question, and a fitting answer goes on.
        assertTrue(kit.lastRound().asks());
        assertEquals(
                "Announce REL-1?",
                kit.answer("window", Map.of("window", "2026-12-01T10:00:00Z"))
                        .question("confirm")
                        .path("message")
                        .asText());
    }

    @Test
    void answeringAQuestionThatIsNotOpenIsAClearError() {
        kit.call(Map.of("service", "billing"));
        IllegalStateException wrong = assertThrows(IllegalStateException.class, () -> kit.decline("confirm"));
        assertTrue(wrong.getMessage().contains("the call asks [window]"), wrong.getMessage());
        assertThrows(
                IllegalStateException.class,
                () -> ToolTestKit.of(scheduleRelease()).rerun());
        assertThrows(IllegalArgumentException.class, () -> kit.call("[1, 2]"));
    }

    @Test
    void argumentsThatDoNotFitTheSchemaAreAToolError() {
        Round done = kit.call(Map.of("service", 7));
        assertTrue(done.isError(), done.toString());
        assertTrue(done.text().startsWith("Invalid arguments for tool schedule_release"), done.text());
        AssertionError notAsking = assertThrows(AssertionError.class, () -> done.question("window"));
        assertTrue(notAsking.getMessage().contains("COMPLETED"), notAsking.getMessage());
    }
}
