package dev.parley.http;

import com.typesafe.config.ConfigFactory;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server the endpoint tests talk to: five tools (so {@code tools/list} with a page size of
 * two has three pages), one of each shape the edge must carry.
 */
final class TestTools {
    /** The URL the {@code pay_online} tool sends the user to. */
    static final String PAYMENT_URL = "https://pay.example/checkout/42";
    /** Page size 2, and a small body limit so the 413 row is cheap to hit. */
    static final String CONFIG = "parley.lists.page-size = 2\nparley.http.max-body-bytes = 4096";
    /** The header {@link #PRINCIPALS} reads the caller from. */
    static final String USER_HEADER = "X-Test-User";

    /** Who the caller is: the {@value #USER_HEADER} header, "alice" without one. */
    static final PrincipalResolver PRINCIPALS =
            request -> request.getHeader(USER_HEADER).map(h -> h.value().trim()).orElse("alice");

    /** How often the journaled steps of {@code greet} and {@code plan_trip} really ran. */
    final AtomicInteger greetings = new AtomicInteger();

    final AtomicInteger bookings = new AtomicInteger();

    record EchoArgs(@Description("Text to echo back") String text) {}

    record GreetArgs(@Description("How to greet") String greeting) {}

    record TripArgs(@Description("Number of travellers") int travellers) {}

    record PayArgs(@Description("Amount in cents") int cents) {}

    record NoArgs() {}

    /** Whether the tools are declared with annotations ({@link AnnotatedTestTools}) instead of the builder. */
    private final boolean annotated;

    TestTools() {
        this(false);
    }

    TestTools(boolean annotated) {
        this.annotated = annotated;
    }

    McpServerDefinition definition() {
        if (annotated) {
            return McpServerDefinition.builder("parley-http-tests", "0.0.1")
                    .instructions("Tools for the HTTP endpoint tests.")
                    .annotated(new AnnotatedTestTools(greetings, bookings))
                    .build();
        }
        return McpServerDefinition.builder("parley-http-tests", "0.0.1")
                .instructions("Tools for the HTTP endpoint tests.")
                .tool(echo())
                .tool(greet())
                .tool(planTrip())
                .tool(payOnline())
                .tool(noop())
                .build();
    }

    /** Boots the test server on a free loopback port. */
    static McpHttpServer start(TestTools tools, Path dataDirectory) {
        return start(tools, dataDirectory, "");
    }

    /** Boots the test server with {@code moreConfig} above {@link #CONFIG}. */
    static McpHttpServer start(TestTools tools, Path dataDirectory, String moreConfig) {
        return McpHttpServer.builder(tools.definition())
                .dataDirectory(dataDirectory)
                .port(0)
                .principals(PRINCIPALS)
                .config(ConfigFactory.parseString(CONFIG + "\n" + moreConfig))
                .start();
    }

    /** One round, no questions. */
    private static ToolDefinition<EchoArgs> echo() {
        return ToolDefinition.tool("echo", EchoArgs.class)
                .description("Echoes its input.")
                .handler((args, ctx) -> ToolResult.text("echo: " + args.text()));
    }

    /** One form question (name and a non-negative age), then a journaled step. */
    private ToolDefinition<GreetArgs> greet() {
        return ToolDefinition.tool("greet", GreetArgs.class)
                .description("Asks who you are, then greets you.")
                .handler((args, ctx) -> {
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
                    return ToolResult.text(args.greeting() + ", " + accepted.string("name") + " ("
                            + accepted.integer("age") + ")! Greeting #" + number + " " + id);
                });
    }

    /** Two rounds: a destination, then a confirmation; then a journaled booking. */
    private ToolDefinition<TripArgs> planTrip() {
        return ToolDefinition.tool("plan_trip", TripArgs.class)
                .description("Asks where to, then asks to confirm, then books.")
                .handler((args, ctx) -> {
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
                            Elicitation.form("Book " + city + " for " + args.travellers() + "?")
                                    .field("ok", FormField.bool("Book it"))
                                    .build());
                    if (!(confirm instanceof ElicitAnswer.Accepted ok) || !ok.bool("ok")) {
                        return ToolResult.text("Trip to " + city + " not booked.");
                    }
                    int booking = ctx.step("book", Integer.class, bookings::incrementAndGet);
                    return ToolResult.text(
                            "Trip to " + city + " for " + args.travellers() + " booked as #" + booking + ".");
                });
    }

    /** Needs URL-mode elicitation: a client that declared form mode only cannot go on. */
    private static ToolDefinition<PayArgs> payOnline() {
        return ToolDefinition.tool("pay_online", PayArgs.class)
                .description("Sends the user to a payment page.")
                .handler((args, ctx) -> {
                    ElicitAnswer answer =
                            ctx.elicit("payment", Elicitation.url("Pay " + args.cents() + " cents", PAYMENT_URL));
                    return ToolResult.text(
                            answer instanceof ElicitAnswer.Accepted ? "Payment page opened." : "Not paid.");
                });
    }

    private static ToolDefinition<NoArgs> noop() {
        return ToolDefinition.tool("noop", NoArgs.class)
                .description("Does nothing.")
                .handler((args, ctx) -> ToolResult.text("ok"));
    }
}
