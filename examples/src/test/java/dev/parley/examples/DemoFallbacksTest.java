package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.testkit.Round;
import dev.parley.testkit.ToolTestKit;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every demo tool that asks has a fallback for a client that cannot be asked: it says what to
 * supply and how, and writes nothing to the ledger; the arguments that carry the answer up
 * front finish the job in one round.
 */
class DemoFallbacksTest {
    private static final String NO_ELICITATION = "{}";
    private static final String FORM_ONLY = "{\"elicitation\":{\"form\":{}}}";

    @TempDir
    Path data;

    private DemoLedger ledger;
    private DemoTools tools;

    @BeforeEach
    void setUp() {
        ledger = new DemoLedger(data);
        tools = new DemoTools(ledger, () -> "http://127.0.0.1:8080");
    }

    private ToolTestKit kit(String tool, String capabilities) {
        return ToolTestKit.of(tools.definition(), tool).capabilities(capabilities);
    }

    @Test
    void scheduleReleaseSaysToPassAWindowAndAWindowFinishesInOneRound() {
        try (ToolTestKit kit = kit("schedule_release", NO_ELICITATION)) {
            assertEquals(
                    "No release scheduled for billing: this client cannot show a form. Call schedule_release again "
                            + "with a window argument, e.g. \"window\": \"2026-12-01T09:00:00Z\".",
                    kit.call(Map.of("service", "billing")).text());
            assertTrue(ledger.entries().isEmpty());

            Round done = kit.call(Map.of("service", "billing", "window", "2026-12-01T09:00:00Z"));
            assertTrue(
                    done.text().matches("Release REL-\\w{8} of billing scheduled for 2026-12-01T09:00:00Z\\."),
                    done.text());
            assertEquals(1, kit.rounds());
            assertEquals(1, ledger.entriesWith("release", 1, "billing").size());
        }
    }

    @Test
    void createInvoiceSaysToPassACurrencyAndACurrencyFinishesInOneRound() {
        try (ToolTestKit kit = kit("create_invoice", NO_ELICITATION)) {
            assertEquals(
                    "No invoice created for ACME: this client cannot show a form. Call create_invoice again with a "
                            + "currency argument: EUR, USD, GBP or CHF.",
                    kit.call(Map.of("client", "ACME", "amount", 120)).text());
            assertTrue(ledger.entries().isEmpty());

            Round done = kit.call(Map.of("client", "ACME", "amount", 120, "currency", "CHF"));
            assertTrue(done.text().endsWith(" for ACME: 120.0 CHF."), done.text());
            assertEquals(1, kit.rounds());
        }
    }

    @Test
    void bookVenueOffersTheNextFreeDatesThenThePaymentLinkThenBooksWithThePaidDeposit() {
        try (ToolTestKit kit = kit("book_venue", NO_ELICITATION)) {
            assertEquals(
                    "Nothing booked: 2026-12-24 is taken and this client cannot show a form. The next free dates are "
                            + "2026-12-25, 2026-12-26, 2026-12-27; call book_venue again with one of them.",
                    kit.call(Map.of("date", "2026-12-24", "guests", 40)).text());

            String payment =
                    kit.call(Map.of("date", "2026-12-25", "guests", 40)).text();
            var link = java.util.regex.Pattern.compile(
                            "Nothing booked yet: this client cannot open a web page for the user\\. Pay the 200 EUR "
                                    + "deposit for 2026-12-25 at http://127\\.0\\.0\\.1:8080/pay/([0-9a-f-]{36}), then "
                                    + "call book_venue again with date 2026-12-25, 40 guests and deposit \\1\\.")
                    .matcher(payment);
            assertTrue(link.matches(), payment);
            assertTrue(ledger.entries().isEmpty());

            String deposit = link.group(1);
            ledger.append("deposit", "paid-" + deposit, deposit); // what the payment page writes
            Round booked = kit.call(Map.of("date", "2026-12-25", "guests", 40, "deposit", deposit));
            assertTrue(
                    booked.text().startsWith("Booked 2026-12-25 for 40 guests (BKG-" + deposit.substring(0, 8)),
                    booked.text());
            assertEquals(1, kit.rounds());

            Round again = kit.call(Map.of("date", "2026-12-26", "guests", 10, "deposit", deposit));
            assertTrue(again.isError(), again.text());
            assertEquals(
                    1,
                    ledger.entriesWith("booking", 0, "BKG-" + deposit.substring(0, 8))
                            .size());
        }
    }

    @Test
    void bookVenueForAFormOnlyClientAsksTheDateThenGivesThePaymentLink() {
        try (ToolTestKit kit = kit("book_venue", FORM_ONLY)) {
            kit.call(Map.of("date", "2026-12-24", "guests", 40));
            String text =
                    kit.answer("alternative_date", Map.of("date", "2026-12-27")).text();
            assertTrue(
                    text.startsWith("Nothing booked yet: this client cannot open a web page for the user. Pay the "
                            + "200 EUR deposit for 2026-12-27 at http://127.0.0.1:8080/pay/"),
                    text);
            assertTrue(kit.tookFallback("deposit_1"));
            assertTrue(ledger.entries().isEmpty());
        }
    }

    @Test
    void publishReportSaysToPassAChannelAndAChannelFinishesInOneRound() {
        try (ToolTestKit kit = kit("publish_report", NO_ELICITATION)) {
            Round round = kit.call(Map.of("title", "Q3"));
            assertTrue(
                    round.text()
                            .equals(
                                    "Report \"Q3\" not published: this client cannot show a form. Call "
                                            + "publish_report again with a channel argument (intranet or website) to approve it."),
                    round.text());
            assertTrue(ledger.entries().isEmpty());

            Round done = kit.call(Map.of("title", "Q3", "channel", "website"));
            assertTrue(done.text().startsWith("Published \"Q3\" (RPT-"), done.text());
            assertTrue(done.text().endsWith(" on the website."), done.text());
        }
    }
}
