package dev.parley.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.benchmarks.load.LoadOptions.Protocol;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * One worker's MCP client: builds each JSON-RPC request with what its protocol revision
 * requires, sends it over the worker's transport, times it and hands back the {@code result}.
 *
 * <p>2026-07-28: every request carries {@code params._meta} with the protocol version and the
 * client capabilities, and the headers {@code MCP-Protocol-Version}, {@code Mcp-Method},
 * {@code Mcp-Name} (and {@code Mcp-Param-*} for tool arguments the tool's schema marks).
 * 2025-11-25: {@code initialize} and {@code notifications/initialized} first, then every
 * request carries {@code MCP-Protocol-Version} and, when the server gave one, {@code Mcp-Session-Id}.
 */
public final class McpSession implements AutoCloseable {
    static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
    static final String META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
    static final String TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

    /** A request that failed: which kind, and why (an error kind such as {@code rpc -32602}). */
    public static final class Failure extends Exception {
        final String kind;
        final String errorKind;
        final boolean connectionProblem;

        Failure(String kind, String errorKind, boolean connectionProblem) {
            super(kind + ": " + errorKind, null, false, false);
            this.kind = kind;
            this.errorKind = errorKind;
            this.connectionProblem = connectionProblem;
        }

        public String kind() {
            return kind;
        }

        public String errorKind() {
            return errorKind;
        }
    }

    /** Where timings go; the session only measures. */
    public interface Timings {
        void request(String kind, long startNanos, long endNanos);
    }

    private final HttpTransport transport;
    private final Protocol protocol;
    private final ObjectNode capabilities;
    private final Map<String, String> baseHeaders;
    private final Timings timings;
    private String negotiatedVersion;
    private String sessionId;
    private long nextId = 1;

    public McpSession(
            HttpTransport transport,
            Protocol protocol,
            boolean declareTasks,
            Map<String, String> extraHeaders,
            Timings timings) {
        this.transport = transport;
        this.protocol = protocol;
        this.timings = timings;
        this.negotiatedVersion = protocol.wire;
        ObjectNode declared = Json.object();
        ObjectNode elicitation = declared.putObject("elicitation");
        elicitation.putObject("form");
        elicitation.putObject("url");
        if (declareTasks) {
            declared.putObject("extensions").putObject(TASKS_EXTENSION);
        }
        this.capabilities = declared;
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json, text/event-stream");
        headers.putAll(extraHeaders);
        this.baseHeaders = headers;
    }

    /** 2025-11-25 only: {@code initialize} then {@code notifications/initialized}. */
    public void initialize() throws Failure, InterruptedException {
        if (protocol != Protocol.V2025_11_25) {
            return;
        }
        ObjectNode params = Json.object().put("protocolVersion", protocol.wire);
        params.set("capabilities", capabilities.deepCopy().without("extensions"));
        params.putObject("clientInfo").put("name", "parley-load").put("version", "0.1.0");
        Exchange exchange = send("initialize", request("initialize", params, nextId++), Map.of());
        JsonNode result = resultOf("initialize", exchange);
        timings.request("initialize", exchange.start, exchange.end);
        String version = result.path("protocolVersion").asText("");
        if (!version.isEmpty()) {
            negotiatedVersion = version;
        }
        String session = exchange.response.header("mcp-session-id");
        if (session != null && !session.isBlank()) {
            sessionId = session.trim();
        }
        ObjectNode notification = Json.object().put("jsonrpc", "2.0").put("method", "notifications/initialized");
        Exchange initialized = send("initialized", notification, Map.of());
        if (initialized.response.status() / 100 != 2) {
            throw new Failure("initialized", "http " + initialized.response.status(), false);
        }
    }

    /**
     * One request; its {@code result} (the JSON-RPC result object). {@code name} becomes
     * {@code Mcp-Name} (2026-07-28). Failures (transport, HTTP status, JSON-RPC error, unreadable
     * body) are thrown as {@link Failure} under {@code kind}.
     */
    public ObjectNode call(String kind, String method, ObjectNode params, String name, Map<String, String> paramHeaders)
            throws Failure, InterruptedException {
        long id = nextId++;
        Map<String, String> headers = new LinkedHashMap<>();
        if (protocol == Protocol.V2026_07_28) {
            ObjectNode meta = params.putObject("_meta");
            meta.put(META_VERSION, protocol.wire);
            meta.set(META_CAPABILITIES, capabilities);
            headers.put("Mcp-Method", method);
            if (name != null) {
                headers.put("Mcp-Name", headerValue(name));
            }
            headers.putAll(paramHeaders);
        }
        Exchange exchange = send(kind, request(method, params, id), headers);
        ObjectNode result = resultOf(kind, exchange);
        timings.request(kind, exchange.start, exchange.end);
        return result;
    }

    /**
     * 2025-11-25: a {@code tools/call} whose SSE stream carries server→client requests
     * ({@code elicitation/create}, ...): each is answered with {@code answer}, POSTed as the
     * client's JSON-RPC response on the worker's connection while the stream stays open on a
     * second keep-alive socket, until the stream carries the call's response; its {@code result}.
     * Both connections are plain blocking sockets, as a 2025 client holds them (one for the
     * stream, one for its POSTs). Timed as one {@code kind} request; the answers are timed as
     * {@code answer}. {@code count} gets the requests answered.
     */
    public ObjectNode streamedCall(
            String kind,
            URI url,
            ObjectNode params,
            Function<JsonNode, JsonNode> answer,
            java.util.concurrent.atomic.AtomicInteger count,
            Duration timeout)
            throws Failure, InterruptedException {
        long id = nextId++;
        Map<String, String> headers = new LinkedHashMap<>(baseHeaders);
        headers.put("MCP-Protocol-Version", negotiatedVersion);
        if (sessionId != null) {
            headers.put("Mcp-Session-Id", sessionId);
        }
        byte[] body = Json.write(request("tools/call", params, id)).getBytes(StandardCharsets.UTF_8);
        if (streamTransport == null) {
            if (!"http".equals(url.getScheme())) {
                throw new Failure(kind, "a 2025-11-25 stream is read over plain http only", false);
            }
            streamTransport = new SocketTransport(url, timeout);
        }
        EventStream events = new EventStream(id, answer, count);
        long start = System.nanoTime();
        HttpTransport.Response response;
        try {
            response = streamTransport.post(headers, body, events::line);
        } catch (AnswerFailed e) {
            throw e.failure;
        } catch (SocketTimeoutException e) {
            throw new Failure(kind, "timeout", true);
        } catch (IOException e) {
            throw new Failure(kind, "io " + e.getClass().getSimpleName(), true);
        }
        long end = System.nanoTime();
        if (response.status() / 100 != 2) {
            throw new Failure(kind, "http " + response.status(), false);
        }
        JsonNode message = response.contentType().startsWith("text/event-stream")
                ? events.response
                : responseMessage(response, id);
        if (message == null) {
            throw new Failure(kind, "stream ended without the response", false);
        }
        if (message.has("error")) {
            throw new Failure(kind, "rpc " + message.path("error").path("code").asText("?"), false);
        }
        if (!(message.get("result") instanceof ObjectNode result)) {
            throw new Failure(kind, "response without result", false);
        }
        timings.request(kind, start, end);
        return result;
    }

    private SocketTransport streamTransport;

    /** A failed answer POST, carried out of the stream reader. */
    private static final class AnswerFailed extends IOException {
        final Failure failure;

        AnswerFailed(Failure failure) {
            super(failure.getMessage(), null);
            this.failure = failure;
        }
    }

    /** Reads a call's SSE stream as it arrives: answers each server request, keeps the call's response. */
    private final class EventStream {
        private final long id;
        private final Function<JsonNode, JsonNode> answer;
        private final java.util.concurrent.atomic.AtomicInteger count;
        private final StringBuilder data = new StringBuilder();
        private JsonNode response;

        EventStream(long id, Function<JsonNode, JsonNode> answer, java.util.concurrent.atomic.AtomicInteger count) {
            this.id = id;
            this.answer = answer;
            this.count = count;
        }

        void line(String line) throws IOException {
            if (line.startsWith("data:")) {
                data.append(line.substring(5).strip());
                return;
            }
            if (!line.isEmpty() || data.length() == 0) {
                return;
            }
            JsonNode event;
            try {
                event = Json.parse(data.toString());
            } catch (IllegalArgumentException e) {
                throw new IOException("unreadable event", e);
            } finally {
                data.setLength(0);
            }
            if (event.has("method") && event.has("id")) {
                try {
                    answer(event);
                } catch (Failure e) {
                    throw new AnswerFailed(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted");
                }
            } else if (response == null
                    && !event.has("method")
                    && event.path("id").asLong(Long.MIN_VALUE) == id) {
                response = event;
            }
        }

        private void answer(JsonNode request) throws Failure, InterruptedException {
            ObjectNode reply = Json.object().put("jsonrpc", "2.0");
            reply.set("id", request.get("id"));
            reply.set("result", answer.apply(request));
            Exchange answered = send("answer", reply, Map.of());
            if (answered.response.status() != 202) {
                throw new Failure("answer", "http " + answered.response.status(), false);
            }
            timings.request("answer", answered.start, answered.end);
            count.incrementAndGet();
        }
    }

    private static ObjectNode request(String method, ObjectNode params, long id) {
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        message.set("params", params);
        return message;
    }

    private record Exchange(HttpTransport.Response response, long id, long start, long end) {}

    private Exchange send(String kind, ObjectNode message, Map<String, String> headers)
            throws Failure, InterruptedException {
        Map<String, String> all = new LinkedHashMap<>(baseHeaders);
        if (protocol == Protocol.V2026_07_28 || !message.path("method").asText().equals("initialize")) {
            all.put("MCP-Protocol-Version", negotiatedVersion);
        }
        if (sessionId != null) {
            all.put("Mcp-Session-Id", sessionId);
        }
        all.putAll(headers);
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(message);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        long start = System.nanoTime();
        HttpTransport.Response response;
        try {
            response = transport.post(all, body);
        } catch (SocketTimeoutException | HttpTimeoutException e) {
            throw new Failure(kind, "timeout", true);
        } catch (IOException e) {
            throw new Failure(kind, "io " + e.getClass().getSimpleName(), true);
        }
        return new Exchange(response, message.path("id").asLong(-1), start, System.nanoTime());
    }

    /** The result member of the response, or the failure it reports. */
    private ObjectNode resultOf(String kind, Exchange exchange) throws Failure {
        HttpTransport.Response response = exchange.response;
        JsonNode message = responseMessage(response, exchange.id);
        if (message != null && message.has("error")) {
            JsonNode code = message.path("error").path("code");
            String error = "rpc " + (code.isNumber() ? code.asText() : "?");
            if (response.status() / 100 != 2) {
                error = "http " + response.status() + " " + error;
            }
            throw new Failure(kind, error, false);
        }
        if (response.status() / 100 != 2) {
            throw new Failure(kind, "http " + response.status(), false);
        }
        if (message == null) {
            throw new Failure(kind, "unreadable response (" + response.contentType() + ")", false);
        }
        JsonNode result = message.get("result");
        if (!(result instanceof ObjectNode object)) {
            throw new Failure(kind, "response without result", false);
        }
        return object;
    }

    /** The JSON-RPC response in a JSON body, or the one answering {@code id} in an SSE body. */
    static JsonNode responseMessage(HttpTransport.Response response, long id) {
        byte[] body = response.body();
        if (body.length == 0) {
            return null;
        }
        String type = response.contentType().toLowerCase(Locale.ROOT);
        if (type.startsWith("text/event-stream")) {
            return fromEventStream(new String(body, StandardCharsets.UTF_8), id);
        }
        try {
            return Json.MAPPER.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    /** The last event whose data is a response with id {@code id} (or any response when none matches). */
    static JsonNode fromEventStream(String text, long id) {
        JsonNode found = null;
        JsonNode anyResponse = null;
        StringBuilder data = new StringBuilder();
        for (String line : (text.replace("\r\n", "\n") + "\n\n").split("\n", -1)) {
            if (line.isEmpty()) {
                if (data.length() > 0) {
                    try {
                        JsonNode message = Json.MAPPER.readTree(data.toString());
                        if (message != null && (message.has("result") || message.has("error"))) {
                            anyResponse = message;
                            if (message.path("id").asLong(Long.MIN_VALUE) == id) {
                                found = message;
                            }
                        }
                    } catch (IOException ignored) {
                        // not JSON: not a response
                    }
                    data.setLength(0);
                }
            } else if (line.startsWith("data:")) {
                String value = line.substring(5);
                if (value.startsWith(" ")) {
                    value = value.substring(1);
                }
                if (data.length() > 0) {
                    data.append('\n');
                }
                data.append(value);
            }
        }
        return found != null ? found : anyResponse;
    }

    /** A header value as the spec asks: literal when header-safe, else {@code =?base64?…?=}. */
    static String headerValue(String value) {
        boolean safe = !value.isEmpty() && !value.startsWith("=?base64?") && value.equals(value.strip());
        for (int i = 0; safe && i < value.length(); i++) {
            char c = value.charAt(i);
            safe = c >= 0x20 && c < 0x7f;
        }
        return safe
                ? value
                : "=?base64?" + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)) + "?=";
    }

    /**
     * {@code Mcp-Param-*} headers for {@code arguments}: one for each input-schema property that
     * carries {@code x-mcp-header}, when the argument is present and not null.
     */
    public static Map<String, String> paramHeaders(JsonNode inputSchema, JsonNode arguments) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> property :
                inputSchema.path("properties").properties()) {
            JsonNode header = property.getValue().get("x-mcp-header");
            JsonNode value = arguments.get(property.getKey());
            if (header == null || !header.isTextual() || value == null || value.isNull()) {
                continue;
            }
            String text = value.isTextual() ? value.asText() : value.toString();
            headers.put("Mcp-Param-" + header.asText(), headerValue(text));
        }
        return headers;
    }

    @Override
    public void close() {
        transport.close();
        if (streamTransport != null) {
            streamTransport.close();
        }
    }
}
