package dev.parley.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Json;
import dev.parley.runtime.Title;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.CallRecording;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The replay check: a call recorded with one version of a tool, checked against the same code
 * (replays) and against deliberately changed versions (each change reported, no action run).
 */
class ReplayCheckTest {
    record Order(String item) {}

    record Quantity(@Title("How many") int count) {}

    record Address(@Title("Street") String street) {}

    /** Effects of step actions, over every version: the check itself must add none. */
    private final AtomicInteger effects = new AtomicInteger();

    /** Version 1: reserve, ask the quantity, charge, ask the address, ship. */
    private ToolDefinition<Order> version1() {
        return ToolDefinition.tool("order", Order.class).handler((args, ctx) -> {
            ctx.step("reserve", String.class, () -> "R-" + effects.incrementAndGet());
            int count = ctx.elicit("quantity", Elicitation.form("How many " + args.item() + "?", Quantity.class))
                    .orElseReturn(no -> ToolResult.text("no order"))
                    .count();
            ctx.step("charge", Integer.class, () -> count * 10 + effects.incrementAndGet() * 0);
            String street = ctx.elicit("address", Elicitation.form("Ship where?", Address.class))
                    .orElseReturn(no -> ToolResult.text("not shipped"))
                    .street();
            ctx.step("ship", String.class, () -> street + "/" + effects.incrementAndGet());
            return ToolResult.text(count + " " + args.item() + " to " + street);
        });
    }

    /** A call of version 1 that waits for its address: reserved, quantity answered, charged. */
    private CallRecording waitingForAddress() {
        try (ToolTestKit kit = ToolTestKit.of(version1())) {
            kit.call(new Order("lamps"));
            kit.answer("quantity", new Quantity(3));
            return kit.recording();
        }
    }

    private CallRecording completed() {
        try (ToolTestKit kit = ToolTestKit.of(version1())) {
            kit.call(new Order("lamps"));
            kit.answer("quantity", new Quantity(3));
            kit.answer("address", new Address("Main St 1"));
            return kit.recording();
        }
    }

    @Test
    void theSameCodeReplaysEveryRecording() {
        for (CallRecording recording : List.of(waitingForAddress(), completed())) {
            int before = effects.get();
            ReplayReport report = ReplayCheck.check(version1(), recording);
            assertTrue(report.deterministic(), report.toString());
            report.assertDeterministic();
            assertEquals(before, effects.get(), "the check ran no step action");
        }
    }

    @Test
    void aRecordingSurvivesItsJsonFile() {
        CallRecording recording = waitingForAddress();
        CallRecording read = ReplayCheck.read(Json.write(recording));
        assertEquals(Json.canonical(Json.tree(recording)), Json.canonical(Json.tree(read)));
        assertTrue(ReplayCheck.check(version1(), read).deterministic());
    }

    @Test
    void aChangedQuestionIsReportedWithBothFingerprints() {
        ToolDefinition<Order> changed = ToolDefinition.tool("order", Order.class)
                .handler((args, ctx) -> {
                    ctx.step("reserve", String.class, () -> "R-" + effects.incrementAndGet());
                    // Changed: the message of an answered question.
                    int count = ctx.elicit(
                                    "quantity",
                                    Elicitation.form("How many " + args.item() + " do you need?", Quantity.class))
                            .orElseReturn(no -> ToolResult.text("no order"))
                            .count();
                    return ToolResult.text(count + " " + args.item());
                });
        ReplayReport report = ReplayCheck.check(changed, waitingForAddress());
        assertFalse(report.deterministic());
        assertEquals(
                ReplayReport.Kind.QUESTION_CHANGED, report.problems().get(0).kind(), report.toString());
        assertTrue(report.problems().get(0).detail().contains("'quantity'"), report.toString());
        assertTrue(report.problems().get(0).detail().contains("do you need?"), report.toString());
        AssertionError failed = assertThrows(AssertionError.class, report::assertDeterministic);
        assertTrue(failed.getMessage().contains("does not replay"), failed.getMessage());
    }

    @Test
    void aChangedOpenQuestionIsReported() {
        ToolDefinition<Order> changed = ToolDefinition.tool("order", Order.class)
                .handler((args, ctx) -> {
                    ctx.step("reserve", String.class, () -> "R-" + effects.incrementAndGet());
                    int count = ctx.elicit(
                                    "quantity", Elicitation.form("How many " + args.item() + "?", Quantity.class))
                            .orElseReturn(no -> ToolResult.text("no order"))
                            .count();
                    ctx.step("charge", Integer.class, () -> count * 10);
                    // Changed: the waiting question's record (a field renamed), so its schema and fingerprint.
                    record Destination(@Title("Street") String line1) {}
                    ctx.elicit("address", Elicitation.form("Ship where?", Destination.class))
                            .orElseReturn(no -> ToolResult.text("x"));
                    return ToolResult.text("shipped");
                });
        ReplayReport report = ReplayCheck.check(changed, waitingForAddress());
        assertEquals(List.of(ReplayReport.Kind.QUESTION_CHANGED), kinds(report), report.toString());
        assertTrue(report.problems().get(0).detail().contains("open question 'address'"), report.toString());
    }

    @Test
    void stepsInAnotherOrderAreReported() {
        ToolDefinition<Order> reordered = ToolDefinition.tool("order", Order.class)
                .handler((args, ctx) -> {
                    // Changed: charge moved before the question, reserve after it.
                    ctx.step("charge", Integer.class, () -> 30);
                    int count = ctx.elicit(
                                    "quantity", Elicitation.form("How many " + args.item() + "?", Quantity.class))
                            .orElseReturn(no -> ToolResult.text("no order"))
                            .count();
                    ctx.step("reserve", String.class, () -> "R-" + effects.incrementAndGet());
                    ctx.elicit("address", Elicitation.form("Ship where?", Address.class))
                            .orElseReturn(no -> ToolResult.text("x"));
                    return ToolResult.text(count + " shipped");
                });
        CallRecording recording = waitingForAddress();
        int before = effects.get();
        ReplayReport report = ReplayCheck.check(reordered, recording);
        assertEquals(
                List.of(ReplayReport.Kind.STEP_MOVED, ReplayReport.Kind.STEP_MOVED), kinds(report), report.toString());
        assertTrue(report.problems().get(0).detail().contains("step 'charge' is now step #1"), report.toString());
        assertEquals(before, effects.get());
    }

    @Test
    void aNewStepIsReportedAndItsActionDoesNotRun() {
        AtomicInteger mails = new AtomicInteger();
        ToolDefinition<Order> withMail = ToolDefinition.tool("order", Order.class)
                .handler((args, ctx) -> {
                    ctx.step("reserve", String.class, () -> "R-" + effects.incrementAndGet());
                    // Changed: a new effect between two recorded steps.
                    ctx.step("mail", Integer.class, mails::incrementAndGet);
                    return ToolResult.text("mailed");
                });
        ReplayReport report = ReplayCheck.check(withMail, completed());
        assertEquals(List.of(ReplayReport.Kind.NEW_STEP), kinds(report), report.toString());
        assertTrue(report.problems().get(0).detail().contains("step #2 is now 'mail'"), report.toString());
        assertTrue(report.problems().get(0).detail().contains("it journaled 'charge' there"), report.toString());
        assertEquals(0, mails.get(), "the check stopped before the new step's action");
    }

    @Test
    void aRemovedStepAndAChangedEndingAreReported() {
        ToolDefinition<Order> shorter = ToolDefinition.tool("order", Order.class)
                .handler((args, ctx) -> {
                    ctx.step("reserve", String.class, () -> "R-" + effects.incrementAndGet());
                    return ToolResult.text("reserved only");
                });
        ReplayReport report = ReplayCheck.check(shorter, waitingForAddress());
        assertEquals(
                List.of(ReplayReport.Kind.MISSING_STEP, ReplayReport.Kind.OUTCOME_CHANGED),
                kinds(report),
                report.toString());
        assertTrue(report.problems().get(0).detail().contains("[charge]"), report.toString());
    }

    @Test
    void aNewQuestionIsReported() {
        ToolDefinition<Order> asksMore = ToolDefinition.tool("order", Order.class)
                .handler((args, ctx) -> {
                    ctx.step("reserve", String.class, () -> "R-" + effects.incrementAndGet());
                    ctx.elicit("coupon", Elicitation.form("Coupon?", Address.class))
                            .orElseReturn(no -> ToolResult.text("x"));
                    return ToolResult.text("x");
                });
        ReplayReport report = ReplayCheck.check(asksMore, completed());
        assertTrue(kinds(report).contains(ReplayReport.Kind.NEW_QUESTION), report.toString());
    }

    @Test
    void badRecordingsAreRefusedClearly() {
        assertThrows(IllegalArgumentException.class, () -> ReplayCheck.read("{\"format\":1}"));
        IllegalArgumentException future = assertThrows(
                IllegalArgumentException.class,
                () -> ReplayCheck.read(Json.write(Json.tree(completed())).replace("\"format\":1", "\"format\":9")));
        assertTrue(future.getMessage().contains("format 9"), future.getMessage());
        ReplayReport gone = ReplayCheck.check(
                dev.parley.runtime.McpServerDefinition.builder("s", "1").build(), completed());
        assertEquals(List.of(ReplayReport.Kind.OUTCOME_CHANGED), kinds(gone));
    }

    private static List<ReplayReport.Kind> kinds(ReplayReport report) {
        return report.problems().stream().map(ReplayReport.Problem::kind).toList();
    }
}
