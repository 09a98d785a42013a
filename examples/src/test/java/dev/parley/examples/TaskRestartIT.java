package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertResult;
import static dev.parley.testing.McpAssertions.assertTaskCreated;
import static dev.parley.testing.McpAssertions.assertTaskView;
import static dev.parley.testing.McpAssertions.awaitTaskStatus;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks ({@code io.modelcontextprotocol/tasks}) survive a SIGKILL of the runnable jar: a task
 * that was {@code working} goes on by itself in the next process on the same data directory,
 * found by the task resumer's scan of the journal, before any client asks for it, and no
 * journaled step runs twice; a task waiting for input keeps its questions. Every side effect is a
 * line in the demo ledger, so "exactly once" is checked on that file. Runs in the
 * {@code integration-test} phase, after the shaded jar is built.
 */
class TaskRestartIT {
    /** How long a resumed task may take to finish (bounded wait, not a speed claim). */
    private static final Duration RESUME_LIMIT = Duration.ofSeconds(60);

    private static final Duration TASK_LIMIT = Duration.ofSeconds(30);
    private static final Set<String> ENDED = Set.of("completed", "failed", "cancelled");

    @TempDir
    Path data;

    private final List<DemoProcess> processes = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        processes.forEach(DemoProcess::kill);
    }

    private DemoProcess start() {
        DemoProcess process = DemoProcess.start(data, List.of());
        processes.add(process);
        return process;
    }

    private static void killWithSigkill(DemoProcess process) {
        process.kill();
        assertEquals(128 + 9, process.exitValue(), "the process died of SIGKILL");
    }

    @Test
    void aTaskThatWasWorkingWhenTheServerWasKilledGoesOnByItselfAfterRestartAndRepeatsNoStep() {
        DemoLedger ledger = new DemoLedger(data);
        DemoProcess first = start();
        McpTestClient client = new McpTestClient(first.port());

        // book_venue with the tasks extension: the deposit round is synchronous (MRTR), then the
        // contract is written as a task, one journaled step per part.
        ObjectNode request = client.toolCall(
                "book_venue", Json.object().put("date", "2027-08-14").put("guests", 60), McpTestClient.WITH_TASKS);
        JsonNode deposit = assertInputRequired(client.send(request), request);
        URI paymentPage = URI.create(deposit.path("inputRequests")
                .path("deposit_1")
                .path("params")
                .path("url")
                .asText());
        String depositId = paymentPage.getPath().substring("/pay/".length());
        String bookingId = "BKG-" + depositId.substring(0, 8);
        assertEquals(200, client.postForm(paymentPage, DemoServerTest.TEST_CARD).status());
        ObjectNode paid = client.retry(request, deposit.get("requestState").asText(), accept("deposit_1", null));
        String taskId =
                assertTaskCreated(client.send(paid), paid).path("taskId").asText();

        // Kill it while it writes part 2: part 1 is journaled (its progress message comes after the
        // step returned), part 2 is not yet.
        awaitStatusMessage(client, taskId, "Writing contract, part 2 of 3");
        killWithSigkill(first);
        assertEquals(
                List.of("deposit " + depositId, "contract " + bookingId + " part 1 of 3"),
                ledger.lines(),
                "the process died while the task was working on part 2");

        // A new process on the same data directory. Nobody asks about the task: it resumes by itself.
        DemoProcess second = start();
        long bookedAfterNanos = awaitLedgerLine(ledger, "booking " + bookingId + " ", second);
        System.out.printf(
                "TaskRestartIT: the killed task finished by itself %d ms after the new process was ready%n",
                TimeUnit.NANOSECONDS.toMillis(bookedAfterNanos));

        client = new McpTestClient(second.port());
        JsonNode done = awaitTaskStatus(client, taskId, ENDED, TASK_LIMIT, null);
        assertEquals("completed", done.path("status").asText(), () -> "task: " + done);
        assertEquals(
                "Booked 2027-08-14 for 60 guests (" + bookingId + "); contract written, deposit received.",
                done.path("result").path("content").path(0).path("text").asText());
        assertEquals(
                DemoServerTest.bookingLines(depositId, "2027-08-14 60"),
                ledger.lines(),
                "every journaled step ran exactly once across the kill");
        killWithSigkill(second);
    }

    @Test
    void aTaskWaitingForInputKeepsItsQuestionsAcrossAKillAndCompletesWhenAnsweredAfterRestart() {
        DemoLedger ledger = new DemoLedger(data);
        DemoProcess first = start();
        McpTestClient client = new McpTestClient(first.port());

        ObjectNode request = client.toolCall(
                "publish_report", Json.object().put("title", "Annual report"), McpTestClient.WITH_TASKS);
        JsonNode created = assertTaskCreated(client.send(request), request);
        String taskId = created.path("taskId").asText();
        JsonNode waiting = awaitTaskStatus(
                client, taskId, Set.of("input_required", "completed", "failed", "cancelled"), TASK_LIMIT, null);
        assertEquals("input_required", waiting.path("status").asText(), () -> "task: " + waiting);
        JsonNode questions = waiting.path("inputRequests");
        assertTrue(questions.has("approval"), () -> "asks for approval: " + waiting);

        killWithSigkill(first);
        assertEquals(List.of(), ledger.lines(), "nothing published before the approval");

        DemoProcess second = start();
        client = new McpTestClient(second.port());
        ObjectNode get = client.taskRequest("tasks/get", taskId);
        JsonNode afterRestart = assertTaskView(client.send(get), get, taskId);
        assertEquals("input_required", afterRestart.path("status").asText(), () -> "task: " + afterRestart);
        assertEquals(questions, afterRestart.path("inputRequests"), "the same questions after the restart");
        assertEquals(created.path("createdAt"), afterRestart.path("createdAt"), "the same task");

        ObjectNode update =
                client.taskUpdate(taskId, accept("approval", Json.object().put("channel", "website")));
        assertEquals(
                "complete",
                assertResult(client.send(update), update, "Result")
                        .path("resultType")
                        .asText());
        JsonNode done = awaitTaskStatus(client, taskId, ENDED, TASK_LIMIT, null);
        assertEquals("completed", done.path("status").asText(), () -> "task: " + done);
        String text = done.path("result").path("content").path(0).path("text").asText();
        assertTrue(
                text.matches("Published \"Annual report\" \\(RPT-[0-9a-f]{8}, 8 pages\\) on the website\\."),
                () -> "result: " + text);
        String report = text.substring(text.indexOf("RPT-"), text.indexOf("RPT-") + 12);
        assertEquals(List.of("report " + report + " website Annual report"), ledger.lines());

        // And once more: the ended task, with its result, outlives another kill.
        killWithSigkill(second);
        DemoProcess third = start();
        client = new McpTestClient(third.port());
        ObjectNode getAgain = client.taskRequest("tasks/get", taskId);
        assertEquals(
                done.path("result"),
                assertTaskView(client.send(getAgain), getAgain, taskId).path("result"));
        assertEquals(List.of("report " + report + " website Annual report"), ledger.lines());
        killWithSigkill(third);
    }

    /** Polls tasks/get (bounded) until the working task reports {@code message} as its status. */
    private static void awaitStatusMessage(McpTestClient client, String taskId, String messagePrefix) {
        long deadline = System.nanoTime() + TASK_LIMIT.toNanos();
        JsonNode task = null;
        while (System.nanoTime() < deadline) {
            ObjectNode get = client.taskRequest("tasks/get", taskId);
            task = assertTaskView(client.send(get), get, taskId);
            assertFalse(
                    ENDED.contains(task.path("status").asText()), "the task ended before it could be killed: " + task);
            if (task.path("statusMessage").asText("").startsWith(messagePrefix)) {
                return;
            }
            pause(20);
        }
        fail("no status message '" + messagePrefix + "' within " + TASK_LIMIT + "; last seen: " + task);
    }

    /**
     * Watches the ledger file, without sending any request, until a line starts with {@code prefix};
     * returns how long after {@code process} was ready that was (bounded by {@link #RESUME_LIMIT}).
     */
    private static long awaitLedgerLine(DemoLedger ledger, String prefix, DemoProcess process) {
        long deadline = System.nanoTime() + RESUME_LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (ledger.lines().stream().anyMatch(line -> line.startsWith(prefix))) {
                return System.nanoTime() - process.readyAtNanos();
            }
            pause(50);
        }
        return fail("no ledger line '" + prefix + "' within " + RESUME_LIMIT + " and no request sent; ledger: "
                + ledger.lines() + "\nserver output:\n" + process.output());
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
    }
}
