package dev.parley.http;

import dev.parley.runtime.CallContext;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.annotations.Arg;
import dev.parley.runtime.annotations.Tool;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link TestTools}' five tools declared with annotations instead of the builder: the same
 * names, descriptions, schemas and handlers, so the endpoint tests run unchanged against them.
 * Both argument styles: {@code @Arg} parameters and one arguments record.
 */
final class AnnotatedTestTools {
    private final AtomicInteger greetings;
    private final AtomicInteger bookings;

    AnnotatedTestTools(AtomicInteger greetings, AtomicInteger bookings) {
        this.greetings = greetings;
        this.bookings = bookings;
    }

    @Tool(description = "Echoes its input.")
    String echo(@Arg(value = "text", description = "Text to echo back") String text) {
        return "echo: " + text;
    }

    @Tool(description = "Asks who you are, then greets you.")
    ToolResult greet(TestTools.GreetArgs args, CallContext ctx) {
        ElicitAnswer answer = ctx.elicit(
                "who",
                Elicitation.form("Who are you?")
                        .field("name", FormField.string("Your name"))
                        .field("age", FormField.integer("Your age").minimum(0))
                        .build());
        if (!(answer instanceof ElicitAnswer.Accepted accepted)) {
            return ToolResult.text("No greeting: the question was "
                    + (answer instanceof ElicitAnswer.Declined ? "declined" : "cancelled") + ".");
        }
        int number = ctx.step("greet", Integer.class, greetings::incrementAndGet);
        String id = ctx.randomUuid().toString();
        return ToolResult.text(args.greeting() + ", " + accepted.string("name") + " (" + accepted.integer("age")
                + ")! Greeting #" + number + " " + id);
    }

    @Tool(name = "plan_trip", description = "Asks where to, then asks to confirm, then books.")
    ToolResult planTrip(
            @Arg(value = "travellers", description = "Number of travellers") int travellers, CallContext ctx) {
        ElicitAnswer where = ctx.elicit(
                "destination",
                Elicitation.form("Where to?")
                        .field("city", FormField.string("City"))
                        .build());
        if (!(where instanceof ElicitAnswer.Accepted destination)) {
            return ToolResult.text("No trip planned.");
        }
        String city = destination.string("city");
        ElicitAnswer confirm = ctx.elicit(
                "confirm",
                Elicitation.form("Book " + city + " for " + travellers + "?")
                        .field("ok", FormField.bool("Book it"))
                        .build());
        if (!(confirm instanceof ElicitAnswer.Accepted ok) || !ok.bool("ok")) {
            return ToolResult.text("Trip to " + city + " not booked.");
        }
        int booking = ctx.step("book", Integer.class, bookings::incrementAndGet);
        return ToolResult.text("Trip to " + city + " for " + travellers + " booked as #" + booking + ".");
    }

    @Tool(name = "pay_online", description = "Sends the user to a payment page.")
    String payOnline(TestTools.PayArgs args, CallContext ctx) {
        ElicitAnswer answer =
                ctx.elicit("payment", Elicitation.url("Pay " + args.cents() + " cents", TestTools.PAYMENT_URL));
        return answer instanceof ElicitAnswer.Accepted ? "Payment page opened." : "Not paid.";
    }

    @Tool(description = "Does nothing.")
    String noop() {
        return "ok";
    }
}
