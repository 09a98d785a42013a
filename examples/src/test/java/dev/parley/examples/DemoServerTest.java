package dev.parley.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.examples.DemoClient.Reply;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.json.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.parley.examples.DemoAssertions.assertCompleted;
import static dev.parley.examples.DemoAssertions.assertError;
import static dev.parley.examples.DemoAssertions.assertInputRequired;
import static dev.parley.examples.DemoAssertions.assertResult;
import static dev.parley.examples.DemoClient.accept;
import static dev.parley.examples.DemoClient.answer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The seed scenarios of DESIGN §9, driven to their end over HTTP against the demo server. */
class DemoServerTest {
  @TempDir
  static Path data;

  private static McpHttpServer server;
  private static DemoClient client;
  private static DemoLedger ledger;

  @BeforeAll
  static void start() {
    server = Launcher.startDemo(0, data);
    client = new DemoClient(server.port());
    ledger = new DemoLedger(data);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** Ledger lines written since {@code before}. */
  private static List<String> newLines(List<String> before) {
    List<String> lines = new ArrayList<>(ledger.lines());
    return lines.subList(before.size(), lines.size());
  }

  private static String text(JsonNode result) {
    return result.path("content").path(0).path("text").asText();
  }

  private static JsonNode question(JsonNode inputRequired, String key) {
    JsonNode question = inputRequired.path("inputRequests").path(key);
    assertEquals("elicitation/create", question.path("method").asText(), () -> "asks " + key + ": " + inputRequired);
    return question.path("params");
  }

  // --- discovery --------------------------------------------------------------------------

  @Test
  void demoServerListsItsTools() {
    ObjectNode request = client.request("tools/list", null, "{}");
    JsonNode result = assertResult(client.send(request), request, "ListToolsResult");
    List<String> names = new ArrayList<>();
    result.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
    assertEquals(List.of("schedule_release", "create_invoice", "book_venue", "check_availability"), names);

    ObjectNode discover = client.request("server/discover", null, "{}");
    JsonNode discovered = assertResult(client.send(discover), discover, "DiscoverResult");
    assertEquals("parley-demo", discovered.path("_meta").path("io.modelcontextprotocol/serverInfo").path("name").asText());
  }

  @Test
  void checkAvailabilityAnswersInOneRoundAndNamesTheNextFreeDate() {
    List<String> before = ledger.lines();
    ObjectNode request = client.toolCall("check_availability", Json.object().put("date", "2026-12-24"));
    JsonNode result = assertCompleted(client.send(request), request);
    assertEquals("The venue is taken on 2026-12-24; the next free date is 2026-12-25.", text(result));
    assertEquals(List.of(), newLines(before), "a read-only tool writes nothing");
  }

  // --- schedule_release: form ------------------------------------------------------------

  @Test
  void scheduleReleaseAsksForAWindowThenSchedulesItOnce() {
    List<String> before = ledger.lines();
    ObjectNode request = client.toolCall("schedule_release", Json.object().put("service", "billing"));
    JsonNode asked = assertInputRequired(client.send(request), request);
    JsonNode window = question(asked, "window");
    assertEquals("form", window.path("mode").asText());
    assertEquals("date-time", window.path("requestedSchema").path("properties").path("window").path("format").asText());

    ObjectNode retry = client.retry(request, asked.get("requestState").asText(),
        accept("window", Json.object().put("window", "2026-09-01T08:00:00Z")));
    JsonNode result = assertCompleted(client.send(retry), retry);
    assertTrue(text(result).matches("Release REL-[0-9a-f]+ of billing scheduled for 2026-09-01T08:00:00Z\\."),
        () -> "result: " + result);

    ObjectNode again = client.retry(request, asked.get("requestState").asText(),
        accept("window", Json.object().put("window", "2026-09-01T08:00:00Z")));
    assertEquals(result, assertCompleted(client.send(again), again), "a repeated retry gets the same result");
    List<String> written = newLines(before);
    assertEquals(1, written.size(), () -> "ledger lines: " + written);
    assertTrue(written.get(0).startsWith("release REL-") && written.get(0).endsWith(" billing 2026-09-01T08:00:00Z"),
        () -> "ledger line: " + written);
  }

  @Test
  void scheduleReleaseRefusesAWindowThatIsNotADateTime() {
    ObjectNode request = client.toolCall("schedule_release", Json.object().put("service", "search"));
    JsonNode asked = assertInputRequired(client.send(request), request);
    ObjectNode retry = client.retry(request, asked.get("requestState").asText(),
        accept("window", Json.object().put("window", "tomorrow morning")));
    assertError(client.send(retry), 200, -32602, retry);
  }

  @Test
  void declinedReleaseWindowEndsWithAClearMessageAndSchedulesNothing() {
    List<String> before = ledger.lines();
    ObjectNode request = client.toolCall("schedule_release", Json.object().put("service", "payments"));
    JsonNode asked = assertInputRequired(client.send(request), request);
    ObjectNode retry = client.retry(request, asked.get("requestState").asText(), answer("window", "decline"));
    JsonNode result = assertCompleted(client.send(retry), retry);
    assertEquals("No release scheduled for payments: the request was declined.", text(result));
    assertEquals(List.of(), newLines(before));
  }

  // --- create_invoice: enum --------------------------------------------------------------

  @Test
  void createInvoiceAsksForTheCurrencyFromAListThenIssuesTheInvoiceOnce() {
    List<String> before = ledger.lines();
    ObjectNode request = client.toolCall("create_invoice", Json.object().put("client", "ACME").put("amount", 120.5));
    JsonNode asked = assertInputRequired(client.send(request), request);
    JsonNode currency = question(asked, "currency").path("requestedSchema").path("properties").path("currency");
    assertEquals(Json.parse("[\"EUR\",\"USD\",\"GBP\",\"CHF\"]"), currency.path("enum"));
    assertEquals("EUR", currency.path("default").asText());

    ObjectNode wrong = client.retry(request, asked.get("requestState").asText(),
        accept("currency", Json.object().put("currency", "XYZ")));
    assertError(client.send(wrong), 200, -32602, wrong);

    ObjectNode retry = client.retry(request, asked.get("requestState").asText(),
        accept("currency", Json.object().put("currency", "CHF")));
    JsonNode result = assertCompleted(client.send(retry), retry);
    assertTrue(text(result).matches("Invoice INV-[0-9a-f]{8} for ACME: 120\\.5 CHF\\."), () -> "result: " + result);
    String invoice = text(result).substring("Invoice ".length(), "Invoice ".length() + 12);
    assertEquals(List.of("invoice " + invoice + " ACME 120.5 CHF"), newLines(before));
  }

  @Test
  void cancelledCurrencyQuestionEndsWithAClearMessageAndIssuesNothing() {
    List<String> before = ledger.lines();
    ObjectNode request = client.toolCall("create_invoice", Json.object().put("client", "Initech").put("amount", 10));
    JsonNode asked = assertInputRequired(client.send(request), request);
    ObjectNode retry = client.retry(request, asked.get("requestState").asText(), answer("currency", "cancel"));
    JsonNode result = assertCompleted(client.send(retry), retry);
    assertEquals("No invoice created for Initech: the request was cancelled.", text(result));
    assertEquals(List.of(), newLines(before));
  }

  // --- book_venue: taken date, form with a default, URL elicitation, payment page ---------

  @Test
  void bookVenueOnATakenDateOffersAnotherDateTakesTheDepositOnThePaymentPageAndBooksOnce() {
    List<String> before = ledger.lines();
    ObjectNode request = client.toolCall("book_venue", Json.object().put("date", "2026-12-24").put("guests", 40));

    // Round 1: the date is taken; another date is offered with a default.
    JsonNode taken = assertInputRequired(client.send(request), request);
    JsonNode dateField = question(taken, "alternative_date").path("requestedSchema").path("properties").path("date");
    assertEquals("date", dateField.path("format").asText());
    assertEquals("2026-12-25", dateField.path("default").asText());

    // Round 2: the default is accepted; the deposit goes to the payment page (URL mode).
    ObjectNode alternative = client.retry(request, taken.get("requestState").asText(),
        accept("alternative_date", Json.object().put("date", "2026-12-25")));
    JsonNode deposit = assertInputRequired(client.send(alternative), alternative);
    JsonNode depositQuestion = question(deposit, "deposit_1");
    assertEquals("url", depositQuestion.path("mode").asText());
    URI paymentPage = URI.create(depositQuestion.path("url").asText());
    assertEquals("127.0.0.1", paymentPage.getHost());
    assertEquals(server.port(), paymentPage.getPort());
    assertTrue(paymentPage.getPath().matches("/pay/[0-9a-f-]{36}"), () -> "payment page: " + paymentPage);
    String depositId = paymentPage.getPath().substring("/pay/".length());

    Reply page = client.get(paymentPage);
    assertEquals(200, page.status());
    assertTrue(page.body().contains("Venue deposit"), () -> "page: " + page.body());

    // The user agreed to open the page but has not paid yet: the server asks again, same page.
    ObjectNode notPaidYet = client.retry(request, deposit.get("requestState").asText(), accept("deposit_1", null));
    JsonNode askedAgain = assertInputRequired(client.send(notPaidYet), notPaidYet);
    assertEquals(paymentPage.toString(), question(askedAgain, "deposit_2").path("url").asText());
    assertFalse(ledger.lines().stream().anyMatch(line -> line.startsWith("booking ")), "nothing booked before paying");

    // The user pays on the page, out of band; the client retries and the booking completes.
    Reply paid = client.submitForm(paymentPage);
    assertEquals(200, paid.status());
    assertTrue(paid.body().contains("Deposit paid"), () -> "page: " + paid.body());
    ObjectNode afterPaying = client.retry(request, askedAgain.get("requestState").asText(), accept("deposit_2", null));
    JsonNode booked = assertCompleted(client.send(afterPaying), afterPaying);
    assertTrue(text(booked).matches("Booked 2026-12-25 for 40 guests \\(BKG-[0-9a-f]{8}\\); contract written, deposit received\\."),
        () -> "result: " + booked);

    ObjectNode again = client.retry(request, askedAgain.get("requestState").asText(), accept("deposit_2", null));
    assertEquals(booked, assertCompleted(client.send(again), again), "a repeated retry gets the same result");
    assertEquals(List.of("deposit " + depositId, "booking BKG-" + depositId.substring(0, 8) + " 2026-12-25 40"),
        newLines(before));
  }

  @Test
  void cancelledDateQuestionEndsWithAClearMessageAndBooksNothing() {
    List<String> before = ledger.lines();
    ObjectNode request = client.toolCall("book_venue", Json.object().put("date", "2026-12-31").put("guests", 12));
    JsonNode taken = assertInputRequired(client.send(request), request);
    ObjectNode retry = client.retry(request, taken.get("requestState").asText(), answer("alternative_date", "cancel"));
    JsonNode result = assertCompleted(client.send(retry), retry);
    assertEquals("Nothing booked: the date question was cancelled.", text(result));
    assertEquals(List.of(), newLines(before));
  }

  @Test
  void declinedDepositEndsWithAClearMessageAndBooksNothing() {
    List<String> before = ledger.lines();
    ObjectNode request = client.toolCall("book_venue", Json.object().put("date", "2027-03-10").put("guests", 8));
    JsonNode deposit = assertInputRequired(client.send(request), request);
    assertEquals("url", question(deposit, "deposit_1").path("mode").asText());
    ObjectNode retry = client.retry(request, deposit.get("requestState").asText(), answer("deposit_1", "decline"));
    JsonNode result = assertCompleted(client.send(retry), retry);
    assertEquals("Nothing booked: the deposit request was declined.", text(result));
    assertEquals(List.of(), newLines(before));
  }

  @Test
  void bookVenueForAClientWithoutUrlElicitationIsMissingRequiredClientCapability() {
    ObjectNode request = client.toolCall("book_venue", Json.object().put("date", "2027-04-01").put("guests", 2),
        DemoClient.FORM_ONLY);
    JsonNode error = assertError(client.send(request), 400, -32021, request);
    assertTrue(error.path("data").path("requiredCapabilities").path("elicitation").has("url"), () -> "error: " + error);
  }

  @Test
  void paymentPageOfAnUnknownDepositIsNotFound() {
    URI page = client.endpoint().resolve("/pay/not-a-deposit");
    assertEquals(404, client.get(page).status());
  }
}
