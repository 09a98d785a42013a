package dev.parley.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient.Reply;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Checks on what the server sent: the HTTP status, a JSON body, the echoed id, and the body
 * against the MCP 2026-07-28 JSON Schema (every message the server sends is validated).
 */
public final class McpAssertions {
    private McpAssertions() {}

    /** A 200 JSON-RPC result response to {@code request}, whose result is a valid {@code definition}. */
    public static JsonNode assertResult(Reply reply, ObjectNode request, String definition) {
        assertEquals(200, reply.status(), () -> "HTTP status; body: " + reply.body());
        assertJson(reply);
        JsonNode json = reply.json();
        SpecSchema.assertValidResultResponse(definition, json);
        assertSameId(request, json);
        return json.get("result");
    }

    /** A complete {@code CallToolResult} that is not an error. */
    public static JsonNode assertCompleted(Reply reply, ObjectNode request) {
        JsonNode result = assertResult(reply, request, "CallToolResult");
        assertEquals("complete", result.path("resultType").asText(), () -> "resultType of " + result);
        assertTrue(!result.path("isError").asBoolean(false), () -> "not an error result: " + result);
        return result;
    }

    /** An {@code InputRequiredResult} that carries a requestState. */
    public static JsonNode assertInputRequired(Reply reply, ObjectNode request) {
        JsonNode result = assertResult(reply, request, "InputRequiredResult");
        assertEquals("input_required", result.path("resultType").asText(), () -> "resultType of " + result);
        assertTrue(result.path("requestState").isTextual(), () -> "a requestState in " + result);
        return result;
    }

    /**
     * A flat {@code CreateTaskResult} (tasks extension, spec §3.2): {@code resultType: "task"}, an
     * id, a status, ISO timestamps, {@code ttlMs} and {@code pollIntervalMs}; no requestState, no
     * result, no questions. The extension's shapes are not in the core schema, so they are checked here.
     */
    public static JsonNode assertTaskCreated(Reply reply, ObjectNode request) {
        assertEquals(200, reply.status(), () -> "HTTP status; body: " + reply.body());
        assertJson(reply);
        JsonNode json = reply.json();
        assertSameId(request, json);
        JsonNode result = json.get("result");
        assertNotNull(result, () -> "a result: " + reply.body());
        assertEquals("task", result.path("resultType").asText(), () -> "a CreateTaskResult: " + result);
        assertTaskBasics(result);
        for (String absent : List.of("requestState", "result", "error", "inputRequests", "task")) {
            assertTrue(!result.has(absent), () -> "no " + absent + " in a CreateTaskResult: " + result);
        }
        return result;
    }

    /** A {@code tasks/get} result ({@code DetailedTask}, {@code resultType: "complete"}) for {@code taskId}. */
    public static JsonNode assertTaskView(Reply reply, ObjectNode request, String taskId) {
        assertEquals(200, reply.status(), () -> "HTTP status; body: " + reply.body());
        assertJson(reply);
        JsonNode json = reply.json();
        assertSameId(request, json);
        JsonNode task = json.get("result");
        assertNotNull(task, () -> "a result: " + reply.body());
        assertEquals("complete", task.path("resultType").asText(), () -> "resultType of " + task);
        assertEquals(taskId, task.path("taskId").asText(), () -> "the task asked for: " + task);
        assertTaskBasics(task);
        assertTrue(!task.has("requestState"), () -> "no requestState on a task: " + task);
        String status = task.path("status").asText();
        assertEquals(
                status.equals("input_required"),
                task.has("inputRequests"),
                () -> "inputRequests iff input_required: " + task);
        assertEquals(status.equals("completed"), task.has("result"), () -> "result iff completed: " + task);
        if (status.equals("completed")) {
            SpecSchema.assertValid("CallToolResult", task.get("result"));
        }
        return task;
    }

    private static void assertTaskBasics(JsonNode task) {
        assertTrue(
                task.path("taskId").isTextual() && !task.path("taskId").asText().isEmpty(), () -> "a taskId: " + task);
        assertTrue(
                Set.of("working", "input_required", "completed", "failed", "cancelled")
                        .contains(task.path("status").asText()),
                () -> "a task status: " + task);
        Instant.parse(task.path("createdAt").asText());
        Instant.parse(task.path("lastUpdatedAt").asText());
        assertTrue(task.path("ttlMs").canConvertToLong() && task.path("ttlMs").asLong() > 0, () -> "ttlMs: " + task);
        assertTrue(task.path("pollIntervalMs").canConvertToLong(), () -> "pollIntervalMs: " + task);
    }

    /**
     * Polls {@code tasks/get} (every 50 ms, at most {@code limit}) until the task's status is one
     * of {@code statuses}; returns that view. Every {@code statusMessage} seen while the task was
     * {@code working} is added to {@code messagesWhileWorking} (when not null).
     */
    public static JsonNode awaitTaskStatus(
            McpTestClient client,
            String taskId,
            Set<String> statuses,
            Duration limit,
            Collection<String> messagesWhileWorking) {
        long deadline = System.nanoTime() + limit.toNanos();
        JsonNode task = null;
        while (System.nanoTime() < deadline) {
            ObjectNode get = client.taskRequest("tasks/get", taskId);
            task = assertTaskView(client.send(get), get, taskId);
            String status = task.path("status").asText();
            if (statuses.contains(status)) {
                return task;
            }
            if (status.equals("working") && task.has("statusMessage") && messagesWhileWorking != null) {
                messagesWhileWorking.add(task.path("statusMessage").asText());
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
        return fail("task " + taskId + " did not reach " + statuses + " within " + limit + "; last seen: " + task);
    }

    /**
     * A JSON-RPC error response with this HTTP status and code, valid against the schema's
     * definition for that code; its id is the request's when {@code request} is given.
     */
    public static JsonNode assertError(Reply reply, int status, int code, ObjectNode request) {
        assertEquals(status, reply.status(), () -> "HTTP status; body: " + reply.body());
        assertJson(reply);
        JsonNode json = reply.json();
        assertNotNull(json.get("error"), () -> "an error response: " + reply.body());
        assertEquals(code, json.path("error").path("code").asInt(), () -> "error code in " + reply.body());
        SpecSchema.assertValidErrorResponse(errorDefinition(code), json);
        if (request != null) {
            assertSameId(request, json);
        }
        return json.get("error");
    }

    /** A status-only refusal: when there is a body, it is a valid id-less JSON-RPC error. */
    public static void assertRefused(Reply reply, int status) {
        assertEquals(status, reply.status(), () -> "HTTP status; body: " + reply.body());
        if (reply.body() != null && !reply.body().isEmpty()) {
            assertJson(reply);
            SpecSchema.assertValidErrorResponse(reply.json());
        }
    }

    /** The response carries the request's id (compared as JSON text: 1 and 1L are the same id). */
    private static void assertSameId(ObjectNode request, JsonNode response) {
        assertEquals(
                Json.write(request.get("id")), Json.write(response.get("id")), "the response echoes the request id");
    }

    private static void assertJson(Reply reply) {
        assertNotNull(reply.contentType(), "a Content-Type");
        assertTrue(reply.contentType().startsWith("application/json"), () -> "JSON, was " + reply.contentType());
    }

    private static String errorDefinition(int code) {
        return switch (code) {
            case -32700 -> "ParseError";
            case -32600 -> "InvalidRequestError";
            case -32601 -> "MethodNotFoundError";
            case -32602 -> "InvalidParamsError";
            case -32603 -> "InternalError";
            case -32020 -> "HeaderMismatchError";
            case -32021 -> "MissingRequiredClientCapabilityError";
            case -32022 -> "UnsupportedProtocolVersionError";
            default -> "JSONRPCErrorResponse";
        };
    }
}
