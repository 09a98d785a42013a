package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bodies far beyond the limits with the default {@code max-body-bytes} (1 MiB): the documented
 * status and error whatever the size or depth, and {@code "id": null} on every error reply whose
 * request id cannot be echoed (JSON-RPC 2.0 §5).
 */
class McpEndpointOversizedInputTest {
    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        server = TestTools.start(
                new TestTools(), data, "parley.http.max-body-bytes = 1 MiB\nparley.http.connections.body-timeout = 2s");
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ObjectNode discover() {
        return client.request("server/discover", null);
    }

    /** An error reply whose id could not be read: the member is there, and null. */
    private static void assertNullId(Reply reply) {
        JsonNode json = reply.json();
        assertTrue(json.has("id"), () -> "an id member: " + reply.body());
        assertTrue(json.get("id").isNull(), () -> "\"id\": null: " + reply.body());
    }

    @Test
    void tenMegabyteBodyIsPayloadTooLarge() {
        // Above pekko-http's own 8 MiB parsing limit as well as max-body-bytes.
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"x\":\""
                + "x".repeat(10 * 1024 * 1024) + "\"}}";
        Reply reply = client.post(body, McpTestClient.standardHeaders(discover()));
        assertRefused(reply, 413);
        assertEquals(-32600, reply.json().path("error").path("code").asInt(), reply.body());
        assertNullId(reply);
    }

    @Test
    void tenMegabyteStreamedBodyIsPayloadTooLarge() {
        byte[] body = ("{\"x\":\"" + "x".repeat(10 * 1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
        Reply reply = client.postChunked(body, McpTestClient.standardHeaders(discover()));
        assertRefused(reply, 413);
        assertNullId(reply);
    }

    @Test
    void aHundredThousandNestingLevelsAreInvalidParamsNamingTheDepthLimit() {
        ObjectNode request = client.toolCall("echo", Json.object().put("text", "@@deep@@"));
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        String body = Json.write(request).replace("\"@@deep@@\"", deep);
        Reply reply = client.post(body, McpTestClient.standardHeaders(request));
        JsonNode error = assertError(reply, 400, -32602, null);
        assertTrue(error.path("message").asText().endsWith("is nested deeper than 64 levels"), reply.body());
    }

    /**
     * A client that writes all of its body before it reads, as simple clients do, still reads the
     * 413: the server reads the rest of the body before it answers, so the client's writes do not
     * meet a closed (reset) connection.
     */
    @Test
    void aClientThatSendsAllOfATenMegabyteBodyBeforeReadingGetsThe413() throws Exception {
        byte[] body = ("{\"x\":\"" + "x".repeat(10 * 1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head(discover(), "Content-Length: " + body.length, "Connection: close"));
            out.write(body);
            out.flush();
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(response.startsWith("HTTP/1.1 413 "), response);
            JsonNode json = Json.parse(response.substring(response.indexOf("\r\n\r\n") + 4));
            assertEquals(-32600, json.path("error").path("code").asInt(), response);
        }
    }

    /** A client that waits for {@code 100 Continue} is refused before it sends any of its body. */
    @Test
    void anOversizedBodyWaitingForContinueIsRefusedBeforeItIsSent() throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream()
                    .write(head(discover(), "Content-Length: " + 10 * 1024 * 1024, "Expect: 100-continue"));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(response.startsWith("HTTP/1.1 413 "), response);
        }
    }

    /** A raw request head for {@code request} on the endpoint, with the standard headers and {@code extra}. */
    private static byte[] head(ObjectNode request, String... extra) {
        StringBuilder head = new StringBuilder("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (String header : extra) {
            head.append(header).append("\r\n");
        }
        McpTestClient.standardHeaders(request)
                .forEach((name, value) ->
                        head.append(name).append(": ").append(value).append("\r\n"));
        return head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aBodyThatStopsComingIsRequestTimeoutAndTheConnectionCloses() throws Exception {
        ObjectNode request = discover();
        byte[] body = Json.write(request).getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head(request, "Content-Length: " + body.length));
            out.write(body, 0, body.length / 2); // half of the body, then nothing
            out.flush();
            // Read until the server closes the connection: the answer, then the end.
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(response.startsWith("HTTP/1.1 408 "), response);
            assertTrue(response.toLowerCase(java.util.Locale.ROOT).contains("connection: close"), response);
            JsonNode json = Json.parse(response.substring(response.indexOf("\r\n\r\n") + 4));
            assertEquals(-32600, json.path("error").path("code").asInt(), response);
            assertTrue(json.path("error").path("message").asText().contains("2000 ms"), response);
        }
    }

    @Test
    void aParseErrorAnswersIdNull() {
        Reply reply =
                client.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", McpTestClient.standardHeaders(discover()));
        assertError(reply, 400, -32700, null);
        assertNullId(reply);
    }

    @Test
    void anIdThatIsNotValidUnicodeAnswersIdNull() {
        ObjectNode request = discover();
        String body = Json.write(request.put("id", "@@id@@")).replace("@@id@@", "\\ud800");
        Reply reply = client.post(body, McpTestClient.standardHeaders(request));
        assertError(reply, 400, -32602, null);
        assertNullId(reply);
    }
}
