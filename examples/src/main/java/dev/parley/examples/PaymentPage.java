package dev.parley.examples;

import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The deposit page {@code book_venue} sends the user to (URL-mode elicitation): the card never
 * passes through the MCP client. GET shows the page, POST pays; the payment is a ledger line,
 * which the tool checks when the client retries.
 */
public final class PaymentPage extends AllDirectives {
    private static final Pattern DEPOSIT_ID = Pattern.compile("[0-9a-f-]{36}");

    private final DemoLedger ledger;

    public PaymentPage(DemoLedger ledger) {
        this.ledger = ledger;
    }

    public Route route() {
        return path(PathMatchers.segment("pay").slash(PathMatchers.segment()), depositId -> {
            if (!DEPOSIT_ID.matcher(depositId).matches()) {
                return complete(StatusCodes.NOT_FOUND, "unknown deposit");
            }
            return concat(
                    get(() -> complete(HttpEntities.create(ContentTypes.TEXT_HTML_UTF8, page(depositId)))), post(() -> {
                        // The deposit id is the payment's idempotency key: paying twice records one deposit.
                        ledger.append("deposit", "deposit:" + depositId, depositId);
                        return complete(
                                HttpEntities.create(
                                        ContentTypes.TEXT_HTML_UTF8,
                                        "<!doctype html><title>Deposit paid</title><p>Deposit paid. Return to your assistant to finish the booking.</p>"));
                    }));
        });
    }

    private String page(String depositId) {
        String status = ledger.contains("deposit", depositId) ? "<p>Already paid.</p>" : "";
        return "<!doctype html><title>Venue deposit</title><h1>Venue deposit: 200 EUR</h1>" + status
                + "<form method=post><p>Card number <input name=card autocomplete=cc-number></p>"
                + "<button type=submit>Pay deposit</button></form>";
    }
}
