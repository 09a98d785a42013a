package dev.parley.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small MCP 2026-07-28 client for the endpoint and demo tests: builds requests with the
 * per-request {@code _meta}, derives the standard headers from the body (spec §6.2) and sends
 * them with {@link HttpClient}. Headers can be overridden per request; a {@code null} value drops one.
 */
public final class McpTestClient {
    public static final String VERSION = "2026-07-28";
    /** What a client that can answer every kind of elicitation declares. */
    public static final String ALL_ELICITATION = "{\"elicitation\":{\"form\":{},\"url\":{}}}";
    /** {@code elicitation: {}} means form mode only (spec §4). */
    public static final String FORM_ONLY = "{\"elicitation\":{}}";
    /** Every kind of elicitation, and the tasks extension (spec §3.1): the server may answer with a task. */
    public static final String WITH_TASKS =
            "{\"elicitation\":{\"form\":{},\"url\":{}},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final int port;
    private final URI endpoint;
    private final AtomicLong ids = new AtomicLong();

    public McpTestClient(int port) {
        this.port = port;
        this.endpoint = URI.create("http://127.0.0.1:" + port + "/mcp");
    }

    public URI endpoint() {
        return endpoint;
    }

    /** One HTTP exchange as the client saw it. */
    public record Reply(int status, String contentType, String body, java.net.http.HttpHeaders headers) {
        /** The body as JSON, or null when there is none. */
        public JsonNode json() {
            return body == null || body.isEmpty() ? null : Json.parse(body);
        }

        public JsonNode result() {
            return json().get("result");
        }

        public JsonNode error() {
            return json().get("error");
        }

        public int errorCode() {
            return error().get("code").asInt();
        }

        public String resultType() {
            return result().path("resultType").asText();
        }

        public String requestState() {
            return result().path("requestState").asText(null);
        }

        /** The {@code taskId} of a {@code CreateTaskResult}. */
        public String taskId() {
            return result().path("taskId").asText(null);
        }

        /** The text of the first content block of a {@code CallToolResult}. */
        public String text() {
            return result().path("content").path(0).path("text").asText();
        }
    }

    // --- messages ------------------------------------------------------------------------

    /** A request with a fresh id and the required {@code _meta}; {@code capabilities} is JSON. */
    public ObjectNode request(String method, ObjectNode params, String capabilities) {
        ObjectNode message = Json.object()
                .put("jsonrpc", "2.0")
                .put("id", ids.incrementAndGet())
                .put("method", method);
        ObjectNode withMeta = params == null ? Json.object() : params.deepCopy();
        withMeta.set("_meta", meta(VERSION, capabilities));
        message.set("params", withMeta);
        return message;
    }

    public ObjectNode request(String method, ObjectNode params) {
        return request(method, params, ALL_ELICITATION);
    }

    public static ObjectNode meta(String version, String capabilities) {
        ObjectNode meta = Json.object();
        meta.put("io.modelcontextprotocol/protocolVersion", version);
        meta.set("io.modelcontextprotocol/clientCapabilities", Json.parse(capabilities));
        meta.set(
                "io.modelcontextprotocol/clientInfo",
                Json.object().put("name", "parley-tests").put("version", "1"));
        return meta;
    }

    /** A first-round {@code tools/call}. */
    public ObjectNode toolCall(String tool, ObjectNode arguments, String capabilities) {
        ObjectNode params = Json.object().put("name", tool);
        params.set("arguments", arguments);
        return request("tools/call", params, capabilities);
    }

    public ObjectNode toolCall(String tool, ObjectNode arguments) {
        return toolCall(tool, arguments, ALL_ELICITATION);
    }

    /**
     * The retry of {@code original} (spec §2.5): a NEW id, the same method and params, plus
     * {@code inputResponses} (when not null) and {@code requestState}.
     */
    public ObjectNode retry(ObjectNode original, String requestState, ObjectNode inputResponses) {
        ObjectNode retry = original.deepCopy();
        retry.put("id", ids.incrementAndGet());
        ObjectNode params = (ObjectNode) retry.get("params");
        params.remove("inputResponses");
        params.remove("requestState");
        if (inputResponses != null) {
            params.set("inputResponses", inputResponses);
        }
        params.put("requestState", requestState);
        return retry;
    }

    /** {@code tasks/get}, {@code tasks/update} or {@code tasks/cancel} of {@code taskId}, the extension declared. */
    public ObjectNode taskRequest(String method, String taskId) {
        return request(method, Json.object().put("taskId", taskId), WITH_TASKS);
    }

    /** {@code tasks/update} answering the task's open questions with {@code inputResponses}. */
    public ObjectNode taskUpdate(String taskId, ObjectNode inputResponses) {
        ObjectNode params = Json.object().put("taskId", taskId);
        params.set("inputResponses", inputResponses);
        return request("tasks/update", params, WITH_TASKS);
    }

    /** {@code {key: {action: "accept", content: {...}}}}. */
    public static ObjectNode accept(String key, ObjectNode content) {
        ObjectNode responses = Json.object();
        ObjectNode answer = responses.putObject(key).put("action", "accept");
        if (content != null) {
            answer.set("content", content);
        }
        return responses;
    }

    /** {@code {key: {action: "decline" | "cancel"}}}. */
    public static ObjectNode answer(String key, String action) {
        ObjectNode responses = Json.object();
        responses.putObject(key).put("action", action);
        return responses;
    }

    public static ObjectNode object(String json) {
        return (ObjectNode) Json.parse(json);
    }

    // --- sending -------------------------------------------------------------------------

    /** Sends {@code message} with the headers a conforming client derives from it. */
    public Reply send(ObjectNode message) {
        return send(message, Map.of());
    }

    /** Sends {@code message} with its standard headers, changed by {@code overrides} (null drops one). */
    public Reply send(ObjectNode message, Map<String, String> overrides) {
        Map<String, String> headers = standardHeaders(message);
        headers.putAll(overrides);
        return post(Json.write(message), headers);
    }

    /** The headers of spec §6.2 for {@code message}, plus Content-Type and Accept. */
    public static Map<String, String> standardHeaders(ObjectNode message) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Accept", "application/json, text/event-stream");
        JsonNode params = message.path("params");
        String version = params.path("_meta")
                .path("io.modelcontextprotocol/protocolVersion")
                .asText(null);
        if (version != null) {
            headers.put("MCP-Protocol-Version", version);
        }
        String method = message.path("method").asText(null);
        if (method != null) {
            headers.put("Mcp-Method", method);
        }
        String name = switch (method == null ? "" : method) {
            case "tools/call", "prompts/get" -> params.path("name").asText(null);
            case "resources/read" -> params.path("uri").asText(null);
            case "tasks/get", "tasks/update", "tasks/cancel" ->
                params.path("taskId").asText(null);
            default -> null;
        };
        if (name != null) {
            headers.put("Mcp-Name", name);
        }
        return headers;
    }

    /** Sends {@code message} with its standard headers without waiting for the answer. */
    public java.util.concurrent.CompletableFuture<Reply> sendAsync(ObjectNode message) {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .timeout(REQUEST_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message), StandardCharsets.UTF_8));
        standardHeaders(message).forEach(request::header);
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
                .thenApply(response -> new Reply(
                        response.statusCode(),
                        response.headers().firstValue("content-type").orElse(null),
                        response.body(),
                        response.headers()));
    }

    /** POSTs {@code body} with exactly {@code headers} (null values are left out). */
    public Reply post(String body, Map<String, String> headers) {
        return post(endpoint, body, headers);
    }

    /** POSTs {@code body} to {@code uri} with exactly {@code headers} (null values are left out). */
    public Reply post(URI uri, String body, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(REQUEST_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        headers.forEach((name, value) -> {
            if (value != null) {
                request.header(name, value);
            }
        });
        return exchange(request.build());
    }

    /** POSTs {@code body} as a stream of unknown length (chunked transfer encoding). */
    public Reply postChunked(byte[] body, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .timeout(REQUEST_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body)));
        headers.forEach((name, value) -> {
            if (value != null) {
                request.header(name, value);
            }
        });
        return exchange(request.build());
    }

    /** Any method on the endpoint, no body. */
    public Reply method(String method) {
        return exchange(HttpRequest.newBuilder(endpoint)
                .timeout(REQUEST_TIMEOUT)
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build());
    }

    public Reply exchange(HttpRequest request) {
        try {
            HttpResponse<String> response =
                    http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(
                    response.statusCode(),
                    response.headers().firstValue("content-type").orElse(null),
                    response.body(),
                    response.headers());
        } catch (IOException e) {
            throw new IllegalStateException("request to " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A GET of any URL (a page the server links to). */
    public Reply get(URI uri) {
        return exchange(
                HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build());
    }

    /** Submits an HTML form ({@code application/x-www-form-urlencoded}), as a browser would. */
    public Reply postForm(URI uri, String formBody) {
        return exchange(HttpRequest.newBuilder(uri)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(formBody))
                .build());
    }

    /**
     * A raw HTTP/1.1 POST over a socket, for what {@link HttpClient} refuses to send (a foreign
     * {@code Host} header). The connection is closed after the response, which is read whole.
     */
    public Reply rawPost(String host, ObjectNode message) throws IOException {
        return rawPost(host, message, null);
    }

    /**
     * The same, from the local address {@code from} (another loopback address, e.g. 127.0.0.2,
     * is another client for a server that tells clients apart by address); null: any.
     */
    public Reply rawPost(String host, ObjectNode message, InetAddress from) throws IOException {
        byte[] body = Json.write(message).getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder("POST /mcp HTTP/1.1\r\n")
                .append("Host: ")
                .append(host)
                .append("\r\n")
                .append("Content-Length: ")
                .append(body.length)
                .append("\r\n")
                .append("Connection: close\r\n");
        standardHeaders(message)
                .forEach((name, value) ->
                        head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        byte[] response;
        try (Socket socket = from == null
                ? new Socket(InetAddress.getLoopbackAddress(), port)
                : new Socket(InetAddress.getLoopbackAddress(), port, from, 0)) {
            socket.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            response = in.readAllBytes();
        }
        String text = new String(response, StandardCharsets.UTF_8);
        int endOfHead = text.indexOf("\r\n\r\n");
        if (!text.startsWith("HTTP/1.") || endOfHead < 0) {
            throw new IllegalStateException("not an HTTP response: " + text);
        }
        String[] lines = text.substring(0, endOfHead).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        String contentType = null;
        for (String line : lines) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-type:")) {
                contentType = line.substring("content-type:".length()).trim();
            }
        }
        return new Reply(status, contentType, text.substring(endOfHead + 4), null);
    }
}
