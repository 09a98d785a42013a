package dev.parley.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpSessionTest {

    @Test
    void findsTheResponseInAnEventStream() {
        String stream =
                "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\n"
                        + "data:{\"jsonrpc\":\"2.0\",\"id\":7,\n"
                        + "data: \"result\":{\"resultType\":\"complete\"}}\nevent:message\n\n";
        JsonNode message = McpSession.fromEventStream(stream, 7);
        assertEquals("complete", message.path("result").path("resultType").asText());
        assertNull(McpSession.fromEventStream(": keep-alive\n\n", 7));
    }

    @Test
    void encodesHeaderValuesThatAreNotHeaderSafe() {
        assertEquals("check_availability", McpSession.headerValue("check_availability"));
        assertEquals("=?base64?w6lsw6k=?=", McpSession.headerValue("élé"));
        assertEquals("=?base64?IHBhZCA=?=", McpSession.headerValue(" pad "));
        assertEquals("=?base64?PT9iYXNlNjQ/eA==?=", McpSession.headerValue("=?base64?x"));
    }

    @Test
    void paramHeadersFollowTheToolSchema() {
        JsonNode schema = Json.parse("""
        {"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},
          "count":{"type":"integer","x-mcp-header":"Count"},"note":{"type":"string"},
          "absent":{"type":"string","x-mcp-header":"Absent"}}}""");
        Map<String, String> headers = McpSession.paramHeaders(
                schema, Json.parse("{\"region\":\"eu-west\",\"count\":3,\"note\":\"n\",\"absent\":null}"));
        assertEquals(Map.of("Mcp-Param-Region", "eu-west", "Mcp-Param-Count", "3"), headers);
    }
}
