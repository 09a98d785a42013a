package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small server of blocking tools, one per shape of call the entity must handle. The counters
 * count how often a journaled step's action really ran (it must be once per call, whatever the
 * number of rounds, retries and recoveries).
 */
final class TestTools {
    static final AtomicInteger CHARGES = new AtomicInteger();
    static final AtomicInteger RESERVATIONS = new AtomicInteger();
    static final AtomicInteger HOLDS = new AtomicInteger();
    /** Counts every run of schedule_release's handler (each round re-runs it from the top). */
    static final AtomicInteger RELEASE_RUNS = new AtomicInteger();

    /** An application error code (JSON-RPC's server-defined range). */
    static final int NOT_ALLOWED = -32001;

    record Release(String service) {}

    record Trip(String traveller) {}

    record Order(String item) {}

    record Venue(String name) {}

    record Receipt(String id, long cents) {}

    static final String RELEASE_ARGS = "{\"service\":\"billing\"}";
    static final String TRIP_ARGS = "{\"traveller\":\"alice\"}";
    static final String ORDER_ARGS = "{\"item\":\"deposit\"}";
    static final String VENUE_ARGS = "{\"name\":\"Harbour Hall\"}";

    /** One form question, then the call completes; a decline is a normal, non-error ending. */
    static final ToolDefinition<Release> SCHEDULE_RELEASE = ToolDefinition.tool("schedule_release", Release.class)
            .description("Schedules a release in a window the user picks")
            .handler((args, ctx) -> {
                RELEASE_RUNS.incrementAndGet();
                ElicitAnswer answer = ctx.elicit(
                        "window",
                        Elicitation.form("When should " + args.service() + " be released?")
                                .field("window", FormField.string("Release window", "date-time"))
                                .build());
                if (answer instanceof ElicitAnswer.Accepted accepted) {
                    return ToolResult.text(
                            "Release of " + args.service() + " scheduled for " + accepted.string("window"));
                }
                return ToolResult.text("Nothing was scheduled");
            });

    /** Two questions in two successive rounds. */
    static final ToolDefinition<Trip> PLAN_TRIP = ToolDefinition.tool("plan_trip", Trip.class)
            .handler((args, ctx) -> {
                ElicitAnswer destination = ctx.elicit(
                        "destination",
                        Elicitation.form("Where to?")
                                .field("city", FormField.string("City"))
                                .build());
                ElicitAnswer guests = ctx.elicit(
                        "guests",
                        Elicitation.form("How many travellers?")
                                .field("count", FormField.integer("Travellers").minimum(1))
                                .build());
                if (destination instanceof ElicitAnswer.Accepted city
                        && guests instanceof ElicitAnswer.Accepted count) {
                    return ToolResult.text("Trip for " + args.traveller() + " to " + city.string("city") + " with "
                            + count.integer("count") + " travellers");
                }
                return ToolResult.text("No trip planned");
            });

    /** A journaled step before the first question. */
    static final ToolDefinition<Order> CHARGE_THEN_CONFIRM = ToolDefinition.tool("charge_then_confirm", Order.class)
            .handler((args, ctx) -> {
                Receipt receipt = ctx.step(
                        "charge", Receipt.class, () -> new Receipt("receipt-" + CHARGES.incrementAndGet(), 4200));
                ElicitAnswer confirm = ctx.elicit(
                        "confirm",
                        Elicitation.form("Keep the charge " + receipt.id() + "?")
                                .field("ok", FormField.bool("Keep it"))
                                .build());
                boolean keep = confirm instanceof ElicitAnswer.Accepted accepted && accepted.bool("ok");
                return ToolResult.text((keep ? "Kept " : "Refunded ") + receipt.id());
            });

    /** A step before the first question and another between the two rounds (journaled by the entity). */
    static final ToolDefinition<Venue> BOOK_VENUE = ToolDefinition.tool("book_venue", Venue.class)
            .handler((args, ctx) -> {
                String reservation =
                        ctx.step("reserve", String.class, () -> "reservation-" + RESERVATIONS.incrementAndGet());
                ElicitAnswer date = ctx.elicit(
                        "date",
                        Elicitation.form("Which date for " + args.name() + "?")
                                .field("date", FormField.string("Date", "date"))
                                .build());
                if (!(date instanceof ElicitAnswer.Accepted accepted)) {
                    return ToolResult.text("Released " + reservation);
                }
                String hold = ctx.step("hold", String.class, () -> "hold-" + HOLDS.incrementAndGet());
                ElicitAnswer confirm = ctx.elicit(
                        "confirm",
                        Elicitation.form("Book " + accepted.string("date") + "?")
                                .field("ok", FormField.bool("Book it"))
                                .build());
                boolean book = confirm instanceof ElicitAnswer.Accepted ok && ok.bool("ok");
                return ToolResult.text((book ? "Booked " : "Dropped ") + accepted.string("date") + " with "
                        + reservation + " and " + hold);
            });

    /** Ends the call with a JSON-RPC error when the answer does not allow it to go on. */
    static final ToolDefinition<ObjectNode> CHECK_AGE = ToolDefinition.tool(
                    "check_age", Json.parse("{\"type\":\"object\"}"))
            .handler((args, ctx) -> {
                ElicitAnswer answer = ctx.elicit(
                        "age",
                        Elicitation.form("How old are you?")
                                .field("years", FormField.integer("Age"))
                                .build());
                if (answer instanceof ElicitAnswer.Accepted accepted && accepted.integer("years") >= 18) {
                    return ToolResult.text("Welcome");
                }
                throw new McpException(NOT_ALLOWED, "Not allowed");
            });

    /** Completes in one round without asking anything. */
    static final ToolDefinition<ObjectNode> PING = ToolDefinition.tool("ping", Json.parse("{\"type\":\"object\"}"))
            .handler((args, ctx) -> ToolResult.text("pong"));

    record Count(int to) {}

    /** Reports progress once per number, then completes. */
    static final ToolDefinition<Count> COUNT_TO = ToolDefinition.tool("count_to", Count.class)
            .handler((args, ctx) -> {
                for (int i = 1; i <= args.to(); i++) {
                    ctx.progress(i, (double) args.to(), "counted " + i);
                }
                return ToolResult.text("counted to " + args.to());
            });

    static final McpServerDefinition SERVER = McpServerDefinition.builder("parley-actors-test", "0.0.1")
            .tool(SCHEDULE_RELEASE)
            .tool(PLAN_TRIP)
            .tool(CHARGE_THEN_CONFIRM)
            .tool(BOOK_VENUE)
            .tool(CHECK_AGE)
            .tool(PING)
            .tool(COUNT_TO)
            .build();

    private TestTools() {}

    static void resetCounters() {
        CHARGES.set(0);
        RESERVATIONS.set(0);
        HOLDS.set(0);
        RELEASE_RUNS.set(0);
    }

    static ObjectNode object(String json) {
        return (ObjectNode) Json.parse(json);
    }

    /** An {@code ElicitResult} that accepts with {@code contentJson}. */
    static String accept(String contentJson) {
        return "{\"action\":\"accept\",\"content\":" + contentJson + "}";
    }
}
