package dev.parley.http;

import static dev.parley.http.StreamAssertions.assertEventStream;
import static dev.parley.http.StreamAssertions.assertNotification;
import static dev.parley.http.StreamAssertions.assertTagged;
import static dev.parley.testing.McpAssertions.assertResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Content;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.ResourceContents;
import dev.parley.runtime.ResourceDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.SpecSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code subscriptions/listen} over HTTP (spec §5.5): a long-lived {@code text/event-stream}
 * whose first event acknowledges the honoured filter, then only the requested notifications,
 * each tagged with the listen request's id; keep-alive comments while idle; closing it ends it.
 *
 * <p>Changes reach a stream asynchronously (pub-sub, then a broadcast hub). Before a test makes
 * the change it asserts on, it waits until the stream is attached: it announces an update of
 * the stream's own sync resource until the stream receives one (a bounded poll).
 */
class McpEndpointSubscriptionTest {
    private static final Duration ATTACH_TIMEOUT = Duration.ofSeconds(20);
    private static final AtomicInteger SYNC = new AtomicInteger();

    @TempDir
    static Path data;

    private static McpServerDefinition definition;
    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        FeatureTools tools = new FeatureTools();
        definition = tools.definition();
        server = FeatureTools.start(tools, data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** An open listen stream, its request, and the resource it syncs on. */
    private record Listening(ObjectNode request, SseConnection stream, String syncUri) implements AutoCloseable {
        /** The next message that is not a (possibly repeated) sync update. */
        JsonNode next() {
            while (true) {
                JsonNode message = stream.nextMessage();
                if (!isSync(message)) {
                    return message;
                }
            }
        }

        boolean isSync(JsonNode message) {
            return "notifications/resources/updated"
                            .equals(message.path("method").asText())
                    && syncUri.equals(message.path("params").path("uri").asText());
        }

        @Override
        public void close() {
            stream.close();
        }
    }

    private static ObjectNode listenRequest(ObjectNode filter) {
        ObjectNode params = Json.object();
        params.set("notifications", filter);
        return client.request("subscriptions/listen", params, "{}");
    }

    private static ObjectNode filter(String json) {
        return McpTestClient.object(json);
    }

    /** Opens a listen stream, checks its acknowledgement, and waits until changes reach it. */
    private static Listening listen(ObjectNode filter) {
        String syncUri = "test://sync/" + SYNC.incrementAndGet();
        ObjectNode withSync = filter.deepCopy();
        (withSync.has("resourceSubscriptions")
                        ? (ArrayNode) withSync.get("resourceSubscriptions")
                        : withSync.putArray("resourceSubscriptions"))
                .add(syncUri);
        ObjectNode request = listenRequest(withSync);
        SseConnection stream = SseConnection.open(server.port(), request);
        Listening listening = new Listening(request, stream, syncUri);
        try {
            assertEventStream(stream);
            JsonNode ack = assertTagged(stream.nextMessage(), "notifications/subscriptions/acknowledged", request);
            assertEquals(withSync, ack.path("notifications"), "every requested member is honoured");
            awaitAttached(listening);
            return listening;
        } catch (RuntimeException | Error e) {
            stream.close();
            throw e;
        }
    }

    private static void awaitAttached(Listening listening) {
        long deadline = System.nanoTime() + ATTACH_TIMEOUT.toNanos();
        while (true) {
            definition.resourceUpdated(listening.syncUri());
            JsonNode message = listening.stream().pollMessage(Duration.ofMillis(250));
            if (message != null) {
                assertTrue(listening.isSync(message), () -> "only the sync update so far, got " + message);
                assertTagged(message, "notifications/resources/updated", listening.request());
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the listen stream did not receive its sync update within " + ATTACH_TIMEOUT);
            }
        }
    }

    private static ToolDefinition<ObjectNode> tool(String name) {
        return ToolDefinition.tool(name, Json.object().put("type", "object"))
                .description("Added at runtime.")
                .handler((args, ctx) -> ToolResult.text(name));
    }

    private static PromptDefinition prompt(String name) {
        return PromptDefinition.prompt(name)
                .handler((args, ctx) -> PromptDefinition.Result.of(PromptDefinition.Message.user(Content.text(name))));
    }

    private static ResourceDefinition resource(String uri) {
        return ResourceDefinition.resource(uri, "runtime")
                .handler((request, ctx) -> List.of(ResourceContents.text(uri, "text/plain", "added")));
    }

    private static List<String> toolNames() {
        List<String> names = new ArrayList<>();
        String cursor = null;
        do {
            ObjectNode params = Json.object();
            if (cursor != null) {
                params.put("cursor", cursor);
            }
            ObjectNode request = client.request("tools/list", params);
            JsonNode result = assertResult(client.send(request), request, "ListToolsResult");
            result.path("tools").forEach(tool -> names.add(tool.path("name").asText()));
            cursor = result.path("nextCursor").asText(null);
        } while (cursor != null);
        return names;
    }

    // --- the acknowledgement -----------------------------------------------------------------

    @Test
    void listenIsAnEventStreamThatFirstAcknowledgesOnlyTheHonouredFilterMembers() {
        ObjectNode request = listenRequest(filter("""
        {"toolsListChanged":true,"promptsListChanged":false,"resourcesListChanged":true,
         "resourceSubscriptions":["test://fixed/a"]}"""));
        try (SseConnection stream = SseConnection.open(server.port(), request)) {
            assertEventStream(stream);
            JsonNode params = assertTagged(stream.nextMessage(), "notifications/subscriptions/acknowledged", request);
            assertEquals(filter("""
          {"toolsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://fixed/a"]}"""), params.path("notifications"), "false members are left out");
        }
    }

    @Test
    void subscriptionIdIsTheListenRequestsIdAsSent() {
        ObjectNode request = listenRequest(filter("{\"promptsListChanged\":true}"));
        request.put("id", "listen-by-name");
        try (SseConnection stream = SseConnection.open(server.port(), request)) {
            JsonNode params = assertTagged(stream.nextMessage(), "notifications/subscriptions/acknowledged", request);
            assertEquals(
                    "listen-by-name",
                    params.path("_meta").path(StreamAssertions.SUBSCRIPTION_ID).asText());
        }
    }

    @Test
    void emptyFilterIsAcknowledgedWithAnEmptySubset() {
        ObjectNode request = listenRequest(Json.object());
        try (SseConnection stream = SseConnection.open(server.port(), request)) {
            JsonNode params = assertTagged(stream.nextMessage(), "notifications/subscriptions/acknowledged", request);
            assertEquals(Json.object(), params.path("notifications"));
        }
    }

    @Test
    void emptyResourceSubscriptionsAreLeftOutOfTheAcknowledgement() {
        ObjectNode request = listenRequest(filter("{\"resourceSubscriptions\":[]}"));
        try (SseConnection stream = SseConnection.open(server.port(), request)) {
            JsonNode params = assertTagged(stream.nextMessage(), "notifications/subscriptions/acknowledged", request);
            assertEquals(Json.object(), params.path("notifications"));
        }
    }

    @Test
    void resourceSubscriptionsThatAreNotStringsAreNeverEchoedIntoAnInvalidAcknowledgement() {
        ObjectNode request =
                listenRequest(filter("{\"resourceSubscriptions\":[\"test://fixed/a\",5,{\"uri\":\"x\"}]}"));
        try (SseConnection stream = SseConnection.open(server.port(), request)) {
            if (stream.isEventStream()) {
                assertTagged(stream.nextMessage(), "notifications/subscriptions/acknowledged", request);
            } else {
                JsonNode error = Json.parse(stream.readBody(SseConnection.EVENT_TIMEOUT));
                SpecSchema.assertValidErrorResponse("InvalidParamsError", error);
            }
        }
    }

    // --- list changes -------------------------------------------------------------------------

    @Test
    void addingAToolNotifiesOnlyTheStreamsThatAskedForToolChanges() {
        try (Listening toolsStream = listen(filter("{\"toolsListChanged\":true}"));
                Listening promptsStream = listen(filter("{\"promptsListChanged\":true}"))) {
            definition.addTool(tool("added_at_runtime"));
            assertTagged(toolsStream.next(), "notifications/tools/list_changed", toolsStream.request());
            assertTrue(toolNames().contains("added_at_runtime"), "tools/list shows the new tool");

            // Changes reach each stream in order: had the tools change reached the prompts stream,
            // it would come before this prompts change.
            definition.addPrompt(prompt("added_for_order"));
            assertTagged(promptsStream.next(), "notifications/prompts/list_changed", promptsStream.request());

            assertTrue(definition.removeTool("added_at_runtime"));
            assertTagged(toolsStream.next(), "notifications/tools/list_changed", toolsStream.request());
            assertFalse(toolNames().contains("added_at_runtime"), "tools/list no longer shows it");
            assertTrue(definition.removePrompt("added_for_order"));
            assertTagged(promptsStream.next(), "notifications/prompts/list_changed", promptsStream.request());
        }
    }

    @Test
    void removingAPromptNotifiesPromptsListChanged() {
        definition.addPrompt(prompt("short_lived"));
        try (Listening stream =
                listen(filter("{\"promptsListChanged\":true,\"resourceSubscriptions\":[\"test://marker/1\"]}"))) {
            assertTrue(definition.removePrompt("short_lived"));
            assertTagged(stream.next(), "notifications/prompts/list_changed", stream.request());

            // Removing what is not there changes nothing and announces nothing.
            assertFalse(definition.removePrompt("short_lived"));
            definition.resourceUpdated("test://marker/1");
            JsonNode next = assertTagged(stream.next(), "notifications/resources/updated", stream.request());
            assertEquals("test://marker/1", next.path("uri").asText());
        }
    }

    @Test
    void addingAndRemovingAResourceNotifiesResourcesListChanged() {
        try (Listening stream = listen(filter("{\"resourcesListChanged\":true}"))) {
            definition.addResource(resource("test://runtime/r1"));
            assertTagged(stream.next(), "notifications/resources/list_changed", stream.request());
            assertTrue(definition.removeResource("test://runtime/r1"));
            assertTagged(stream.next(), "notifications/resources/list_changed", stream.request());
        }
    }

    @Test
    void everyConcurrentSubscriptionGetsTheChangeTaggedWithItsOwnId() {
        try (Listening first = listen(filter("{\"toolsListChanged\":true}"));
                Listening second = listen(filter("{\"toolsListChanged\":true}"))) {
            definition.addTool(tool("seen_twice"));
            assertTagged(first.next(), "notifications/tools/list_changed", first.request());
            assertTagged(second.next(), "notifications/tools/list_changed", second.request());
            definition.removeTool("seen_twice");
        }
    }

    // --- resource updates ---------------------------------------------------------------------

    @Test
    void resourceUpdatedReachesOnlyTheStreamsSubscribedToThatUri() {
        try (Listening onA = listen(filter("{\"resourceSubscriptions\":[\"test://fixed/a\"]}"));
                Listening onB = listen(filter("{\"resourceSubscriptions\":[\"test://fixed/b\"]}"))) {
            definition.resourceUpdated("test://fixed/b");
            definition.resourceUpdated("test://fixed/a");

            JsonNode toA = assertTagged(onA.next(), "notifications/resources/updated", onA.request());
            assertEquals("test://fixed/a", toA.path("uri").asText(), "the update of b never reached a's stream");
            JsonNode toB = assertTagged(onB.next(), "notifications/resources/updated", onB.request());
            assertEquals("test://fixed/b", toB.path("uri").asText());

            definition.resourceUpdated("test://fixed/b");
            assertEquals(
                    "test://fixed/b",
                    onB.next().path("params").path("uri").asText(),
                    "the update of a never reached b's stream");
        }
    }

    @Test
    void aStreamThatAskedForListChangesOnlyGetsNoResourceUpdates() {
        try (Listening stream = listen(filter("{\"toolsListChanged\":true}"))) {
            definition.resourceUpdated("test://fixed/a");
            definition.addTool(tool("after_an_update"));
            assertTagged(stream.next(), "notifications/tools/list_changed", stream.request());
            definition.removeTool("after_an_update");
        }
    }

    // --- keep-alive and teardown --------------------------------------------------------------

    @Test
    void idleListenStreamReceivesKeepAliveComments() {
        ObjectNode request = listenRequest(Json.object());
        try (SseConnection stream = SseConnection.open(server.port(), request)) {
            assertNotification(stream.nextMessage(), "notifications/subscriptions/acknowledged");
            assertEquals("keep-alive", stream.nextComment(Duration.ofSeconds(10)));
            assertEquals("keep-alive", stream.nextComment(Duration.ofSeconds(10)));
            assertFalse(stream.ended(), "the stream stays open");
        }
    }

    /**
     * pekko-http notices a closed client connection when it next writes to it, so a closed listen
     * stream ends on the server within a keep-alive interval or two (200 ms here).
     */
    @Test
    void closedListenStreamsEndOnTheServerAndLaterStreamsStillWork() {
        int baseline = streamActors();
        List<SseConnection> open = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                ObjectNode request = listenRequest(filter("{\"toolsListChanged\":true}"));
                SseConnection stream = SseConnection.open(server.port(), request);
                open.add(stream);
                assertTagged(stream.nextMessage(), "notifications/subscriptions/acknowledged", request);
            }
        } finally {
            open.forEach(SseConnection::close);
        }
        awaitStreamActorsAtMost(baseline);

        // Many more cycles, and a burst of changes no stream asked for, break nothing.
        for (int i = 0; i < 30; i++) {
            ObjectNode request = listenRequest(filter("{\"toolsListChanged\":true}"));
            try (SseConnection stream = SseConnection.open(server.port(), request)) {
                assertTagged(stream.nextMessage(), "notifications/subscriptions/acknowledged", request);
            }
        }
        for (int i = 0; i < 600; i++) {
            definition.resourceUpdated("test://noise/" + i);
        }
        try (Listening later = listen(filter("{\"toolsListChanged\":true}"))) {
            definition.addTool(tool("after_teardown"));
            assertTagged(later.next(), "notifications/tools/list_changed", later.request());
            definition.removeTool("after_teardown");
        }
        ObjectNode request = client.request("server/discover", null);
        assertResult(client.send(request), request, "DiscoverResult");
    }

    private static final Pattern STREAM_ACTOR = Pattern.compile("flow-\\d+");

    /** Running stream stages the node's actor tree shows (debugging API, good enough to count). */
    private static int streamActors() {
        Matcher flows = STREAM_ACTOR.matcher(server.node().system().printTree());
        Set<String> distinct = new HashSet<>();
        while (flows.find()) {
            distinct.add(flows.group());
        }
        return distinct.size();
    }

    private static void awaitStreamActorsAtMost(int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        int now = streamActors();
        while (now > count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("closed listen streams still run on the server: " + now + " stream actors, "
                        + count + " before they were opened");
            }
            try {
                Thread.sleep(50); // a bounded poll of server state, not a wait for time to pass
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            now = streamActors();
        }
    }
}
