package com.example.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.McpHttpServer;
import dev.parley.http.ParleyServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server as Main starts it, on a free port, driven over real HTTP through both rounds of a call. */
class ServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path data;

    @Test
    void aCallAsksThenCompletesOverHttp() throws Exception {
        // snippet: starter_server_test
        try (McpHttpServer server =
                ParleyServer.start(TicketTools.definition(), "--port", "0", "--data", data.toString())) {
            ObjectNode arguments = JSON.createObjectNode().put("title", "Printer on fire");
            JsonNode asked = callOpenTicket(server.port(), arguments, null, null);
            assertEquals("input_required", asked.path("resultType").asText(), asked::toString);

            ObjectNode answers = JSON.createObjectNode();
            answers.putObject("priority").put("action", "accept").putObject("content").put("priority", "urgent");
            JsonNode done = callOpenTicket(server.port(), arguments, asked.path("requestState").asText(), answers);
            assertEquals("complete", done.path("resultType").asText(), done::toString);
            assertTrue(done.path("content").path(0).path("text").asText().startsWith("Opened TKT-"), done::toString);
        }
        // end snippet
    }

    /** One round of a 2026-07-28 tools/call: every request carries its version and capabilities in _meta. */
    private JsonNode callOpenTicket(int port, ObjectNode arguments, String requestState, ObjectNode inputResponses)
            throws Exception {
        ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 1).put("method", "tools/call");
        ObjectNode params = request.putObject("params").put("name", "open_ticket");
        params.set("arguments", arguments);
        if (requestState != null) {
            params.put("requestState", requestState);
            params.set("inputResponses", inputResponses);
        }
        ObjectNode meta = params.putObject("_meta").put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
        meta.putObject("io.modelcontextprotocol/clientCapabilities")
                .putObject("elicitation")
                .putObject("form");
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                        .header("Content-Type", "application/json")
                        .header("MCP-Protocol-Version", "2026-07-28")
                        .header("Mcp-Method", "tools/call")
                        .header("Mcp-Name", "open_ticket")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response::body);
        return JSON.readTree(response.body()).path("result");
    }
}
