package dev.parley.actors.internal;

import static dev.parley.actors.internal.NodeDriver.ELICITATION;
import static dev.parley.actors.internal.NodeDriver.toolsCall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.state.RequestStateKey;
import dev.parley.runtime.internal.wire.Discovery.DiscoverResult;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.Notification;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Mrtr.InputRequiredResult;
import dev.parley.runtime.internal.wire.Notifications;
import dev.parley.testing.SpecSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request pipeline with no transport at all: parsed and gated requests in, typed replies out.
 * What each kind of request answers with ({@code Complete}, {@code InputRequired}, {@code Error}
 * and its origin, a stream of notifications that ends in its final reply).
 */
class McpPipelineRepliesTest {
    @TempDir
    static Path dataDirectory;

    private static ParleyNode node;

    @BeforeAll
    static void startNode() {
        node = NodeDriver.start(NodeDriver.configuredJournal(dataDirectory), RequestStateKey.generate());
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void discoverIsACompleteReplyCarryingTheDiscoverResult() throws Exception {
        McpReply.Final reply = handle(request(1, Methods.SERVER_DISCOVER, "{}", ELICITATION));
        DiscoverResult result = (DiscoverResult)
                assertInstanceOf(McpReply.Complete.class, reply).result();
        assertEquals(List.of("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"), result.supportedVersions());
        SpecSchema.assertValidResultResponse("DiscoverResult", Json.tree(reply.response()));
    }

    @Test
    void aQuestionIsAnInputRequiredReplyWithASealedState() throws Exception {
        McpReply.Final reply = handle(McpRequest.from(
                JsonRpc.parse(toolsCall(2, "schedule_release", "{\"service\":\"billing\"}", null, null, ELICITATION)),
                "alice"));
        InputRequiredResult result =
                assertInstanceOf(McpReply.InputRequired.class, reply).result();
        assertEquals(List.of("window"), List.copyOf(result.inputRequests().keySet()));
        assertNotNull(result.requestState());
        SpecSchema.assertValidResultResponse("InputRequiredResult", Json.tree(reply.response()));
    }

    @Test
    void anUnknownMethodIsAnInBandMethodNotFound() throws Exception {
        McpReply.Error error =
                assertInstanceOf(McpReply.Error.class, handle(request(3, "tasks/result", "{}", ELICITATION)));
        assertEquals(ErrorCodes.METHOD_NOT_FOUND, error.error().code());
        assertEquals(McpReply.Origin.IN_BAND, error.origin());
        assertEquals(3, error.id().asInt());
    }

    @Test
    void anUnknownToolIsAnInBandInvalidParams() throws Exception {
        McpReply.Error error = assertInstanceOf(
                McpReply.Error.class,
                handle(McpRequest.from(
                        JsonRpc.parse(toolsCall(4, "no_such_tool", "{}", null, null, ELICITATION)), "alice")));
        assertEquals(ErrorCodes.INVALID_PARAMS, error.error().code());
        assertEquals(McpReply.Origin.IN_BAND, error.origin());
    }

    @Test
    void aRequestWithoutMetaIsRefusedAtTheGateBeforeThePipeline() {
        byte[] body = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{}}"
                .getBytes(StandardCharsets.UTF_8);
        McpException refused = assertThrows(McpException.class, () -> McpRequest.from(JsonRpc.parse(body), "alice"));
        McpReply.Error error = McpReply.Error.atGate(JsonRpc.idOf(body), refused);
        assertEquals(ErrorCodes.INVALID_PARAMS, error.error().code());
        assertEquals(McpReply.Origin.GATE, error.origin());
        assertEquals(5, error.id().asInt());
    }

    @Test
    void aStreamedCallDeliversItsProgressThenEndsInItsFinalReply() throws Exception {
        ObjectNode body = (ObjectNode) Json.parse(
                new String(toolsCall(6, "count_to", "{\"to\":3}", null, null, ELICITATION), StandardCharsets.UTF_8));
        ((ObjectNode) body.path("params").path("_meta")).put("progressToken", "tok-6");
        McpRequest request = McpRequest.from(JsonRpc.parse(Json.write(body).getBytes(StandardCharsets.UTF_8)), "alice");
        McpReply.Stream stream =
                assertInstanceOf(McpReply.Stream.class, node.pipeline().stream(request, new Cancellation()));
        List<Notification> notifications = stream.notifications()
                .runWith(Sink.seq(), Materializer.matFromSystem(node.system()))
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        assertEquals(3, notifications.size());
        for (int i = 0; i < 3; i++) {
            Notifications.Progress progress =
                    (Notifications.Progress) notifications.get(i).params();
            assertEquals(i + 1, progress.progress());
            assertEquals("tok-6", progress.progressToken().asText());
            SpecSchema.assertValid("ProgressNotification", Json.tree(notifications.get(i)));
        }
        McpReply.Final end = stream.end().toCompletableFuture().get(30, TimeUnit.SECONDS);
        JsonNode response =
                Json.tree(assertInstanceOf(McpReply.Complete.class, end).response());
        assertEquals("counted to 3", response.at("/result/content/0/text").asText());
    }

    @Test
    void aListenFilterThatIsNotWellFormedIsRefusedAtTheGate() {
        McpReply reply = node.pipeline().stream(
                request(
                        7,
                        Methods.SUBSCRIPTIONS_LISTEN,
                        "{\"notifications\":{\"resourceSubscriptions\":\"x\"}}",
                        ELICITATION),
                new Cancellation());
        McpReply.Error error = assertInstanceOf(McpReply.Error.class, reply);
        assertEquals(ErrorCodes.INVALID_PARAMS, error.error().code());
        assertEquals(McpReply.Origin.GATE, error.origin());
    }

    private static McpReply.Final handle(McpRequest request) throws Exception {
        return node.pipeline().handle(request).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static McpRequest request(int id, String method, String paramsJson, String capabilitiesJson) {
        ObjectNode body = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        ObjectNode params = (ObjectNode) Json.parse(paramsJson);
        ObjectNode meta = params.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
        meta.set("io.modelcontextprotocol/clientCapabilities", Json.parse(capabilitiesJson));
        body.set("params", params);
        return McpRequest.from(JsonRpc.parse(Json.write(body).getBytes(StandardCharsets.UTF_8)), "alice");
    }
}
