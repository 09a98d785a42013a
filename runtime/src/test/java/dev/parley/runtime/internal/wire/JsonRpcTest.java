package dev.parley.runtime.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.testing.SpecSchema;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonRpcTest {

    private static JsonRpc.Message parse(String body) {
        return JsonRpc.parse(body.getBytes(StandardCharsets.UTF_8));
    }

    private static void assertRefused(int code, String body) {
        McpException refused = assertThrows(McpException.class, () -> parse(body), () -> "parsed: " + body);
        assertEquals(code, refused.code(), body);
        SpecSchema.assertValidErrorResponse(
                code == ErrorCodes.PARSE_ERROR ? "ParseError" : "InvalidRequestError",
                Json.tree(JsonRpc.Response.error(
                        JsonRpc.idOf(body.getBytes(StandardCharsets.UTF_8)), JsonRpc.ErrorObject.of(refused))));
    }

    @Test
    void aRequestIsParsedWithItsIdMethodAndParams() {
        JsonRpc.Message message = parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"schedule_release\",\"arguments\":{\"service\":\"billing\"}}}");

        assertEquals(IntNode.valueOf(7), message.id());
        assertEquals("tools/call", message.method());
        assertEquals("billing", message.params().at("/arguments/service").asText());
        assertFalse(message.isNotification());
        SpecSchema.assertValid(
                "JSONRPCRequest", Json.parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}"));
    }

    @Test
    void anErrorWithoutAnIdSaysIdNull() {
        // JSON-RPC 2.0 §5: the id member is required, null when the request's id could not be read.
        String written = Json.write(JsonRpc.Response.error(
                null, JsonRpc.ErrorObject.of(new McpException(ErrorCodes.PARSE_ERROR, "Parse error"))));
        assertEquals(
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}", written);
    }

    @Test
    void aStringIdIsKeptAsAString() {
        assertEquals(
                TextNode.valueOf("req-1"),
                parse("{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"method\":\"tools/list\"}")
                        .id());
    }

    @Test
    void aMessageWithoutIdIsANotification() {
        JsonRpc.Message message =
                parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}");

        assertTrue(message.isNotification());
        assertNull(message.id());
        assertEquals(3, message.params().path("requestId").asInt());
    }

    @Test
    void absentOrNullParamsBecomeAnEmptyObject() {
        assertTrue(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\"}")
                .params()
                .isEmpty());
        assertTrue(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":null}")
                .params()
                .isEmpty());
    }

    @Test
    void unknownMembersAreIgnored() {
        assertEquals(
                "tools/list",
                parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"extra\":true}")
                        .method());
    }

    @Test
    void textThatIsNotJsonIsAParseError() {
        assertRefused(ErrorCodes.PARSE_ERROR, "not json");
        assertRefused(ErrorCodes.PARSE_ERROR, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
        assertRefused(ErrorCodes.PARSE_ERROR, "{'jsonrpc':'2.0'}");
        assertRefused(ErrorCodes.PARSE_ERROR, "");
    }

    @Test
    void jsonFollowedByMoreTextIsAParseError() {
        assertRefused(ErrorCodes.PARSE_ERROR, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"} trailing");
        assertRefused(
                ErrorCodes.PARSE_ERROR,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    }

    @Test
    void aBatchIsAnInvalidRequest() {
        assertRefused(ErrorCodes.INVALID_REQUEST, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}]");
        assertRefused(ErrorCodes.INVALID_REQUEST, "[]");
    }

    @Test
    void jsonThatIsNotAnObjectIsAnInvalidRequest() {
        assertRefused(ErrorCodes.INVALID_REQUEST, "42");
        assertRefused(ErrorCodes.INVALID_REQUEST, "\"tools/list\"");
        assertRefused(ErrorCodes.INVALID_REQUEST, "null");
    }

    @Test
    void aMissingOrNonStringMethodIsAnInvalidRequest() {
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":\"2.0\",\"id\":1}");
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}");
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":null}");
    }

    @Test
    void aMissingOrWrongJsonrpcVersionIsAnInvalidRequest() {
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"id\":1,\"method\":\"tools/list\"}");
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"tools/list\"}");
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"tools/list\"}");
    }

    @Test
    void anIdThatIsNeitherStringNorIntegerIsAnInvalidRequest() {
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"tools/list\"}");
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"tools/list\"}");
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":\"2.0\",\"id\":{\"n\":1},\"method\":\"tools/list\"}");
        assertRefused(ErrorCodes.INVALID_REQUEST, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/list\"}");
    }

    @Test
    void paramsThatAreNotAnObjectAreAnInvalidRequest() {
        assertRefused(
                ErrorCodes.INVALID_REQUEST,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":[1,2]}");
        assertRefused(
                ErrorCodes.INVALID_REQUEST,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":\"x\"}");
    }

    @Test
    void theIdOfAnInvalidRequestIsRecoveredForTheErrorReply() {
        byte[] body = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":7}".getBytes(StandardCharsets.UTF_8);

        assertEquals(IntNode.valueOf(9), JsonRpc.idOf(body));
        assertNull(JsonRpc.idOf("garbage".getBytes(StandardCharsets.UTF_8)));
        assertNull(JsonRpc.idOf("[1]".getBytes(StandardCharsets.UTF_8)));
        assertNull(JsonRpc.idOf("{\"id\":1.5}".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void responsesAndNotificationsSerializeToTheSpecShapes() {
        SpecSchema.assertValidErrorResponse(
                "MethodNotFoundError",
                Json.tree(JsonRpc.Response.error(
                        TextNode.valueOf("a"),
                        new JsonRpc.ErrorObject(ErrorCodes.METHOD_NOT_FOUND, "Method not found: ping", null))));
        SpecSchema.assertValid(
                "JSONRPCNotification",
                Json.tree(new JsonRpc.Notification(
                        "notifications/progress",
                        Json.parse("{\"progressToken\":\"p1\",\"progress\":1,\"total\":2}"))));
        SpecSchema.assertValid(
                "ProgressNotification",
                Json.tree(new JsonRpc.Notification(
                        "notifications/progress",
                        Json.parse("{\"progressToken\":\"p1\",\"progress\":1,\"total\":2}"))));
    }
}
