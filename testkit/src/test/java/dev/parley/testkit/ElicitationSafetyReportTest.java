package dev.parley.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.NotASecret;
import dev.parley.runtime.Title;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.CallRecording;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The test kit and the replay check report the elicitation safety rules: a refused question fails, opt-outs are listed. */
class ElicitationSafetyReportTest {
    record Shop(String name) {}

    record Plan(@Title("Plan") String plan) {}

    record Customer(
            @NotASecret("the shop's public customer number, printed on invoices")
            String accountNumber) {}

    /** Asks the plan, then (built at run time) a field named after the shop's settings. */
    private static ToolDefinition<Shop> connect(String secondField) {
        return ToolDefinition.tool("connect_shop", Shop.class).handler((args, ctx) -> {
            String plan = ctx.elicit("plan", Elicitation.form("Which plan?", Plan.class))
                    .orElseReturn(no -> ToolResult.text("not connected"))
                    .plan();
            ctx.elicit(
                            "settings",
                            Elicitation.form("Connect " + args.name())
                                    .field(secondField, FormField.string("Shop " + secondField))
                                    .build())
                    .orElseReturn(no -> ToolResult.text("not connected"));
            return ToolResult.text("connected on " + plan);
        });
    }

    @Test
    void theKitFailsTheRoundThatBuildsAFormAskingForASecret() {
        try (ToolTestKit kit = ToolTestKit.of(connect("apiKey"))) {
            kit.call(new Shop("lamps")).question("plan");
            AssertionError failed = assertThrows(AssertionError.class, () -> kit.answer("plan", new Plan("basic")));
            assertTrue(
                    failed.getMessage()
                            .startsWith("round 2 of tools/call connect_shop builds a question that breaks the"
                                    + " elicitation safety rules"),
                    failed.getMessage());
            assertTrue(
                    failed.getMessage()
                            .contains("form field 'apiKey' asks for a secret: its name \"apiKey\" names"
                                    + " \"API key\""),
                    failed.getMessage());
            assertTrue(failed.getMessage().contains("Elicitation.url(...)"), failed.getMessage());
        }
    }

    @Test
    void theKitFailsAnUnsafeUrlQuestion() {
        ToolDefinition<Shop> tool = ToolDefinition.tool("pay", Shop.class).handler((args, ctx) -> {
            ctx.elicit("pay", Elicitation.url("Pay", "http://pay.example/" + args.name()));
            return ToolResult.text("paid");
        });
        try (ToolTestKit kit = ToolTestKit.of(tool)) {
            AssertionError failed = assertThrows(AssertionError.class, () -> kit.call(new Shop("lamps")));
            assertTrue(failed.getMessage().contains("the URL question's URL is not https"), failed.getMessage());
        }
    }

    @Test
    void theKitListsTheFieldsMarkedAsNoSecret() {
        ToolDefinition<Shop> tool = ToolDefinition.tool("invoice", Shop.class).handler((args, ctx) -> {
            String number = ctx.elicit("customer", Elicitation.form("Customer?", Customer.class))
                    .orElseReturn(no -> ToolResult.text("no invoice"))
                    .accountNumber();
            return ToolResult.text("invoiced " + number);
        });
        try (ToolTestKit kit = ToolTestKit.of(tool)) {
            kit.call(new Shop("lamps")).question("customer");
            assertEquals(
                    List.of("question 'customer', field 'accountNumber' is marked as no secret: the shop's public"
                            + " customer number, printed on invoices"),
                    kit.notSecrets());
        }
    }

    @Test
    void theReplayCheckReportsACodeChangeThatAsksForASecret() {
        CallRecording recording;
        try (ToolTestKit kit = ToolTestKit.of(connect("region"))) {
            kit.call(new Shop("lamps"));
            kit.answer("plan", new Plan("basic"));
            recording = kit.recording();
        }
        ReplayCheck.check(connect("region"), recording).assertDeterministic();

        ReplayReport report = ReplayCheck.check(connect("accessToken"), recording);
        assertEquals(1, report.problems().size(), report.toString());
        assertEquals(ReplayReport.Kind.UNSAFE_QUESTION, report.problems().get(0).kind());
        assertTrue(
                report.problems().get(0).detail().contains("form field 'accessToken' asks for a secret"),
                report.toString());
    }

    @Test
    void theReplayReportNotesTheFieldsMarkedAsNoSecret() {
        ToolDefinition<Shop> tool = ToolDefinition.tool("invoice", Shop.class).handler((args, ctx) -> {
            ctx.elicit("customer", Elicitation.form("Customer?", Customer.class));
            return ToolResult.text("invoiced");
        });
        CallRecording recording;
        try (ToolTestKit kit = ToolTestKit.of(tool)) {
            kit.call(new Shop("lamps"));
            recording = kit.recording();
        }
        ReplayReport report = ReplayCheck.check(tool, recording);
        assertTrue(report.deterministic(), report.toString());
        assertEquals(1, report.notSecrets().size());
        assertTrue(
                report.toString()
                        .endsWith("note: question 'customer', field 'accountNumber' is marked as no secret: the"
                                + " shop's public customer number, printed on invoices"),
                report.toString());
    }
}
