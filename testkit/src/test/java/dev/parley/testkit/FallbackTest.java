package dev.parley.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.runtime.CallContext;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Fallback;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.annotations.Arg;
import dev.parley.runtime.annotations.Tool;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A question's fallback, for a client that cannot be asked it, through the real replay engine. */
class FallbackTest {
    private static final String NO_ELICITATION = "{}";
    private static final String FORM_ONLY = "{\"elicitation\":{\"form\":{}}}";

    record Order(String item) {}

    record Size(String size) {}

    private final AtomicInteger orders = new AtomicInteger();

    /** Asks the size; a client that cannot be asked is told to pass it; a decline ends the call too. */
    private ToolDefinition<Order> returning() {
        return ToolDefinition.tool("order", Order.class).handler((args, ctx) -> {
            Size size = ctx.elicit(
                            "size",
                            Elicitation.form("Which size of " + args.item() + "?", Size.class),
                            Fallback.returning(cannot -> ToolResult.text(
                                    "No order: " + cannot + ". Call order again with a size argument.")))
                    .orElseReturn(no -> ToolResult.text("No order: the size question was " + no + "."));
            String id = ctx.step("order", String.class, () -> "ORD-" + orders.incrementAndGet());
            return ToolResult.text(id + ": " + size.size() + " " + args.item());
        });
    }

    /** Takes a default size and goes on, then asks for a payment page the client may not open. */
    private ToolDefinition<Order> assuming() {
        return ToolDefinition.tool("order", Order.class).handler((args, ctx) -> {
            Size size = ctx.elicit(
                            "size",
                            Elicitation.form("Which size of " + args.item() + "?", Size.class),
                            Fallback.assuming(new Size("M")))
                    .orElseReturn(no -> ToolResult.text("No order."));
            String id = ctx.step("order", String.class, () -> "ORD-" + orders.incrementAndGet());
            ctx.elicit(
                            "pay",
                            Elicitation.url("Pay for " + id, "https://pay.example/" + id),
                            Fallback.returning(cannot -> ToolResult.text(id + " (" + size.size()
                                    + ") waits for payment at https://pay.example/" + id + ": " + cannot + ".")))
                    .orElseReturn(no -> ToolResult.text(id + " not paid."));
            return ToolResult.text(id + " paid: " + size.size() + " " + args.item());
        });
    }

    @Test
    void aClientWithoutElicitationGetsTheFallbackResultAndNothingRuns() {
        try (ToolTestKit kit = ToolTestKit.of(returning()).capabilities(NO_ELICITATION)) {
            Round round = kit.call(new Order("shirt"));

            assertEquals(
                    "No order: this client cannot show a form. Call order again with a size argument.", round.text());
            assertFalse(round.isError());
            assertTrue(kit.tookFallback("size"));
            assertEquals(0, kit.stepRuns("order"));
            assertEquals(0, orders.get());
        }
    }

    @Test
    void aClientThatCanBeAskedIsAskedAndItsDeclineStillTakesTheDeclinePath() {
        try (ToolTestKit kit = ToolTestKit.of(returning())) {
            assertTrue(kit.call(new Order("shirt")).asks());
            assertEquals(
                    "No order: the size question was declined.",
                    kit.decline("size").text());
            assertFalse(kit.tookFallback("size"));
        }
    }

    @Test
    void anAssumedAnswerGoesOnAndALaterUrlQuestionFallsBackForAFormOnlyClient() {
        try (ToolTestKit kit = ToolTestKit.of(assuming()).capabilities(NO_ELICITATION)) {
            Round round = kit.call(new Order("shirt"));

            assertEquals(
                    "ORD-1 (M) waits for payment at https://pay.example/ORD-1: "
                            + "this client cannot open a web page for the user.",
                    round.text());
            assertTrue(kit.tookFallback("size"));
            assertTrue(kit.tookFallback("pay"));
            kit.assertStepRanOnce("order");
        }
        try (ToolTestKit kit = ToolTestKit.of(assuming()).capabilities(FORM_ONLY)) {
            kit.call(new Order("shirt"));
            Round round = kit.answer("size", new Size("L"));

            assertEquals(
                    "ORD-2 (L) waits for payment at https://pay.example/ORD-2: "
                            + "this client cannot open a web page for the user.",
                    round.text());
            assertFalse(kit.tookFallback("size"));
        }
    }

    @Test
    void aFallbackTakenIsKeptOnEveryRerunEvenForAClientThatCouldBeAsked() {
        try (ToolTestKit kit = ToolTestKit.of(assuming()).capabilities(FORM_ONLY)) {
            kit.call(new Order("shirt"));
            kit.answer("size", new Size("S"));
            kit.capabilities("{\"elicitation\":{\"form\":{},\"url\":{}}}");

            Round again = kit.rerun();

            assertEquals(
                    "ORD-1 (S) waits for payment at https://pay.example/ORD-1: "
                            + "this client cannot open a web page for the user.",
                    again.text());
            kit.assertStepRanOnce("order");
        }
    }

    @Test
    void withoutAFallbackTheCallStillEndsWithMissingCapability() {
        ToolDefinition<Order> noFallback = ToolDefinition.tool("order", Order.class)
                .handler((args, ctx) -> {
                    Size size = ctx.elicit("size", Elicitation.form("Which size?", Size.class))
                            .orElseReturn(no -> ToolResult.text("No order."));
                    return ToolResult.text(size.size());
                });
        try (ToolTestKit kit = ToolTestKit.of(noFallback).capabilities(NO_ELICITATION)) {
            assertEquals(
                    ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
                    kit.call(new Order("shirt")).errorCode());
        }
    }

    @Test
    void theReplayCheckReplaysACallThatTookItsFallbacks() {
        try (ToolTestKit kit = ToolTestKit.of(assuming()).capabilities(NO_ELICITATION)) {
            kit.call(new Order("shirt"));

            // The check runs with every capability declared: the journaled fallbacks still decide.
            ReplayReport report = ReplayCheck.check(assuming(), kit.recording());
            assertTrue(report.deterministic(), report.toString());
        }
    }

    @Test
    void theReplayCheckReportsAFallbackTheCodeNoLongerTakes() {
        try (ToolTestKit kit = ToolTestKit.of(assuming()).capabilities(NO_ELICITATION)) {
            kit.call(new Order("shirt"));

            ReplayReport report = ReplayCheck.check(returning(), kit.recording());
            assertFalse(report.deterministic(), report.toString());
        }
    }

    /** An annotated tool takes a fallback the same way: its CallContext is the same. */
    public static final class AnnotatedOrders {
        @Tool(name = "order", description = "Orders an item; asks its size.")
        public String order(@Arg("item") String item, CallContext ctx) {
            Size size = ctx.elicit(
                            "size",
                            Elicitation.form("Which size of " + item + "?", Size.class),
                            Fallback.returning(cannot -> ToolResult.text("No order: " + cannot + ".")))
                    .orElseReturn(no -> ToolResult.text("No order."));
            return size.size() + " " + item;
        }
    }

    @Test
    void anAnnotatedToolTakesItsFallback() {
        McpServerDefinition server = McpServerDefinition.builder("shop", "1")
                .annotated(new AnnotatedOrders())
                .build();
        try (ToolTestKit kit = ToolTestKit.of(server, "order").capabilities(NO_ELICITATION)) {
            assertEquals(
                    "No order: this client cannot show a form.",
                    kit.call(Map.of("item", "shirt")).text());
        }
        try (ToolTestKit kit = ToolTestKit.of(server, "order")) {
            kit.call(Json.parse("{\"item\":\"shirt\"}"));
            assertEquals("XL shirt", kit.answer("size", new Size("XL")).text());
        }
    }
}
