package dev.parley.benchmarks.jmh;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolAnnotations;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.time.LocalDate;
import java.util.List;

/**
 * The tools the benchmarks call: the demo server's one-round {@code check_availability} and
 * two-round {@code create_invoice} (asks {@code currency} from an enum, then records a UUID and a
 * journaled step), minus the demo's ledger file, so the benchmarks measure Parley and not the
 * demo's file I/O. Blocking handlers, as in the demo: they run on the tool executor.
 */
public final class BenchTools {
    public static final List<String> CURRENCIES = List.of("EUR", "USD", "GBP", "CHF");
    public static final String CALL_ARGUMENTS = "{\"date\":\"2026-12-20\"}";
    public static final String INVOICE_ARGUMENTS = "{\"client\":\"x\",\"amount\":1}";
    public static final String INVOICE_ANSWERS =
            "{\"currency\":{\"action\":\"accept\",\"content\":{\"currency\":\"CHF\"}}}";
    public static final ObjectNode CAPABILITIES_JSON =
            (ObjectNode) Json.parse("{\"elicitation\":{\"form\":{},\"url\":{}}}");
    public static final ClientCapabilities CAPABILITIES = ClientCapabilities.of(CAPABILITIES_JSON);
    public static final String PRINCIPAL = "bench";

    private BenchTools() {}

    public record CheckAvailability(
            @Description("Event date, YYYY-MM-DD") LocalDate date) {}

    public record CreateInvoice(
            @Description("Who the invoice is for") String client,
            @Description("Amount in the invoice currency") double amount) {}

    public static ToolDefinition<CheckAvailability> checkAvailability() {
        return ToolDefinition.tool("check_availability", CheckAvailability.class)
                .title("Check venue availability")
                .description("Tells whether the venue is free on a date.")
                .annotations(ToolAnnotations.readOnly())
                .handler((args, ctx) -> ToolResult.text("The venue is free on " + args.date() + "."));
    }

    /**
     * The same one-round tool with a non-blocking handler: it runs on the calling thread, no
     * hand-off to the tool executor (DESIGN.md §4), to show what the hand-off costs.
     */
    public static ToolDefinition<CheckAvailability> checkAvailabilityAsync() {
        return ToolDefinition.tool("check_availability_async", CheckAvailability.class)
                .title("Check venue availability (non-blocking handler)")
                .description("Tells whether the venue is free on a date.")
                .annotations(ToolAnnotations.readOnly())
                .asyncHandler((args, ctx) -> java.util.concurrent.CompletableFuture.completedFuture(
                        ToolResult.text("The venue is free on " + args.date() + ".")));
    }

    public static ToolDefinition<CreateInvoice> createInvoice() {
        return ToolDefinition.tool("create_invoice", CreateInvoice.class)
                .title("Create an invoice")
                .description("Creates an invoice; asks for the currency.")
                .handler((args, ctx) -> {
                    ElicitAnswer answer = ctx.elicit("currency", currencyQuestion(args.client()));
                    if (!(answer instanceof ElicitAnswer.Accepted accepted)) {
                        return ToolResult.text("No invoice created for " + args.client() + ".");
                    }
                    String currency = accepted.string("currency");
                    String id = "INV-" + ctx.randomUuid().toString().substring(0, 8);
                    String number = ctx.step("issue", String.class, () -> id);
                    return ToolResult.text("Invoice " + number + " for " + args.client() + ": " + args.amount() + " "
                            + currency + ".");
                });
    }

    /**
     * One event row into {@code event_journal}, as pekko-persistence-jdbc writes it: persistence id,
     * sequence number, writer, timestamp, payload, serializer id and manifest.
     */
    static final String PLAIN_JOURNAL_INSERT = "INSERT INTO \"event_journal\" (\"deleted\", \"persistence_id\", "
            + "\"sequence_number\", \"writer\", \"write_timestamp\", \"adapter_manifest\", \"event_payload\", "
            + "\"event_ser_id\", \"event_ser_manifest\") VALUES (false, ?, ?, ?, ?, '', ?, ?, ?)";

    /** The invoice tools' one question. */
    static Elicitation.Form currencyQuestion(String client) {
        return Elicitation.form("Which currency should the invoice for " + client + " use?")
                .field("currency", FormField.choice("Currency", CURRENCIES).defaultValue("EUR"))
                .build();
    }

    public static McpServerDefinition server() {
        return McpServerDefinition.builder("parley-bench", "0.1.0")
                .tool(checkAvailability())
                .tool(checkAvailabilityAsync())
                .tool(createInvoice())
                .build();
    }

    /**
     * Node configuration for the benchmarks: warnings only, and (when {@code journalParallelism}
     * is a number) {@code jdbc-journal.parallelism}, to compare the shipped setting with another.
     */
    public static com.typesafe.config.Config nodeConfig(String journalParallelism) {
        String config = "pekko.loglevel = \"WARNING\"\n";
        if (journalParallelism != null && journalParallelism.matches("\\d+")) {
            config += "jdbc-journal.parallelism = " + journalParallelism + "\n";
        }
        return com.typesafe.config.ConfigFactory.parseString(config);
    }

    public static ObjectNode object(String json) {
        return (ObjectNode) Json.parse(json);
    }
}
