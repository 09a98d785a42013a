package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable jar, killed with SIGKILL while calls wait for answers: a new process on the same
 * data directory takes the old {@code requestState}s, finishes every call, and no side effect in
 * the demo ledger happens twice. Runs in the {@code integration-test} phase, after the shaded
 * jar is built.
 */
class DemoRestartIT {
    @TempDir
    Path data;

    private final List<DemoProcess> processes = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        processes.forEach(DemoProcess::kill);
    }

    @Test
    void callsWaitingForAnswersCompleteAfterTheServerWasKilledAndNoEffectRepeats() {
        // --- first process: three calls reach their first question -----------------------------
        DemoProcess first = start();
        McpTestClient client = new McpTestClient(first.port());

        ObjectNode release = client.toolCall("schedule_release", Json.object().put("service", "checkout"));
        String releaseState = assertInputRequired(client.send(release), release)
                .get("requestState")
                .asText();

        ObjectNode invoice = client.toolCall(
                "create_invoice", Json.object().put("client", "Globex").put("amount", 99));
        String invoiceState = assertInputRequired(client.send(invoice), invoice)
                .get("requestState")
                .asText();

        // book_venue takes a deposit id (ctx.randomUuid(), from the call's journaled seed) before it asks for the
        // deposit.
        ObjectNode venue = client.toolCall(
                "book_venue", Json.object().put("date", "2027-05-20").put("guests", 30));
        JsonNode depositAsked = assertInputRequired(client.send(venue), venue);
        String depositId = depositId(depositAsked, "deposit_1");

        first.kill();
        assertEquals(128 + 9, first.exitValue(), "the first process died of SIGKILL");
        assertEquals(List.of(), new DemoLedger(data).lines(), "nothing happened before the answers");

        // --- second process, same data directory: the old states finish the calls --------------
        DemoProcess second = start();
        client = new McpTestClient(second.port());

        ObjectNode releaseRetry = client.retry(
                release, releaseState, accept("window", Json.object().put("window", "2027-01-15T06:30:00Z")));
        JsonNode released = assertCompleted(client.send(releaseRetry), releaseRetry);
        assertTrue(
                text(released).endsWith(" of checkout scheduled for 2027-01-15T06:30:00Z."),
                () -> "result: " + released);

        ObjectNode invoiceRetry = client.retry(
                invoice, invoiceState, accept("currency", Json.object().put("currency", "GBP")));
        JsonNode invoiced = assertCompleted(client.send(invoiceRetry), invoiceRetry);
        assertTrue(
                text(invoiced).matches("Invoice INV-[0-9a-f]{8} for Globex: 99\\.0 GBP\\."),
                () -> "result: " + invoiced);

        // Not paid yet: asked again, for the same deposit id (the journaled UUID survived the kill).
        // The page now lives on the new process's port, so the question itself changed: depending on
        // that, it comes back under its old key (a changed question is asked again) or a new one.
        ObjectNode notPaid =
                client.retry(venue, depositAsked.get("requestState").asText(), accept("deposit_1", null));
        JsonNode askedAgain = assertInputRequired(client.send(notPaid), notPaid);
        String key = onlyKey(askedAgain);
        assertEquals(depositId, depositId(askedAgain, key), "the deposit id was journaled before the kill");
        URI paymentPage = URI.create(askedAgain
                .path("inputRequests")
                .path(key)
                .path("params")
                .path("url")
                .asText());
        assertEquals(second.port(), paymentPage.getPort(), "the page is served by the running process");
        assertEquals(200, client.postForm(paymentPage, DemoServerTest.TEST_CARD).status());
        ObjectNode paid = client.retry(venue, askedAgain.get("requestState").asText(), accept(key, null));
        JsonNode booked = assertCompleted(client.send(paid), paid);
        assertTrue(
                text(booked).startsWith("Booked 2027-05-20 for 30 guests (BKG-" + depositId.substring(0, 8) + ")"),
                () -> "result: " + booked);

        second.kill();
        assertEquals(128 + 9, second.exitValue(), "the second process died of SIGKILL");

        // --- third process: retries of completed rounds get the recorded results ---------------
        DemoProcess third = start();
        client = new McpTestClient(third.port());
        ObjectNode releaseAgain = client.retry(
                release, releaseState, accept("window", Json.object().put("window", "2027-01-15T06:30:00Z")));
        assertEquals(released, assertCompleted(client.send(releaseAgain), releaseAgain));
        ObjectNode invoiceAgain = client.retry(
                invoice, invoiceState, accept("currency", Json.object().put("currency", "GBP")));
        assertEquals(invoiced, assertCompleted(client.send(invoiceAgain), invoiceAgain));
        ObjectNode paidAgain =
                client.retry(venue, askedAgain.get("requestState").asText(), accept(key, null));
        assertEquals(booked, assertCompleted(client.send(paidAgain), paidAgain));
        third.kill();

        // --- every effect exactly once ---------------------------------------------------------
        List<String> ledger = new DemoLedger(data).lines();
        String invoiceNumber = text(invoiced).substring("Invoice ".length(), "Invoice ".length() + 12);
        String releaseTicket =
                text(released).substring("Release ".length(), text(released).indexOf(" of "));
        assertEquals(
                List.of(
                        "release " + releaseTicket + " checkout 2027-01-15T06:30:00Z",
                        "invoice " + invoiceNumber + " Globex 99.0 GBP",
                        "deposit " + depositId,
                        "contract BKG-" + depositId.substring(0, 8) + " part 1 of 3",
                        "contract BKG-" + depositId.substring(0, 8) + " part 2 of 3",
                        "contract BKG-" + depositId.substring(0, 8) + " part 3 of 3",
                        "booking BKG-" + depositId.substring(0, 8) + " 2027-05-20 30"),
                ledger);
    }

    private static String text(JsonNode result) {
        return result.path("content").path(0).path("text").asText();
    }

    private static String onlyKey(JsonNode inputRequired) {
        List<String> keys = new ArrayList<>();
        inputRequired.path("inputRequests").fieldNames().forEachRemaining(keys::add);
        assertEquals(1, keys.size(), () -> "one question: " + inputRequired);
        return keys.get(0);
    }

    /** The deposit id in the payment-page URL of question {@code key}. */
    private static String depositId(JsonNode inputRequired, String key) {
        JsonNode params = inputRequired.path("inputRequests").path(key).path("params");
        assertEquals("url", params.path("mode").asText(), () -> key + " is a URL question: " + inputRequired);
        String path = URI.create(params.path("url").asText()).getPath();
        assertTrue(path.matches("/pay/[0-9a-f-]{36}"), () -> "payment page path: " + path);
        return path.substring("/pay/".length());
    }

    /** {@code java -jar parley.jar demo --port 0 --data <data>}, killed after the test if still alive. */
    private DemoProcess start() {
        DemoProcess process = DemoProcess.start(data, List.of());
        processes.add(process);
        return process;
    }
}
