package dev.parley.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.McpTestClient.Reply;
import dev.parley.runtime.json.Json;
import dev.parley.testing.SpecSchema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks on what the server sent: the HTTP status, a JSON body, the echoed id, and the body
 * against the MCP 2026-07-28 JSON Schema (every message the server sends is validated).
 */
final class McpAssertions {
  private McpAssertions() {}

  /** A 200 JSON-RPC result response to {@code request}, whose result is a valid {@code definition}. */
  static JsonNode assertResult(Reply reply, ObjectNode request, String definition) {
    assertEquals(200, reply.status(), () -> "HTTP status; body: " + reply.body());
    assertJson(reply);
    JsonNode json = reply.json();
    SpecSchema.assertValidResultResponse(definition, json);
    assertSameId(request, json);
    return json.get("result");
  }

  /** A complete {@code CallToolResult} that is not an error. */
  static JsonNode assertCompleted(Reply reply, ObjectNode request) {
    JsonNode result = assertResult(reply, request, "CallToolResult");
    assertEquals("complete", result.path("resultType").asText(), () -> "resultType of " + result);
    assertTrue(!result.path("isError").asBoolean(false), () -> "not an error result: " + result);
    return result;
  }

  /** An {@code InputRequiredResult} that carries a requestState. */
  static JsonNode assertInputRequired(Reply reply, ObjectNode request) {
    JsonNode result = assertResult(reply, request, "InputRequiredResult");
    assertEquals("input_required", result.path("resultType").asText(), () -> "resultType of " + result);
    assertTrue(result.path("requestState").isTextual(), () -> "a requestState in " + result);
    return result;
  }

  /**
   * A JSON-RPC error response with this HTTP status and code, valid against the schema's
   * definition for that code; its id is the request's when {@code request} is given.
   */
  static JsonNode assertError(Reply reply, int status, int code, ObjectNode request) {
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
  static void assertRefused(Reply reply, int status) {
    assertEquals(status, reply.status(), () -> "HTTP status; body: " + reply.body());
    if (reply.body() != null && !reply.body().isEmpty()) {
      assertJson(reply);
      SpecSchema.assertValidErrorResponse(reply.json());
    }
  }

  /** The response carries the request's id (compared as JSON text: 1 and 1L are the same id). */
  private static void assertSameId(ObjectNode request, JsonNode response) {
    assertEquals(Json.write(request.get("id")), Json.write(response.get("id")), "the response echoes the request id");
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
