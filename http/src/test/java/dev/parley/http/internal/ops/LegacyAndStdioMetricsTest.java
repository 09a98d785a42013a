package dev.parley.http.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 2025-11-25 traffic over HTTP (sessions, JSON bodies and a call's SSE stream) and both eras over
 * stdio get the request metrics of the 2026-07-28 path, labelled with their protocol version:
 * N requests move the counters by exactly N.
 */
class LegacyAndStdioMetricsTest {
    private static final String DURATION = "mcp_server_operation_duration_seconds_count";
    private static final String VERSION = "2025-11-25";

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static final InMemorySpanExporter spans = InMemorySpanExporter.create();

    @BeforeAll
    static void start() {
        OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .build();
        server = McpHttpServer.builder(OperationsEndpointTest.definition())
                .dataDirectory(data)
                .port(0)
                .openTelemetry(openTelemetry)
                .config(ConfigFactory.parseString("parley.management.port = 0"))
                .start();
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void sessionRequestsOverHttpAreCountedWithTheirVersion() throws Exception {
        String before = Prometheus.scrape(server.managementPort());

        McpTestClient.Reply opened = client.post(Json.write(initialize(0, "2025-06-18")), headers(null, true));
        String session = opened.headers().firstValue("mcp-session-id").orElseThrow();
        assertEquals("2025-06-18", opened.result().path("protocolVersion").asText());
        assertEquals(
                202,
                client.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", headers(session, false))
                        .status());
        for (int i = 1; i <= 2; i++) {
            McpTestClient.Reply echoed = client.post(
                    Json.write(request(
                            i,
                            "tools/call",
                            Json.object()
                                    .put("name", "echo")
                                    .set("arguments", Json.object().put("text", "e" + i)))),
                    headers(session, false));
            assertEquals("echo: e" + i, echoed.result().at("/content/0/text").asText(), echoed.body());
        }
        assertEquals(
                Json.object(),
                client.post(Json.write(request(3, "ping", Json.object())), headers(session, false))
                        .result());
        McpTestClient.Reply unknown = client.post(
                Json.write(request(
                        4, "tools/call", Json.object().put("name", "nope").set("arguments", Json.object()))),
                headers(session, false));
        assertEquals(-32602, unknown.errorCode(), unknown.body());

        // A question: the call's SSE stream carries the server's request, a POST answers it, the stream ends with the
        // result.
        HttpRequest.Builder call = HttpRequest.newBuilder(client.endpoint())
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(request(
                        5,
                        "tools/call",
                        Json.object()
                                .put("name", "ask")
                                .set("arguments", Json.object().put("text", "Hello"))))));
        headers(session, true).forEach(call::header);
        HttpResponse<Stream<String>> stream = HTTP.send(call.build(), HttpResponse.BodyHandlers.ofLines());
        Iterator<String> lines = stream.body().iterator();
        JsonNode question = nextMessage(lines);
        assertEquals("elicitation/create", question.path("method").asText(), question::toString);
        ObjectNode answer = Json.object().put("jsonrpc", "2.0");
        answer.set("id", question.path("id"));
        answer.set("result", Json.parse("{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}"));
        assertEquals(
                202, client.post(Json.write(answer), headers(session, false)).status());
        JsonNode result = nextMessage(lines);
        assertEquals("Hello, Ada", result.at("/result/content/0/text").asText(), result::toString);
        stream.body().close();

        String after = awaitCount(before, 6, Map.of("mcp_protocol_version", "2025-06-18"));
        assertEquals(
                1,
                delta(
                        before,
                        after,
                        Map.of(
                                "mcp_method_name",
                                "initialize",
                                "parley_result_type",
                                "complete",
                                "mcp_protocol_version",
                                "2025-06-18")));
        assertEquals(
                2,
                delta(
                        before,
                        after,
                        Map.of(
                                "mcp_method_name",
                                "tools/call",
                                "gen_ai_tool_name",
                                "echo",
                                "parley_result_type",
                                "complete",
                                "mcp_protocol_version",
                                "2025-06-18")));
        assertEquals(1, delta(before, after, Map.of("mcp_method_name", "ping", "mcp_protocol_version", "2025-06-18")));
        assertEquals(
                1,
                delta(
                        before,
                        after,
                        Map.of(
                                "gen_ai_tool_name",
                                "_unknown",
                                "parley_result_type",
                                "error",
                                "rpc_response_status_code",
                                "-32602",
                                "mcp_protocol_version",
                                "2025-06-18")));
        assertEquals(
                1,
                delta(
                        before,
                        after,
                        Map.of(
                                "gen_ai_tool_name",
                                "ask",
                                "parley_result_type",
                                "complete",
                                "mcp_protocol_version",
                                "2025-06-18")));
        assertEquals(6, delta(before, after, Map.of()), "notifications and answers are not requests");
        assertEquals(
                1,
                Prometheus.sample(after, "parley_deprecated_requests_total", Map.of("feature", "server_request"))
                        - Prometheus.sample(
                                before, "parley_deprecated_requests_total", Map.of("feature", "server_request")),
                "the question went out as a 2025-era server→client request");
        assertEquals(
                1,
                Prometheus.sample(after, "parley_elicitation_answers_total", Map.of("tool", "ask", "action", "accept"))
                        - Prometheus.sample(
                                before, "parley_elicitation_answers_total", Map.of("tool", "ask", "action", "accept")));

        // The same server spans as the 2026-07-28 path, with the session's version.
        SpanData asked = span("tools/call ask", "5");
        assertEquals(SpanKind.SERVER, asked.getKind());
        assertEquals("2025-06-18", asked.getAttributes().get(AttributeKey.stringKey("mcp.protocol.version")));
        assertEquals("tcp", asked.getAttributes().get(AttributeKey.stringKey("network.transport")));
        assertEquals("complete", asked.getAttributes().get(AttributeKey.stringKey(ParleyTracing.RESULT_TYPE)));
        assertEquals(
                "-32602",
                span("tools/call", "4").getAttributes().get(AttributeKey.stringKey("rpc.response.status_code")));
    }

    @Test
    void bothErasOverStdioAreCountedWithTheirVersion() throws Exception {
        String before = Prometheus.scrape(server.managementPort());
        PipedOutputStream toServer = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 16);
        // The server's output goes straight into a queue of lines: it is written from whichever
        // thread replies, and a PipedInputStream fails its reader ("Write end dead") once the
        // thread that last wrote to it has ended, which lost the lines after the answer.
        BlockingQueue<String> out = new LinkedBlockingQueue<>();
        OutputStream serverOut = new LineQueue(out);
        Thread serving = new Thread(() -> server.serveStdio(serverIn, serverOut, "stdio-user"), "stdio-test");
        serving.setDaemon(true);
        serving.start();

        // 2026-07-28 on stdio: a one-round call and a call that asks.
        ObjectNode echo = client.toolCall("echo", Json.object().put("text", "x"));
        send(toServer, echo);
        assertEquals("complete", next(out).at("/result/resultType").asText());
        ObjectNode ask = client.toolCall("ask", Json.object().put("text", "Hi"));
        send(toServer, ask);
        assertEquals("input_required", next(out).at("/result/resultType").asText());
        // 2025-11-25 on stdio: initialize, then a call that asks through a server request.
        send(toServer, initialize(10, VERSION));
        assertEquals(VERSION, next(out).at("/result/protocolVersion").asText());
        send(
                toServer,
                request(
                        11,
                        "tools/call",
                        Json.object()
                                .put("name", "ask")
                                .set("arguments", Json.object().put("text", "Hey"))));
        JsonNode question = next(out);
        assertEquals("elicitation/create", question.path("method").asText(), question::toString);
        ObjectNode answer = Json.object().put("jsonrpc", "2.0");
        answer.set("id", question.path("id"));
        answer.set("result", Json.parse("{\"action\":\"accept\",\"content\":{\"name\":\"Bo\"}}"));
        send(toServer, answer);
        assertEquals("Hey, Bo", next(out).at("/result/content/0/text").asText());
        send(toServer, request(12, "no/such", Json.object()));
        assertEquals(-32601, next(out).at("/error/code").asInt());
        toServer.close();
        serving.join(TimeUnit.SECONDS.toMillis(30));

        String after = awaitCount(before, 5, Map.of());
        assertEquals(
                1,
                delta(
                        before,
                        after,
                        Map.of(
                                "gen_ai_tool_name",
                                "echo",
                                "parley_result_type",
                                "complete",
                                "mcp_protocol_version",
                                McpTestClient.VERSION)));
        assertEquals(
                1,
                delta(
                        before,
                        after,
                        Map.of(
                                "gen_ai_tool_name",
                                "ask",
                                "parley_result_type",
                                "input_required",
                                "mcp_protocol_version",
                                McpTestClient.VERSION)));
        assertEquals(1, delta(before, after, Map.of("mcp_method_name", "initialize", "mcp_protocol_version", VERSION)));
        assertEquals(
                1,
                delta(
                        before,
                        after,
                        Map.of(
                                "gen_ai_tool_name",
                                "ask",
                                "parley_result_type",
                                "complete",
                                "mcp_protocol_version",
                                VERSION)));
        assertEquals(
                1,
                delta(
                        before,
                        after,
                        Map.of(
                                "mcp_method_name",
                                "_other",
                                "rpc_response_status_code",
                                "-32601",
                                "mcp_protocol_version",
                                VERSION)));
        assertEquals(5, delta(before, after, Map.of()));

        SpanData legacyAsk = span("tools/call ask", "11");
        assertEquals(VERSION, legacyAsk.getAttributes().get(AttributeKey.stringKey("mcp.protocol.version")));
        assertEquals("pipe", legacyAsk.getAttributes().get(AttributeKey.stringKey("network.transport")));
        assertEquals(
                "pipe",
                span("tools/call echo", echo.path("id").asText())
                        .getAttributes()
                        .get(AttributeKey.stringKey("network.transport")));
    }

    /** The one server span named {@code name} of the request with JSON-RPC id {@code id}. */
    private static SpanData span(String name, String id) {
        List<SpanData> found = spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(name)
                        && id.equals(span.getAttributes().get(AttributeKey.stringKey("jsonrpc.request.id"))))
                .toList();
        assertEquals(1, found.size(), () -> name + " #" + id + " in " + spans.getFinishedSpanItems());
        return found.get(0);
    }

    /** A request's metrics are recorded as its response leaves: wait (bounded) until all of them are in. */
    private static String awaitCount(String before, double expected, Map<String, String> labels)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        String after = Prometheus.scrape(server.managementPort());
        while (delta(before, after, labels) < expected && System.nanoTime() < deadline) {
            Thread.sleep(50);
            after = Prometheus.scrape(server.managementPort());
        }
        return after;
    }

    private static double delta(String before, String after, Map<String, String> labels) {
        return Prometheus.sample(after, DURATION, labels) - Prometheus.sample(before, DURATION, labels);
    }

    private static ObjectNode initialize(int id, String version) {
        ObjectNode params = Json.object().put("protocolVersion", version);
        params.set("capabilities", Json.parse("{\"elicitation\":{}}"));
        params.set("clientInfo", Json.object().put("name", "metrics-test").put("version", "1"));
        return request(id, "initialize", params);
    }

    private static ObjectNode request(int id, String method, ObjectNode params) {
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        message.set("params", params);
        return message;
    }

    private static Map<String, String> headers(String session, boolean streams) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", streams ? "application/json, text/event-stream" : "application/json");
        if (session != null) {
            headers.put("Mcp-Session-Id", session);
            headers.put("MCP-Protocol-Version", "2025-06-18");
        }
        return headers;
    }

    private static JsonNode nextMessage(Iterator<String> lines) {
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("data: ")) {
                return Json.parse(line.substring("data: ".length()));
            }
        }
        throw new AssertionError("the stream ended");
    }

    private static void send(OutputStream in, ObjectNode message) throws java.io.IOException {
        in.write((Json.write(message) + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private static JsonNode next(BlockingQueue<String> out) throws InterruptedException {
        String line = out.poll(120, TimeUnit.SECONDS);
        assertNotNull(line, "no line from the stdio transport");
        return Json.parse(line);
    }

    /** Complete lines written to it, as strings, in the order written. */
    private static final class LineQueue extends OutputStream {
        private final BlockingQueue<String> lines;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineQueue(BlockingQueue<String> lines) {
            this.lines = lines;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                lines.add(line.toString(StandardCharsets.UTF_8));
                line.reset();
            } else {
                line.write(b);
            }
        }
    }
}
