package dev.parley.runtime.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.McpException;
import dev.parley.runtime.RequestLimits;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestChecksTest {
    private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

    private static String call(String paramsInside) {
        return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{" + paramsInside + "," + META
                + "}}";
    }

    private static String refused(String body) {
        return refused(body.getBytes(StandardCharsets.UTF_8), RequestLimits.DEFAULTS);
    }

    private static String refused(byte[] body, RequestLimits limits) {
        McpException e = assertThrows(McpException.class, () -> JsonRpc.parse(body, limits));
        assertEquals(ErrorCodes.INVALID_PARAMS, e.code(), e.getMessage());
        return e.getMessage();
    }

    @Test
    void aLoneSurrogateIsRefusedWhereverItIs() {
        assertEquals(
                "Invalid request: /params/arguments/client has a string that is not valid Unicode "
                        + "(a lone surrogate U+D800 at index 0)",
                refused(call("\"name\":\"t\",\"arguments\":{\"client\":\"\\ud800-x\"}")));
        // a low surrogate alone, a high surrogate at the end, in a member name, in an array
        refused(call("\"name\":\"t\",\"arguments\":{\"client\":\"x\\udc00\"}"));
        refused(call("\"name\":\"t\",\"arguments\":{\"client\":\"x\\ud83d\"}"));
        assertEquals(
                "Invalid request: a member name is not valid Unicode (a lone surrogate)",
                refused(call("\"name\":\"t\",\"arguments\":{\"\\ud800\":1}")));
        refused(call("\"name\":\"t\",\"arguments\":{\"x\\udc00\":1}"));
        refused(call("\"name\":\"t\",\"arguments\":{\"list\":[\"ok\",\"\\udfff\"]}"));
        // inputResponses, requestState, a cursor, _meta, the id, the method
        refused(call(
                "\"name\":\"t\",\"inputResponses\":{\"q\":{\"action\":\"accept\",\"content\":{\"a\":\"\\ud800\"}}}"));
        refused(call("\"name\":\"t\",\"requestState\":\"AQ\\ud800\""));
        refused("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"\\udbff\"," + META
                + "}}");
        refused("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"x\\ud800\":1}}}");
        refused("{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"method\":\"tools/list\",\"params\":{" + META + "}}");
        refused("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\\ud800\",\"params\":{" + META + "}}");
    }

    @Test
    void aLoneSurrogateInRawBytesIsRefusedToo() {
        // U+D800 encoded as if it were a character (CESU-style bytes ED A0 80): not UTF-8.
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(call("\"name\":\"t\",\"arguments\":{\"client\":\"").getBytes(StandardCharsets.UTF_8));
        int cut = body.size();
        body.writeBytes(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80});
        body.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
        byte[] bytes = body.toByteArray();
        McpException e = assertThrows(McpException.class, () -> JsonRpc.parse(bytes));
        // Jackson may stop at the bytes (-32700) or decode them into a lone surrogate (-32602): never accepted.
        assertEquals(true, e.code() == ErrorCodes.PARSE_ERROR || e.code() == ErrorCodes.INVALID_PARAMS, e.getMessage());
        assertEquals(true, cut > 0);
    }

    @Test
    void onlyAnEscapeOrASurrogatesOwnBytesCanBringALoneSurrogate() {
        assertEquals(
                false,
                RequestChecks.mayHoldLoneSurrogate(
                        "{\"a\":\"caf\u00e9 \u4e2d \ud83d\ude00\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(true, RequestChecks.mayHoldLoneSurrogate("{\"a\":\"\\n\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(
                true, RequestChecks.mayHoldLoneSurrogate(new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}));
    }

    @Test
    void validPairsAndOrdinaryTextPass() {
        JsonRpc.parse(call("\"name\":\"t\",\"arguments\":{\"client\":\"\\ud83d\\ude00 caf\u00e9 \u4e2d\"}")
                .getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aNumberThatIsNotAFiniteDoubleIsRefused() {
        assertEquals(
                "Invalid request: /params/arguments/amount is a number that is not a finite double",
                refused(call("\"name\":\"t\",\"arguments\":{\"amount\":1e309}")));
        refused(call("\"name\":\"t\",\"arguments\":{\"amount\":-1e309}"));
        refused(call("\"name\":\"t\",\"arguments\":{\"amount\":1" + "0".repeat(400) + "}"));
        refused(call(
                "\"name\":\"t\",\"inputResponses\":{\"q\":{\"action\":\"accept\",\"content\":{\"n\":[1,2E400]}}}"));
        refused(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"progressToken\":1e999}}}");
        // big but finite numbers are numbers
        JsonRpc.parse(call("\"name\":\"t\",\"arguments\":{\"amount\":1.7e308,\"tiny\":1e-400}")
                .getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void structuralLimitsAreConfigurable() {
        RequestLimits small = new RequestLimits(5, 60, 3, 20);
        byte[] deep =
                call("\"name\":\"t\",\"arguments\":{\"a\":{\"b\":{\"c\":{}}}}").getBytes(StandardCharsets.UTF_8);
        assertEquals("Invalid request: /params/arguments/a/b/c is nested deeper than 5 levels", refused(deep, small));
        assertEquals(
                "Invalid request: /params/arguments/s has a string longer than 60 characters",
                refused(
                        call("\"name\":\"t\",\"arguments\":{\"s\":\"" + "x".repeat(61) + "\"}")
                                .getBytes(StandardCharsets.UTF_8),
                        small));
        assertEquals(
                "Invalid request: /params/arguments/list is an array of more than 3 elements",
                refused(
                        call("\"name\":\"t\",\"arguments\":{\"list\":[1,2,3,4]}")
                                .getBytes(StandardCharsets.UTF_8),
                        small));
        refused(
                call("\"name\":\"t\",\"arguments\":{\"a\":[1,2,3],\"b\":[1,2,3],\"c\":[1,2,3],\"d\":[1,2,3]}")
                        .getBytes(StandardCharsets.UTF_8),
                small);
        // the defaults hold a realistic request with room to spare
        JsonRpc.parse(call("\"name\":\"t\",\"arguments\":{\"a\":{\"b\":{\"c\":{\"d\":[[[\"" + "x".repeat(100_000)
                        + "\"]]]}}}}")
                .getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theDefaultDepthStopsADeeplyNestedBody() {
        String deep = "[".repeat(200) + "]".repeat(200);
        String message = refused(call("\"name\":\"t\",\"arguments\":{\"a\":" + deep + "}"));
        assertEquals(true, message.endsWith("is nested deeper than 64 levels"), message);
    }

    @Test
    void aHundredThousandLevelsAreRefusedForTheirDepthNotAsUnparseable() {
        // Far beyond the JSON parser's own nesting limit (1,000): the read stops at ours.
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        String message = refused(call("\"name\":\"t\",\"arguments\":{\"a\":" + deep + "}"));
        assertEquals(true, message.endsWith("is nested deeper than 64 levels"), message);
    }

    @Test
    void anIdThatIsNotValidUnicodeIsNotEchoed() {
        assertNull(JsonRpc.idOf("{\"id\":\"\\ud800\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(
                "ok",
                JsonRpc.idOf("{\"id\":\"ok\"}".getBytes(StandardCharsets.UTF_8)).asText());
    }
}
