package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertResult;
import static dev.parley.testing.McpAssertions.assertTaskCreated;
import static dev.parley.testing.McpAssertions.awaitTaskStatus;
import static dev.parley.testing.McpTestClient.accept;
import static dev.parley.testing.McpTestClient.answer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpAssertions;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seed scenarios of DESIGN §9, driven to their end over HTTP against the demo server. */
class DemoServerTest {
    /** What the payment page's form sends: a test card number. */
    static final String TEST_CARD = "card=4242424242424242";

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static DemoLedger ledger;

    @BeforeAll
    static void start() {
        server = Launcher.startDemo(0, data);
        client = new McpTestClient(server.port());
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
        assertEquals(
                "elicitation/create", question.path("method").asText(), () -> "asks " + key + ": " + inputRequired);
        return question.path("params");
    }

    // --- discovery --------------------------------------------------------------------------

    @Test
    void demoServerListsItsTools() {
        ObjectNode request = client.request("tools/list", null, "{}");
        JsonNode result = assertResult(client.send(request), request, "ListToolsResult");
        List<String> names = new ArrayList<>();
        result.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
        assertEquals(
                List.of("schedule_release", "create_invoice", "book_venue", "check_availability", "publish_report"),
                names);

        ObjectNode discover = client.request("server/discover", null, "{}");
        JsonNode discovered = assertResult(client.send(discover), discover, "DiscoverResult");
        assertEquals(
                "parley-demo",
                discovered
                        .path("_meta")
                        .path("io.modelcontextprotocol/serverInfo")
                        .path("name")
                        .asText());
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
        assertEquals(
                "date-time",
                window.path("requestedSchema")
                        .path("properties")
                        .path("window")
                        .path("format")
                        .asText());

        ObjectNode retry = client.retry(
                request,
                asked.get("requestState").asText(),
                accept("window", Json.object().put("window", "2026-09-01T08:00:00Z")));
        JsonNode result = assertCompleted(client.send(retry), retry);
        assertTrue(
                text(result).matches("Release REL-[0-9a-f]+ of billing scheduled for 2026-09-01T08:00:00Z\\."),
                () -> "result: " + result);

        ObjectNode again = client.retry(
                request,
                asked.get("requestState").asText(),
                accept("window", Json.object().put("window", "2026-09-01T08:00:00Z")));
        assertEquals(result, assertCompleted(client.send(again), again), "a repeated retry gets the same result");
        List<String> written = newLines(before);
        assertEquals(1, written.size(), () -> "ledger lines: " + written);
        assertTrue(
                written.get(0).startsWith("release REL-") && written.get(0).endsWith(" billing 2026-09-01T08:00:00Z"),
                () -> "ledger line: " + written);
    }

    @Test
    void aServiceNameCannotForgeABookingInTheLedger() {
        String hostile = "x\nbooking BKG-evil 2027-06-01 5 ";
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall("schedule_release", Json.object().put("service", hostile));
        JsonNode asked = assertInputRequired(client.send(request), request);
        ObjectNode retry = client.retry(
                request,
                asked.get("requestState").asText(),
                accept("window", Json.object().put("window", "2026-10-01T08:00:00Z")));
        assertCompleted(client.send(retry), retry);

        DemoLedger.Entry written = ledger.entries().get(ledger.entries().size() - 1);
        assertEquals("release", written.kind());
        assertEquals(hostile, written.fields().get(1), "the service name is one field, as sent");
        assertEquals(before.size() + 1, ledger.lines().size(), () -> "one entry: " + ledger.lines());
        ObjectNode check = client.toolCall("check_availability", Json.object().put("date", "2027-06-01"));
        assertEquals("The venue is free on 2027-06-01.", text(assertCompleted(client.send(check), check)));
    }

    @Test
    void aClientNameThatIsNotUnicodeIsRefusedBeforeTheInvoiceIsWritten() {
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall(
                "create_invoice", Json.object().put("client", "@@").put("amount", 5));
        McpTestClient.Reply reply = client.post(
                Json.write(request).replace("\"@@\"", "\"\\ud800-x\""), McpTestClient.standardHeaders(request));
        assertEquals(400, reply.status(), reply::body);
        assertEquals(-32602, reply.errorCode(), reply::body);
        ObjectNode infinite = client.toolCall(
                "create_invoice", Json.object().put("client", "ACME").put("amount", "@@"));
        McpTestClient.Reply refused =
                client.post(Json.write(infinite).replace("\"@@\"", "1e309"), McpTestClient.standardHeaders(infinite));
        assertEquals(-32602, refused.errorCode(), refused::body);
        assertEquals(before, ledger.lines());
    }

    @Test
    void scheduleReleaseRefusesAWindowThatIsNotADateTime() {
        ObjectNode request = client.toolCall("schedule_release", Json.object().put("service", "search"));
        JsonNode asked = assertInputRequired(client.send(request), request);
        ObjectNode retry = client.retry(
                request,
                asked.get("requestState").asText(),
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
        ObjectNode request = client.toolCall(
                "create_invoice", Json.object().put("client", "ACME").put("amount", 120.5));
        JsonNode asked = assertInputRequired(client.send(request), request);
        JsonNode currency = question(asked, "currency")
                .path("requestedSchema")
                .path("properties")
                .path("currency");
        assertEquals(Json.parse("[\"EUR\",\"USD\",\"GBP\",\"CHF\"]"), currency.path("enum"));
        assertEquals("EUR", currency.path("default").asText());

        ObjectNode wrong = client.retry(
                request,
                asked.get("requestState").asText(),
                accept("currency", Json.object().put("currency", "XYZ")));
        assertError(client.send(wrong), 200, -32602, wrong);

        ObjectNode retry = client.retry(
                request,
                asked.get("requestState").asText(),
                accept("currency", Json.object().put("currency", "CHF")));
        JsonNode result = assertCompleted(client.send(retry), retry);
        assertTrue(text(result).matches("Invoice INV-[0-9a-f]{8} for ACME: 120\\.5 CHF\\."), () -> "result: " + result);
        String invoice = text(result).substring("Invoice ".length(), "Invoice ".length() + 12);
        assertEquals(List.of("invoice " + invoice + " ACME 120.5 CHF"), newLines(before));
    }

    @Test
    void cancelledCurrencyQuestionEndsWithAClearMessageAndIssuesNothing() {
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall(
                "create_invoice", Json.object().put("client", "Initech").put("amount", 10));
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
        ObjectNode request = client.toolCall(
                "book_venue", Json.object().put("date", "2026-12-24").put("guests", 40));

        // Round 1: the date is taken; another date is offered with a default.
        JsonNode taken = assertInputRequired(client.send(request), request);
        JsonNode dateField = question(taken, "alternative_date")
                .path("requestedSchema")
                .path("properties")
                .path("date");
        assertEquals("date", dateField.path("format").asText());
        assertEquals("2026-12-25", dateField.path("default").asText());

        // Round 2: the default is accepted; the deposit goes to the payment page (URL mode).
        ObjectNode alternative = client.retry(
                request,
                taken.get("requestState").asText(),
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
        ObjectNode notPaidYet =
                client.retry(request, deposit.get("requestState").asText(), accept("deposit_1", null));
        JsonNode askedAgain = assertInputRequired(client.send(notPaidYet), notPaidYet);
        assertEquals(
                paymentPage.toString(),
                question(askedAgain, "deposit_2").path("url").asText());
        assertFalse(
                newLines(before).stream().anyMatch(line -> line.startsWith("booking ")),
                "nothing booked before paying");

        // The user pays on the page, out of band; the client retries and the booking completes.
        Reply paid = client.postForm(paymentPage, DemoServerTest.TEST_CARD);
        assertEquals(200, paid.status());
        assertTrue(paid.body().contains("Deposit paid"), () -> "page: " + paid.body());
        ObjectNode afterPaying =
                client.retry(request, askedAgain.get("requestState").asText(), accept("deposit_2", null));
        JsonNode booked = assertCompleted(client.send(afterPaying), afterPaying);
        assertTrue(
                text(booked)
                        .matches(
                                "Booked 2026-12-25 for 40 guests \\(BKG-[0-9a-f]{8}\\); contract written, deposit received\\."),
                () -> "result: " + booked);

        ObjectNode again = client.retry(request, askedAgain.get("requestState").asText(), accept("deposit_2", null));
        assertEquals(booked, assertCompleted(client.send(again), again), "a repeated retry gets the same result");
        assertEquals(bookingLines(depositId, "2026-12-25 40"), newLines(before));
    }

    /** The ledger lines of one booking, in order: the deposit, the contract's parts, the booking. */
    static List<String> bookingLines(String depositId, String dateAndGuests) {
        String bookingId = "BKG-" + depositId.substring(0, 8);
        return List.of(
                "deposit " + depositId,
                "contract " + bookingId + " part 1 of 3",
                "contract " + bookingId + " part 2 of 3",
                "contract " + bookingId + " part 3 of 3",
                "booking " + bookingId + " " + dateAndGuests);
    }

    @Test
    void cancelledDateQuestionEndsWithAClearMessageAndBooksNothing() {
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall(
                "book_venue", Json.object().put("date", "2026-12-31").put("guests", 12));
        JsonNode taken = assertInputRequired(client.send(request), request);
        ObjectNode retry =
                client.retry(request, taken.get("requestState").asText(), answer("alternative_date", "cancel"));
        JsonNode result = assertCompleted(client.send(retry), retry);
        assertEquals("Nothing booked: the date question was cancelled.", text(result));
        assertEquals(List.of(), newLines(before));
    }

    @Test
    void declinedDepositEndsWithAClearMessageAndBooksNothing() {
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall(
                "book_venue", Json.object().put("date", "2027-03-10").put("guests", 8));
        JsonNode deposit = assertInputRequired(client.send(request), request);
        assertEquals("url", question(deposit, "deposit_1").path("mode").asText());
        ObjectNode retry = client.retry(request, deposit.get("requestState").asText(), answer("deposit_1", "decline"));
        JsonNode result = assertCompleted(client.send(retry), retry);
        assertEquals("Nothing booked: the deposit request was declined.", text(result));
        assertEquals(List.of(), newLines(before));
    }

    @Test
    void bookVenueForAClientWithoutUrlElicitationGetsThePaymentLinkAndBooksNothing() {
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall(
                "book_venue", Json.object().put("date", "2027-04-01").put("guests", 2), McpTestClient.FORM_ONLY);
        JsonNode result = assertCompleted(client.send(request), request);
        assertTrue(
                text(result)
                        .matches("Nothing booked yet: this client cannot open a web page for the user\\. Pay the "
                                + "200 EUR deposit for 2027-04-01 at http://127\\.0\\.0\\.1:\\d+/pay/([0-9a-f-]{36}), then "
                                + "call book_venue again with date 2027-04-01, 2 guests and deposit \\1\\."),
                () -> "result: " + result);
        assertEquals(List.of(), newLines(before));
    }

    @Test
    void aTasksCapableClientWithoutElicitationGetsPublishReportsFallbackInsteadOfATask() {
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall(
                "publish_report",
                Json.object().put("title", "Q4"),
                "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}");
        JsonNode result = assertCompleted(client.send(request), request);
        assertEquals(
                "Report \"Q4\" not published: this client cannot show a form. Call publish_report again with a "
                        + "channel argument (intranet or website) to approve it.",
                text(result));
        assertFalse(result.has("task"), () -> "result: " + result);
        assertEquals(List.of(), newLines(before));
    }

    // --- tasks (io.modelcontextprotocol/tasks): book_venue's contract, publish_report -------

    private static final Duration TASK_LIMIT = Duration.ofSeconds(30);

    /** Asks book_venue for {@code date} with the tasks extension declared and pays the deposit; returns the paid round's retry. */
    private static ObjectNode bookWithTasksAndPay(ObjectNode request) {
        JsonNode deposit = assertInputRequired(client.send(request), request);
        URI paymentPage = URI.create(question(deposit, "deposit_1").path("url").asText());
        assertEquals(200, client.postForm(paymentPage, DemoServerTest.TEST_CARD).status());
        return client.retry(request, deposit.get("requestState").asText(), accept("deposit_1", null));
    }

    /** The deposit just paid: the newest deposit line of the ledger. */
    private static String lastDepositId() {
        List<String> deposits = ledger.lines().stream()
                .filter(line -> line.startsWith("deposit "))
                .toList();
        return deposits.get(deposits.size() - 1).substring("deposit ".length());
    }

    @Test
    void bookVenueWithTheTasksExtensionAsksForTheDepositSynchronouslyThenWritesTheContractAsATaskWithProgress() {
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall(
                "book_venue", Json.object().put("date", "2027-07-03").put("guests", 25), McpTestClient.WITH_TASKS);
        // The deposit round is MRTR, answered synchronously; the task starts after it (spec §3.1).
        ObjectNode paid = bookWithTasksAndPay(request);
        String depositId = lastDepositId();

        JsonNode created = assertTaskCreated(client.send(paid), paid);
        assertEquals("working", created.path("status").asText());
        String taskId = created.path("taskId").asText();

        Set<String> progress = new LinkedHashSet<>();
        JsonNode done =
                awaitTaskStatus(client, taskId, Set.of("completed", "failed", "cancelled"), TASK_LIMIT, progress);
        assertEquals("completed", done.path("status").asText(), () -> "task: " + done);
        assertTrue(
                progress.stream().anyMatch(message -> message.startsWith("Writing contract, part ")),
                () -> "the contract's progress shows as statusMessage while working: " + progress);
        JsonNode result = done.path("result");
        assertFalse(result.path("isError").asBoolean(false), () -> "result: " + result);
        assertEquals(
                "Booked 2027-07-03 for 25 guests (BKG-" + depositId.substring(0, 8)
                        + "); contract written, deposit received.",
                text(result));
        assertEquals(bookingLines(depositId, "2027-07-03 25"), newLines(before));

        ObjectNode getAgain = client.taskRequest("tasks/get", taskId);
        assertEquals(
                done.path("result"),
                McpAssertions.assertTaskView(client.send(getAgain), getAgain, taskId)
                        .path("result"),
                "tasks/get is a pure read: the same result again");
        ObjectNode retryAgain =
                client.retry(request, paid.path("params").path("requestState").asText(), accept("deposit_1", null));
        JsonNode sameTask = assertTaskCreated(client.send(retryAgain), retryAgain);
        assertEquals(
                taskId,
                sameTask.path("taskId").asText(),
                "a repeated retry of the handed-over round names the same task");
        ObjectNode withoutTasks =
                client.retry(request, paid.path("params").path("requestState").asText(), accept("deposit_1", null));
        ((ObjectNode) withoutTasks.path("params").path("_meta"))
                .set("io.modelcontextprotocol/clientCapabilities", Json.parse(McpTestClient.ALL_ELICITATION));
        assertError(client.send(withoutTasks), 400, -32021, withoutTasks);
        assertEquals(bookingLines(depositId, "2027-07-03 25"), newLines(before), "nothing ran twice");
    }

    @Test
    void cancelledBookVenueTaskEndsCancelledAndBooksNothing() throws InterruptedException {
        List<String> before = ledger.lines();
        ObjectNode request = client.toolCall(
                "book_venue", Json.object().put("date", "2027-07-10").put("guests", 9), McpTestClient.WITH_TASKS);
        ObjectNode paid = bookWithTasksAndPay(request);
        String taskId =
                assertTaskCreated(client.send(paid), paid).path("taskId").asText();

        ObjectNode cancel = client.taskRequest("tasks/cancel", taskId);
        JsonNode ack = assertResult(client.send(cancel), cancel, "Result");
        assertEquals("complete", ack.path("resultType").asText());
        JsonNode cancelled =
                awaitTaskStatus(client, taskId, Set.of("completed", "failed", "cancelled"), TASK_LIMIT, null);
        assertEquals("cancelled", cancelled.path("status").asText(), () -> "task: " + cancelled);

        // The contract would take 1.5 s; wait longer than that, then look: the run stopped.
        Thread.sleep(CONTRACT_TIME_MILLIS + 1000);
        List<String> written = newLines(before);
        assertTrue(written.stream().noneMatch(line -> line.startsWith("booking ")), () -> "nothing booked: " + written);
        assertTrue(
                written.stream().filter(line -> line.startsWith("contract ")).count() < 3,
                () -> "the contract was not finished: " + written);
    }

    private static final long CONTRACT_TIME_MILLIS =
            DemoTools.CONTRACT_PART_TIME.toMillis() * DemoTools.CONTRACT_PARTS.size();

    @Test
    void publishReportAsATaskDraftsAsksForApprovalThroughTasksUpdateAndPublishesOnce() {
        List<String> before = ledger.lines();
        ObjectNode request =
                client.toolCall("publish_report", Json.object().put("title", "Q3 numbers"), McpTestClient.WITH_TASKS);
        JsonNode created = assertTaskCreated(client.send(request), request);
        String taskId = created.path("taskId").asText();

        Set<String> progress = new LinkedHashSet<>();
        JsonNode waiting = awaitTaskStatus(
                client, taskId, Set.of("input_required", "completed", "failed", "cancelled"), TASK_LIMIT, progress);
        assertEquals("input_required", waiting.path("status").asText(), () -> "task: " + waiting);
        assertTrue(progress.contains("Drafting \"Q3 numbers\""), () -> "status messages while drafting: " + progress);
        JsonNode approval = waiting.path("inputRequests").path("approval");
        assertEquals("elicitation/create", approval.path("method").asText(), () -> "task: " + waiting);
        assertEquals("form", approval.path("params").path("mode").asText());
        assertEquals(
                Json.parse("[\"intranet\",\"website\"]"),
                approval.path("params")
                        .path("requestedSchema")
                        .path("properties")
                        .path("channel")
                        .path("enum"));
        assertEquals(List.of(), newLines(before), "nothing published before the approval");

        ObjectNode invalid =
                client.taskUpdate(taskId, accept("approval", Json.object().put("channel", "billboard")));
        assertError(client.send(invalid), 200, -32602, invalid);

        ObjectNode update =
                client.taskUpdate(taskId, accept("approval", Json.object().put("channel", "website")));
        JsonNode ack = assertResult(client.send(update), update, "Result");
        assertEquals("complete", ack.path("resultType").asText());

        JsonNode done = awaitTaskStatus(client, taskId, Set.of("completed", "failed", "cancelled"), TASK_LIMIT, null);
        assertEquals("completed", done.path("status").asText(), () -> "task: " + done);
        String text = text(done.path("result"));
        assertTrue(
                text.matches("Published \"Q3 numbers\" \\(RPT-[0-9a-f]{8}, 5 pages\\) on the website\\."),
                () -> "result: " + text);
        String report = text.substring(text.indexOf("RPT-"), text.indexOf("RPT-") + 12);

        ObjectNode updateAgain =
                client.taskUpdate(taskId, accept("approval", Json.object().put("channel", "intranet")));
        assertResult(client.send(updateAgain), updateAgain, "Result");
        assertEquals(
                List.of("report " + report + " website Q3 numbers"),
                newLines(before),
                "published once; an answer to a task that ended changes nothing");
    }

    @Test
    void declinedReportApprovalEndsTheTaskCompletedWithAClearMessageAndPublishesNothing() {
        List<String> before = ledger.lines();
        ObjectNode request =
                client.toolCall("publish_report", Json.object().put("title", "Draft ideas"), McpTestClient.WITH_TASKS);
        String taskId =
                assertTaskCreated(client.send(request), request).path("taskId").asText();
        awaitTaskStatus(client, taskId, Set.of("input_required"), TASK_LIMIT, null);
        ObjectNode update = client.taskUpdate(taskId, answer("approval", "decline"));
        assertResult(client.send(update), update, "Result");
        JsonNode done = awaitTaskStatus(client, taskId, Set.of("completed", "failed", "cancelled"), TASK_LIMIT, null);
        assertEquals(
                "completed", done.path("status").asText(), () -> "a declined question is a normal ending: " + done);
        assertEquals("Report \"Draft ideas\" not published: the approval was declined.", text(done.path("result")));
        assertEquals(List.of(), newLines(before));
    }

    @Test
    void publishReportWithoutTheTasksExtensionAsksForApprovalOverMrtrAndPublishesOnce() {
        List<String> before = ledger.lines();
        ObjectNode request =
                client.toolCall("publish_report", Json.object().put("title", "Roadmap"), McpTestClient.FORM_ONLY);
        JsonNode asked = assertInputRequired(client.send(request), request);
        assertEquals("form", question(asked, "approval").path("mode").asText());
        ObjectNode retry = client.retry(
                request,
                asked.get("requestState").asText(),
                accept("approval", Json.object().put("channel", "intranet")));
        JsonNode result = assertCompleted(client.send(retry), retry);
        assertTrue(
                text(result).matches("Published \"Roadmap\" \\(RPT-[0-9a-f]{8}, 2 pages\\) on the intranet\\."),
                () -> "result: " + result);
        List<String> written = newLines(before);
        assertEquals(1, written.size(), () -> "ledger: " + written);
        assertTrue(written.get(0).matches("report RPT-[0-9a-f]{8} intranet Roadmap"), () -> "ledger: " + written);
    }

    @Test
    void taskRequestsFromAClientWithoutTheTasksExtensionAreMissingRequiredClientCapability() {
        ObjectNode get =
                client.request("tasks/get", Json.object().put("taskId", "00000000-0000-0000-0000-000000000000"));
        JsonNode error = assertError(client.send(get), 400, -32021, get);
        assertTrue(
                error.path("data")
                        .path("requiredCapabilities")
                        .path("extensions")
                        .has("io.modelcontextprotocol/tasks"),
                () -> "error: " + error);
        ObjectNode unknown = client.taskRequest("tasks/get", "00000000-0000-0000-0000-000000000000");
        assertError(client.send(unknown), 200, -32602, unknown);
    }

    @Test
    void paymentPageOfAnUnknownDepositIsNotFound() {
        URI page = client.endpoint().resolve("/pay/not-a-deposit");
        assertEquals(404, client.get(page).status());
    }
}
