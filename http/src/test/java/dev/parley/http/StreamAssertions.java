package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.SpecSchema;
import java.util.List;

/**
 * Checks on what the server sent on an event stream: each SSE event's data is one JSON-RPC
 * message, valid against the MCP 2026-07-28 schema (notifications against their own
 * definition, the final response against its result definition).
 */
final class StreamAssertions {
    static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

    private StreamAssertions() {}

    /** The response head of an SSE reply: 200, {@code text/event-stream}, not buffered by proxies. */
    static void assertEventStream(SseConnection stream) {
        assertEquals(200, stream.status(), "HTTP status");
        assertTrue(stream.isEventStream(), () -> "text/event-stream, was " + stream.contentType());
        assertEquals("no", stream.header("X-Accel-Buffering"), "X-Accel-Buffering");
    }

    /** A valid server notification of {@code method}; returns its params (possibly missing). */
    static JsonNode assertNotification(JsonNode message, String method) {
        assertNotNull(message, "a message");
        assertEquals(method, message.path("method").asText(), () -> "method of " + message);
        assertTrue(!message.has("id"), () -> "a notification has no id: " + message);
        SpecSchema.assertValid("JSONRPCNotification", message);
        SpecSchema.assertValid("ServerNotification", message);
        SpecSchema.assertValid(notificationDefinition(method), message);
        return message.path("params");
    }

    /** A valid listen-stream notification of {@code method} tagged with the listen request's id. */
    static JsonNode assertTagged(JsonNode message, String method, ObjectNode listenRequest) {
        JsonNode params = assertNotification(message, method);
        assertEquals(
                Json.write(listenRequest.get("id")),
                Json.write(params.path("_meta").get(SUBSCRIPTION_ID)),
                () -> "subscriptionId of " + message);
        return params;
    }

    /** A valid JSON-RPC result response to {@code request} whose result is a {@code definition}. */
    static JsonNode assertResultMessage(JsonNode message, ObjectNode request, String definition) {
        SpecSchema.assertValidResultResponse(definition, message);
        assertEquals(
                Json.write(request.get("id")), Json.write(message.get("id")), "the response echoes the request id");
        return message.get("result");
    }

    /**
     * A stream that carried notifications and then, last, the response: every message valid,
     * exactly one response (the last), and nothing after it. Returns the response's result.
     */
    static JsonNode assertEndsWithResult(List<JsonNode> messages, ObjectNode request, String definition) {
        assertTrue(!messages.isEmpty(), "at least the response");
        for (JsonNode message : messages.subList(0, messages.size() - 1)) {
            assertNotification(message, message.path("method").asText());
        }
        return assertResultMessage(messages.get(messages.size() - 1), request, definition);
    }

    /** The notifications of {@code method} among {@code messages}. */
    static List<JsonNode> withMethod(List<JsonNode> messages, String method) {
        return messages.stream()
                .filter(m -> method.equals(m.path("method").asText()))
                .toList();
    }

    private static String notificationDefinition(String method) {
        return switch (method) {
            case "notifications/progress" -> "ProgressNotification";
            case "notifications/message" -> "LoggingMessageNotification";
            case "notifications/subscriptions/acknowledged" -> "SubscriptionsAcknowledgedNotification";
            case "notifications/tools/list_changed" -> "ToolListChangedNotification";
            case "notifications/prompts/list_changed" -> "PromptListChangedNotification";
            case "notifications/resources/list_changed" -> "ResourceListChangedNotification";
            case "notifications/resources/updated" -> "ResourceUpdatedNotification";
            case "notifications/cancelled" -> "CancelledNotification";
            default -> throw new AssertionError("not a server notification of 2026-07-28: " + method);
        };
    }
}
