package dev.parley.examples;

import dev.parley.runtime.CallContext;
import dev.parley.runtime.Description;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Fallback;
import dev.parley.runtime.McpApps;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.Title;
import dev.parley.runtime.ToolAnnotations;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.annotations.Arg;
import dev.parley.runtime.annotations.Tool;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The seed scenarios of the demo server (DESIGN.md §9), written against the public author API:
 * most with the builder, {@code check_availability} with an annotation.
 */
public final class DemoTools {
    /** Dates the venue is never free on, so the "taken date" path is easy to try. */
    static final Set<String> TAKEN_DATES = Set.of("2026-12-24", "2026-12-31");
    /** The sections of a venue contract; book_venue writes one per journaled step. */
    static final List<String> CONTRACT_PARTS =
            List.of("parties and date", "guests and catering", "deposit and cancellation");
    /** How long writing one contract section takes (the "long part" that runs as a task). */
    static final Duration CONTRACT_PART_TIME = Duration.ofMillis(500);
    /** How long drafting a report takes. */
    static final Duration DRAFT_TIME = Duration.ofSeconds(1);

    private static final long PAUSE_SLICE_MILLIS = 50;

    private final DemoLedger ledger;
    private final Supplier<String> paymentBaseUrl;

    /** @param paymentBaseUrl where the payment page is served, e.g. {@code http://127.0.0.1:8080} */
    public DemoTools(DemoLedger ledger, Supplier<String> paymentBaseUrl) {
        this.ledger = ledger;
        this.paymentBaseUrl = paymentBaseUrl;
    }

    public McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-demo", "0.1.0")
                .title("Parley demo")
                .instructions("Demo tools that ask for input over several rounds: schedule_release, create_invoice, "
                        + "book_venue, publish_report. book_venue and publish_report run as tasks for clients that declare "
                        + "the io.modelcontextprotocol/tasks extension.")
                .tool(scheduleRelease())
                .tool(createInvoice())
                .tool(bookVenue())
                .annotated(this) // the @Tool methods of this class: check_availability
                .tool(publishReport())
                .resource(VenueCalendar.view())
                .tool(venueCalendar())
                .build();
    }

    public record ScheduleRelease(
            @Description("The service to release") String service,

            @Description("Release window start (ISO-8601 instant); asked for when missing")
            Optional<Instant> window) {}

    // snippet: schedule_release
    public record Window(@Title("Release window start") Instant window) {}

    ToolDefinition<ScheduleRelease> scheduleRelease() {
        return ToolDefinition.tool("schedule_release", ScheduleRelease.class)
                .title("Schedule a release")
                .description("Asks for a release window (unless given as `window`), then schedules the release.")
                .handler((args, ctx) -> {
                    Window answer = args.window().isPresent()
                            ? new Window(args.window().get())
                            : ctx.elicit(
                                            "window",
                                            Elicitation.form(
                                                    "When should " + args.service() + " be released?", Window.class),
                                            // A client that cannot show the form is told how to answer up front.
                                            Fallback.returning(
                                                    cannot -> ToolResult.text(
                                                            "No release scheduled for "
                                                                    + args.service() + ": " + cannot
                                                                    + ". Call schedule_release again "
                                                                    + "with a window argument, e.g. \"window\": \"2026-12-01T09:00:00Z\".")))
                                    .orElseReturn(no -> ToolResult.text("No release scheduled for " + args.service()
                                            + ": the request was " + no + "."));
                    // A journaled step runs once however often the handler is re-run; its key is the same
                    // after a crash, and the ledger keeps one entry per key: scheduled exactly once.
                    String ticket = ctx.step("schedule", String.class, key -> {
                        String id = "REL-" + key.substring(0, 8);
                        ledger.append(
                                "release",
                                key,
                                id,
                                args.service(),
                                answer.window().toString());
                        return id;
                    });
                    return ToolResult.text(
                            "Release " + ticket + " of " + args.service() + " scheduled for " + answer.window() + ".");
                });
    }
    // end snippet

    public record CreateInvoice(
            @Description("Who the invoice is for") String client,
            @Description("Amount in the invoice currency") double amount,

            @Description("EUR, USD, GBP or CHF; asked for when missing")
            Optional<Currency> currency) {}

    public enum Currency {
        EUR,
        USD,
        GBP,
        CHF
    }

    public record InvoiceCurrency(@Title("Currency") Currency currency) {}

    // snippet: create_invoice_scopes
    ToolDefinition<CreateInvoice> createInvoice() {
        return ToolDefinition.tool("create_invoice", CreateInvoice.class)
                .title("Create an invoice")
                .description("Creates an invoice; asks for the currency.")
                .requiredScopes("invoice:write") // with parley.auth on, only tokens with this scope see and call it
                // end snippet
                .handler((args, ctx) -> {
                    Currency currency = args.currency().isPresent()
                            ? args.currency().get()
                            : ctx.elicit(
                                            "currency",
                                            Elicitation.form(
                                                            "Which currency should the invoice for " + args.client()
                                                                    + " use?",
                                                            InvoiceCurrency.class)
                                                    .defaultValue("currency", Currency.EUR),
                                            Fallback.returning(cannot -> ToolResult.text("No invoice created for "
                                                    + args.client() + ": " + cannot + ". Call create_invoice again "
                                                    + "with a currency argument: EUR, USD, GBP or CHF.")))
                                    .orElseReturn(no -> ToolResult.text("No invoice created for " + args.client()
                                            + ": the request was " + no + "."))
                                    .currency();
                    String id = "INV-" + ctx.randomUuid().toString().substring(0, 8);
                    String number = ctx.step("issue", String.class, key -> {
                        ledger.append(
                                "invoice", key, id, args.client(), String.valueOf(args.amount()), currency.name());
                        return id;
                    });
                    return ToolResult.text("Invoice " + number + " for " + args.client() + ": " + args.amount() + " "
                            + currency + ".");
                });
    }

    // snippet: check_availability
    /** A one-round, read-only tool declared with an annotation: it asks nothing, so it never becomes durable. */
    @Tool(
            name = "check_availability",
            title = "Check venue availability",
            description = "Tells whether the venue is free on a date.",
            readOnly = true)
    String checkAvailability(@Arg(value = "date", description = "Event date, YYYY-MM-DD") LocalDate date) {
        return isTaken(date.toString(), null)
                ? "The venue is taken on " + date + "; the next free date is " + nextFreeDate(date, null) + "."
                : "The venue is free on " + date + ".";
    }
    // end snippet

    public record VenueMonth(@Description("Month, YYYY-MM") String month) {}

    /** The taken dates of one month. */
    public record MonthAvailability(String month, List<String> taken) {}

    // snippet: venue_calendar_tool
    /** Called by book_venue's calendar view only (MCP Apps visibility "app"): the model never sees it. */
    ToolDefinition<VenueMonth> venueCalendar() {
        return ToolDefinition.tool("venue_calendar", VenueMonth.class)
                .title("Venue calendar")
                .description("The taken dates of one month, for book_venue's calendar view.")
                .annotations(ToolAnnotations.readOnly())
                .ui(VenueCalendar.URI, McpApps.Visibility.APP)
                .handler((args, ctx) -> {
                    YearMonth month;
                    try {
                        month = YearMonth.parse(args.month());
                    } catch (DateTimeParseException e) {
                        return ToolResult.error("month must be YYYY-MM");
                    }
                    return ToolResult.structured(new MonthAvailability(
                            month.toString(),
                            IntStream.rangeClosed(1, month.lengthOfMonth())
                                    .mapToObj(day -> month.atDay(day).toString())
                                    .filter(date -> isTaken(date, null))
                                    .toList()));
                });
    }
    // end snippet

    public record BookVenue(
            @Description("Event date, YYYY-MM-DD") LocalDate date,
            @Description("Number of guests") int guests,

            @Description("The id of a deposit already paid on the payment page (a client that cannot open the page "
                    + "gets its link and this id)")
            Optional<String> deposit) {}

    public record AlternativeDate(@Title("Event date") LocalDate date) {}

    ToolDefinition<BookVenue> bookVenue() {
        return ToolDefinition.tool("book_venue", BookVenue.class)
                .title("Book the venue")
                .description("Books the venue: offers another date when the one asked for is taken, takes a deposit "
                        + "on a payment page (URL elicitation), then writes the contract (as a task, for clients that "
                        + "declare the tasks extension).")
                .requiredScopes("venue:book")
                .taskSupport(TaskSupport.OPTIONAL)
                .ui(VenueCalendar.URI)
                .asks(AlternativeDate.class) // its one form, checked at start-up; the deposit goes by URL
                .handler(this::bookVenue);
    }

    private ToolResult bookVenue(BookVenue args, CallContext ctx) {
        // The deposit id is recorded once, so every round points at the same payment page; and a
        // re-run of this call (after a crash right after the booking step) knows its own booking.
        if (args.deposit().isPresent() && !isUuid(args.deposit().get())) {
            return ToolResult.error("deposit must be the id the payment link ends with");
        }
        String depositId = args.deposit().orElseGet(() -> ctx.randomUuid().toString());
        String bookingId = "BKG-" + depositId.substring(0, 8);
        // A deposit pays for one booking. A step, so that a re-run of this call does not see its own booking.
        if (args.deposit().isPresent()
                && ctx.step(
                        "deposit_used",
                        Boolean.class,
                        () -> !ledger.entriesWith("booking", 0, bookingId).isEmpty())) {
            return ToolResult.error("Nothing booked: deposit " + depositId + " paid for " + bookingId + " already.");
        }
        // snippet: book_venue_fallback
        String date = args.date().toString();
        if (isTaken(date, bookingId)) {
            String suggestion = nextFreeDate(args.date(), bookingId);
            String taken = date;
            date = ctx.elicit(
                            "alternative_date",
                            Elicitation.form(date + " is taken. Which date instead?", AlternativeDate.class)
                                    .defaultValue("date", suggestion),
                            Fallback.returning(cannot -> ToolResult.text("Nothing booked: " + taken + " is taken and "
                                    + cannot + ". The next free dates are "
                                    + String.join(", ", nextFreeDates(args.date(), bookingId, 3))
                                    + "; call book_venue again with one of them.")))
                    .orElseReturn(no -> ToolResult.text("Nothing booked: the date question was " + no + "."))
                    .date()
                    .toString();
            // end snippet
            if (isTaken(date, bookingId)) {
                return ToolResult.error("Nothing booked: " + date + " is taken too.");
            }
        }
        // snippet: deposit_url
        // Card data never goes through the client: the user pays on our own page (URL mode), and the
        // tool asks again until the page has recorded the payment.
        String url = paymentBaseUrl.get() + "/pay/" + depositId;
        for (int attempt = 1; !ledger.contains("deposit", depositId); attempt++) {
            String payFor = date;
            ctx.elicit(
                            "deposit_" + attempt,
                            Elicitation.url("Pay the 200 EUR deposit for " + date + " on the payment page.", url),
                            Fallback.returning(cannot -> ToolResult.text("Nothing booked yet: " + cannot + ". Pay the "
                                    + "200 EUR deposit for " + payFor + " at " + url + ", then call book_venue again "
                                    + "with date " + payFor + ", " + args.guests() + " guests and deposit "
                                    + depositId + ".")))
                    .orElseReturn(no -> ToolResult.text("Nothing booked: the deposit request was " + no + "."));
        }
        // end snippet
        String bookedDate = date;
        // The questions are over; writing the contract takes a while. A client that declared the
        // tasks extension gets a task here (and polls tasks/get); any other client waits for the result.
        ctx.becomeTask();
        int parts = CONTRACT_PARTS.size();
        for (int part = 1; part <= parts; part++) {
            String section = CONTRACT_PARTS.get(part - 1);
            ctx.progress(part - 1, parts, "Writing contract, part " + part + " of " + parts + ": " + section);
            String which = "part " + part + " of " + parts;
            ctx.step("contract_" + part, String.class, key -> {
                pause(ctx, CONTRACT_PART_TIME);
                ledger.append("contract", key, bookingId, which);
                return section;
            });
        }
        ctx.progress(parts, parts, "Contract written; booking the venue");
        String booking = ctx.step("book", String.class, key -> {
            ledger.append("booking", key, bookingId, bookedDate, String.valueOf(args.guests()));
            return bookingId;
        });
        return ToolResult.text("Booked " + bookedDate + " for " + args.guests() + " guests (" + booking
                + "); contract written, deposit received.");
    }

    public record PublishReport(
            @Description("Title of the report") String title,

            @Description("Where to publish (intranet or website): the approval given up front; asked for when missing")
            Optional<Channel> channel) {}

    /** The wire values are the constant names, so they are lower case. */
    public enum Channel {
        intranet,
        website
    }

    public record Approval(@Title("Where to publish") Channel channel) {}

    // snippet: publish_report
    ToolDefinition<PublishReport> publishReport() {
        return ToolDefinition.tool("publish_report", PublishReport.class)
                .title("Publish a report")
                .description("Drafts a report, asks for approval, then publishes it; a task for clients that "
                        + "declare the tasks extension.")
                .taskSupport(TaskSupport.OPTIONAL)
                .asksInTask() // a client that cannot be asked gets the approval's fallback at once
                .handler((args, ctx) -> {
                    // With the tasks extension declared, the call becomes a task here: the client gets a
                    // taskId at once and polls tasks/get. Without it, the same code runs synchronously.
                    ctx.becomeTask();
                    ctx.progress(0, 2.0, "Drafting \"" + args.title() + "\"");
                    int pages = ctx.step("draft", Integer.class, () -> {
                        pause(ctx, DRAFT_TIME);
                        return 2 + args.title().length() % 7;
                    });
                    ctx.progress(1, 2.0, "Draft ready (" + pages + " pages); waiting for approval");
                    // In a task, a question makes the task input_required; tasks/update answers it.
                    Channel channel = args.channel().isPresent()
                            ? args.channel().get()
                            : ctx.elicit(
                                            "approval",
                                            Elicitation.form(
                                                            "Publish the " + pages + "-page report \"" + args.title()
                                                                    + "\"?",
                                                            Approval.class)
                                                    .defaultValue("channel", Channel.intranet),
                                            Fallback.returning(cannot -> ToolResult.text("Report \"" + args.title()
                                                    + "\" not published: " + cannot + ". Call publish_report again "
                                                    + "with a channel argument (intranet or website) to approve it.")))
                                    .orElseReturn(no -> ToolResult.text("Report \"" + args.title()
                                            + "\" not published: the approval was " + no + "."))
                                    .channel();
                    // The report id comes from the step's key, not from UUID.randomUUID(): a re-run after a
                    // crash publishes under the same id, and the ledger keeps it once.
                    String report = ctx.step("publish", String.class, key -> {
                        String id = "RPT-" + key.substring(0, 8);
                        ledger.append("report", key, id, channel.name(), args.title());
                        return id;
                    });
                    return ToolResult.text("Published \"" + args.title() + "\" (" + report + ", " + pages
                            + " pages) on the " + channel + ".");
                });
    }
    // end snippet

    /**
     * The slow part of a demo tool: sleeps in short slices and gives up as soon as the call is
     * cancelled ({@code tasks/cancel}, or the client closed its stream), so a cancelled call
     * performs no further effect.
     */
    private static void pause(CallContext ctx, Duration length) {
        long deadline = System.nanoTime() + length.toNanos();
        for (long left = length.toMillis(); left > 0; left = (deadline - System.nanoTime()) / 1_000_000) {
            if (ctx.isCancelled()) {
                throw new CancellationException("the call was cancelled");
            }
            try {
                Thread.sleep(Math.min(PAUSE_SLICE_MILLIS, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("the call was cancelled");
            }
        }
        if (ctx.isCancelled()) {
            throw new CancellationException("the call was cancelled");
        }
    }

    private static boolean isUuid(String text) {
        try {
            return UUID.fromString(text).toString().equals(text);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Whether another booking than {@code ownBookingId} holds {@code date}. */
    private boolean isTaken(String date, String ownBookingId) {
        // Fields, not text: a booking's fields are its id, its date and its guests.
        return TAKEN_DATES.contains(date)
                || ledger.entriesWith("booking", 1, date).stream()
                        .anyMatch(entry -> !entry.fields().get(0).equals(ownBookingId));
    }

    private String nextFreeDate(LocalDate from, String ownBookingId) {
        return nextFreeDates(from, ownBookingId, 1).get(0);
    }

    /** The first {@code count} free dates after {@code from}. */
    private List<String> nextFreeDates(LocalDate from, String ownBookingId, int count) {
        return Stream.iterate(from.plusDays(1), date -> date.plusDays(1))
                .map(LocalDate::toString)
                .filter(date -> !isTaken(date, ownBookingId))
                .limit(count)
                .toList();
    }
}
