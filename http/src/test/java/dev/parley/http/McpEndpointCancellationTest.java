package dev.parley.http;

import static dev.parley.http.StreamAssertions.assertEndsWithResult;
import static dev.parley.http.StreamAssertions.assertEventStream;
import static dev.parley.http.StreamAssertions.assertNotification;
import static dev.parley.http.StreamAssertions.withMethod;
import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cancellation over HTTP (spec §6.1): the client closing a request's SSE stream cancels the
 * request; the handler sees {@code ctx.isCancelled()} or an interrupt. Handlers that block hold
 * only their own requests. Every wait is bounded;
 * a waiting tool gives up on its own after {@link FeatureTools#LONGEST_WAIT}.
 */
class McpEndpointCancellationTest {
    /** How long a test waits for the server to notice that the client went away. */
    private static final long NOTICE_SECONDS = 20;

    @TempDir
    static Path data;

    private static FeatureTools tools;
    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        tools = new FeatureTools();
        server = FeatureTools.start(tools, data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ObjectNode waitCall(String tool, String signal, boolean heartbeat, Object progressToken) {
        ObjectNode request =
                client.toolCall(tool, Json.object().put("signal", signal).put("heartbeat", heartbeat));
        ((ObjectNode) request.path("params").path("_meta")).set("progressToken", Json.tree(progressToken));
        return request;
    }

    private static void awaitLatch(CountDownLatch latch, String what) throws InterruptedException {
        assertTrue(latch.await(NOTICE_SECONDS, TimeUnit.SECONDS), what + " within " + NOTICE_SECONDS + " s");
    }

    private static void assertCancelled(FeatureTools.Signal signal) throws InterruptedException {
        awaitLatch(signal.cancelled, "the handler sees its cancellation");
        assertTrue(List.of("flag", "interrupt").contains(signal.how.get()), () -> "seen as " + signal.how.get());
    }

    /** The server still answers an ordinary request. */
    private static void assertStillServing() {
        ObjectNode request = client.toolCall("count_up", Json.object().put("steps", 1));
        assertCompleted(client.send(request), request);
    }

    @Test
    void closingTheStreamAfterTheFirstProgressEventCancelsTheHandler() throws Exception {
        String name = "close-after-progress";
        FeatureTools.Signal signal = tools.signal(name);
        try (SseConnection stream = SseConnection.open(server.port(), waitCall("wait_for_cancel", name, true, "c1"))) {
            assertEventStream(stream);
            JsonNode first = stream.nextMessage();
            assertEquals(
                    "c1",
                    assertNotification(first, "notifications/progress")
                            .path("progressToken")
                            .asText());
            awaitLatch(signal.started, "the handler is waiting");
        }
        assertCancelled(signal);
        assertStillServing();
    }

    @Test
    void closingTheStreamCancelsAHandlerThatSendsNothingWhileItWaits() throws Exception {
        String name = "close-quiet";
        FeatureTools.Signal signal = tools.signal(name);
        try (SseConnection stream = SseConnection.open(server.port(), waitCall("wait_for_cancel", name, false, 7))) {
            assertEventStream(stream);
            assertNotification(stream.nextMessage(), "notifications/progress");
            awaitLatch(signal.started, "the handler is waiting");
        }
        assertCancelled(signal);
        assertStillServing();
    }

    @Test
    void aHandlerThatIsNotCancelledRunsToItsResponse() throws Exception {
        String name = "released";
        FeatureTools.Signal signal = tools.signal(name);
        ObjectNode request = waitCall("wait_for_cancel", name, true, "r1");
        try (SseConnection stream = SseConnection.open(server.port(), request)) {
            assertNotification(stream.nextMessage(), "notifications/progress");
            awaitLatch(signal.started, "the handler is waiting");
            signal.release.countDown();
            JsonNode result = assertEndsWithResult(stream.readToEnd(), request, "CallToolResult");
            assertTrue(
                    result.path("content").path(0).path("text").asText().startsWith("released"),
                    () -> "result: " + result);
            assertTrue(stream.ended(), "the response ends the stream");
            assertEquals(1, signal.cancelled.getCount(), "never cancelled");
        }
    }

    @Test
    void manyCancelledCallsLeaveTheServerServing() throws Exception {
        for (int i = 0; i < 10; i++) {
            String name = "many-" + i;
            FeatureTools.Signal signal = tools.signal(name);
            try (SseConnection stream = SseConnection.open(server.port(), waitCall("wait_for_cancel", name, true, i))) {
                assertNotification(stream.nextMessage(), "notifications/progress");
                awaitLatch(signal.started, "the handler is waiting");
            }
            assertCancelled(signal);
        }
        assertStillServing();
    }

    // --- blocked first rounds -------------------------------------------------------------

    /**
     * A blocking handler's first round that waits for nothing but its answer runs on the request's
     * own thread, one of Pekko's dispatcher threads, as a managed block. Blocked handlers hold only
     * their own requests: with many more blocked than the node has dispatcher threads (one per
     * core) and than may block them (the tool executor's 16; the rest go to the tool executor),
     * the server answers everything else.
     */
    @Test
    void manyBlockedFirstRoundsLeaveTheServerServingAndEachGetsItsAnswer() throws Exception {
        int blocked = 20;
        List<FeatureTools.Signal> signals = new ArrayList<>();
        List<CompletableFuture<McpTestClient.Reply>> replies = new ArrayList<>();
        for (int i = 0; i < blocked; i++) {
            signals.add(tools.signal("blocked-" + i));
            // no progress token: the request waits for its answer alone
            ObjectNode call = client.toolCall(
                    "wait_for_cancel",
                    Json.object().put("signal", "blocked-" + i).put("heartbeat", false));
            replies.add(client.sendAsync(call));
        }
        assertServedWhileAllBlockThenEachAnswered(signals, replies);
    }

    /**
     * A call's later round runs in its entity, posted to the dispatcher as a managed block. Many
     * blocked at once hold only their own requests, as blocked first rounds do.
     */
    @Test
    void manyBlockedSecondRoundsLeaveTheServerServingAndEachGetsItsAnswer() throws Exception {
        int blocked = 20;
        List<FeatureTools.Signal> signals = new ArrayList<>();
        List<CompletableFuture<McpTestClient.Reply>> replies = new ArrayList<>();
        for (int i = 0; i < blocked; i++) {
            signals.add(tools.signal("second-blocked-" + i));
            ObjectNode original = waitCall("ask_then_wait", "second-blocked-" + i, false, "unused");
            ((ObjectNode) original.path("params").path("_meta")).remove("progressToken");
            ObjectNode retry = client.retry(original, firstRound(original), go());
            ((ObjectNode) retry.path("params").path("_meta")).remove("progressToken");
            replies.add(client.sendAsync(retry));
        }
        assertServedWhileAllBlockThenEachAnswered(signals, replies);
    }

    /** All {@code signals}' handlers run at once; the server answers others meanwhile; released, each request gets its answer. */
    private static void assertServedWhileAllBlockThenEachAnswered(
            List<FeatureTools.Signal> signals, List<CompletableFuture<McpTestClient.Reply>> replies) throws Exception {
        for (FeatureTools.Signal signal : signals) {
            awaitLatch(signal.started, "every handler runs at once");
        }

        assertStillServing();
        McpTestClient.Reply discover = client.send(client.request("server/discover", null));
        assertEquals(
                "complete", discover.json().path("result").path("resultType").asText(), discover::body);
        assertTrue(replies.stream().noneMatch(CompletableFuture::isDone), "the blocked requests still wait");

        signals.forEach(signal -> signal.release.countDown());
        for (CompletableFuture<McpTestClient.Reply> reply : replies) {
            assertEquals(
                    "released after 1 run(s)",
                    reply.get(NOTICE_SECONDS, TimeUnit.SECONDS).text());
        }
    }

    // --- a cancelled second round ----------------------------------------------------------

    /** Round one of {@code ask_then_wait}: answers input_required; returns the requestState. */
    private static String firstRound(ObjectNode request) {
        return assertInputRequired(client.send(request), request)
                .get("requestState")
                .asText();
    }

    private static ObjectNode go() {
        return accept("go", Json.object().put("ok", true));
    }

    @Test
    void cancelledSecondRoundLeavesTheCallConsistentForALaterRetry() throws Exception {
        String name = "second-round";
        FeatureTools.Signal signal = tools.signal(name);
        ObjectNode original = waitCall("ask_then_wait", name, true, "round-one");
        ((ObjectNode) original.path("params").path("_meta")).remove("progressToken");
        String state = firstRound(original);

        ObjectNode retry = client.retry(original, state, go());
        ((ObjectNode) retry.path("params").path("_meta")).put("progressToken", "round-two");
        try (SseConnection stream = SseConnection.open(server.port(), retry)) {
            assertEventStream(stream);
            awaitLatch(signal.started, "round two runs");
        }
        // Whether or not the round saw its cancellation, it must end; let it go if it did not.
        signal.release.countDown();

        ObjectNode later = client.retry(original, state, go());
        JsonNode result = assertCompleted(client.send(later), later);
        assertTrue(result.path("content").path(0).path("text").isTextual(), () -> "a proper answer: " + result);
        ObjectNode again = client.retry(original, state, go());
        assertEquals(result, assertCompleted(client.send(again), again), "the same answer on every later retry");
    }

    @Test
    void closingTheStreamOfARetryCancelsItsRound() throws Exception {
        String name = "retry-cancel";
        FeatureTools.Signal signal = tools.signal(name);
        ObjectNode original = waitCall("ask_then_wait", name, true, "unused");
        ((ObjectNode) original.path("params").path("_meta")).remove("progressToken");
        String state = firstRound(original);

        ObjectNode retry = client.retry(original, state, go());
        ((ObjectNode) retry.path("params").path("_meta")).put("progressToken", "retry-cancel");
        try (SseConnection stream = SseConnection.open(server.port(), retry)) {
            assertEventStream(stream);
            awaitLatch(signal.started, "round two runs");
        }
        try {
            assertCancelled(signal);
        } finally {
            signal.release.countDown();
        }
    }

    @Test
    void progressOfARetryRoundIsStreamedToTheRetry() {
        String name = "retry-progress";
        FeatureTools.Signal signal = tools.signal(name);
        signal.release.countDown(); // round two finishes at once
        ObjectNode original = waitCall("ask_then_wait", name, false, "unused");
        ((ObjectNode) original.path("params").path("_meta")).remove("progressToken");
        String state = firstRound(original);

        ObjectNode retry = client.retry(original, state, go());
        ((ObjectNode) retry.path("params").path("_meta")).put("progressToken", "retry-progress");
        try (SseConnection stream = SseConnection.open(server.port(), retry)) {
            assertEventStream(stream);
            List<JsonNode> messages = stream.readToEnd();
            assertEndsWithResult(messages, retry, "CallToolResult");
            List<JsonNode> progress = withMethod(messages, "notifications/progress");
            assertTrue(!progress.isEmpty(), () -> "round two's progress is streamed: " + messages);
            assertEquals(
                    "retry-progress",
                    progress.get(0).path("params").path("progressToken").asText());
        }
    }
}
