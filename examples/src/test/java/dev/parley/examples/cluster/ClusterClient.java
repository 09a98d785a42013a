package dev.parley.examples.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small MCP 2026-07-28 client for the cluster tests: every request goes to the node named by
 * its HTTP port, with the per-request {@code _meta} and the standard headers; listen streams are
 * read line by line on a thread of their own.
 */
final class ClusterClient {
    static final String VERSION = "2026-07-28";
    /** Form and URL elicitation, and the tasks extension. */
    static final String CAPABILITIES =
            "{\"elicitation\":{\"form\":{},\"url\":{}},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final AtomicLong ids = new AtomicLong();

    /** One answer: the HTTP status and the JSON-RPC message. */
    record Reply(int httpStatus, JsonNode json) {
        JsonNode result() {
            return json.path("result");
        }

        boolean isError() {
            return json.has("error");
        }

        String resultType() {
            return result().path("resultType").asText();
        }

        String requestState() {
            return result().path("requestState").asText(null);
        }

        String taskId() {
            return result().path("taskId").asText(null);
        }

        String status() {
            return result().path("status").asText(null);
        }

        String text() {
            return result().path("content").path(0).path("text").asText();
        }

        @Override
        public String toString() {
            return httpStatus + " " + json;
        }
    }

    // --- messages ------------------------------------------------------------------------

    ObjectNode request(String method, ObjectNode params) {
        ObjectNode message = Json.object()
                .put("jsonrpc", "2.0")
                .put("id", ids.incrementAndGet())
                .put("method", method);
        ObjectNode withMeta = params.deepCopy();
        ObjectNode meta = withMeta.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", VERSION);
        meta.set("io.modelcontextprotocol/clientCapabilities", Json.parse(CAPABILITIES));
        message.set("params", withMeta);
        return message;
    }

    ObjectNode toolCall(String tool, ObjectNode arguments) {
        ObjectNode params = Json.object().put("name", tool);
        params.set("arguments", arguments);
        return request("tools/call", params);
    }

    /** The retry of {@code original}: a new id, the same params, the answers and the state. */
    ObjectNode retry(ObjectNode original, String requestState, ObjectNode inputResponses) {
        ObjectNode retry = original.deepCopy();
        retry.put("id", ids.incrementAndGet());
        ObjectNode params = (ObjectNode) retry.get("params");
        params.set("inputResponses", inputResponses);
        params.put("requestState", requestState);
        return retry;
    }

    ObjectNode task(String method, String taskId) {
        return request(method, Json.object().put("taskId", taskId));
    }

    ObjectNode taskUpdate(String taskId, ObjectNode inputResponses) {
        ObjectNode params = Json.object().put("taskId", taskId);
        params.set("inputResponses", inputResponses);
        return request("tasks/update", params);
    }

    /** {@code {key: {action: accept, content: {field: value}}}}. */
    static ObjectNode accept(String key, String field, Object value) {
        ObjectNode responses = Json.object();
        ObjectNode content = responses.putObject(key).put("action", "accept").putObject("content");
        if (value instanceof Boolean bool) {
            content.put(field, bool);
        } else {
            content.put(field, String.valueOf(value));
        }
        return responses;
    }

    // --- sending -------------------------------------------------------------------------

    Reply send(int port, ObjectNode message) {
        return send(port, message, Duration.ofSeconds(60));
    }

    /** POSTs {@code message}; throws (an IOException wrapped) when the node does not answer in time. */
    Reply send(int port, ObjectNode message, Duration timeout) {
        HttpRequest request = post(port, message).timeout(timeout).build();
        try {
            HttpResponse<String> response =
                    http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            String body = response.body();
            if (body.startsWith("event:") || body.startsWith("data:") || body.startsWith(":")) {
                body = lastData(body); // a request stream (SSE): the response is the last data line
            }
            return new Reply(response.statusCode(), Json.parse(body));
        } catch (IOException e) {
            throw new NodeUnavailable(port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String lastData(String sse) {
        String last = null;
        for (String line : sse.split("\n")) {
            if (line.startsWith("data:")) {
                last = line.substring(5).trim();
            }
        }
        return last == null ? "{}" : last;
    }

    private static HttpRequest.Builder post(int port, ObjectNode message) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", VERSION)
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message), StandardCharsets.UTF_8));
        String method = message.path("method").asText();
        request.header("Mcp-Method", method);
        JsonNode params = message.path("params");
        String name = switch (method) {
            case "tools/call" -> params.path("name").asText(null);
            case "tasks/get", "tasks/update", "tasks/cancel" ->
                params.path("taskId").asText(null);
            default -> null;
        };
        if (name != null) {
            request.header("Mcp-Name", name);
        }
        return request;
    }

    /** A node that did not answer (refused, reset or timed out). */
    static final class NodeUnavailable extends RuntimeException {
        NodeUnavailable(int port, IOException cause) {
            super("node on port " + port + " did not answer: " + cause, cause);
        }
    }

    // --- 2025-11-25 sessions -------------------------------------------------------------

    /** {@code initialize} on a node; the session id it answered with. */
    String initialize(int port) {
        ObjectNode params = Json.object().put("protocolVersion", "2025-11-25");
        params.set("capabilities", Json.parse("{\"elicitation\":{}}"));
        params.set("clientInfo", Json.object().put("name", "cluster-it").put("version", "1"));
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", 0).put("method", "initialize");
        message.set("params", params);
        HttpResponse<String> response = postOnSession(port, null, message);
        if (response.statusCode() != 200) {
            throw new IllegalStateException(
                    "initialize on " + port + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.headers().firstValue("mcp-session-id").orElseThrow();
    }

    /** POSTs a 2025-11-25 message on {@code session} (null: none) and returns the whole response. */
    HttpResponse<String> postOnSession(int port, String session, ObjectNode message) {
        try {
            return http.send(
                    onSession(port, session, message).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new NodeUnavailable(port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** DELETEs {@code session} on a node: the HTTP status. */
    int deleteSession(int port, String session) {
        try {
            return http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                                    .header("Mcp-Session-Id", session)
                                    .header("MCP-Protocol-Version", "2025-11-25")
                                    .DELETE()
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            throw new NodeUnavailable(port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** POSTs a 2025-11-25 request on {@code session} and reads its SSE stream as it comes. */
    Listener streamOnSession(int port, String session, ObjectNode message) {
        try {
            HttpResponse<InputStream> response =
                    http.send(onSession(port, session, message).build(), HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("request on " + port + " answered " + response.statusCode());
            }
            return new Listener(response.body());
        } catch (IOException e) {
            throw new NodeUnavailable(port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Resumes a 2025-11-25 call stream on a node: GET with the session and {@code Last-Event-ID}. */
    Listener resume(int port, String session, String lastEventId) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                .header("Accept", "text/event-stream")
                .header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25")
                .header("Last-Event-ID", lastEventId)
                .GET()
                .build();
        try {
            HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("resume on " + port + " answered " + response.statusCode() + ": "
                        + new String(response.body().readAllBytes(), StandardCharsets.UTF_8));
            }
            return new Listener(response.body());
        } catch (IOException e) {
            throw new NodeUnavailable(port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static HttpRequest.Builder onSession(int port, String session, ObjectNode message) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message), StandardCharsets.UTF_8));
        if (session != null) {
            request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return request;
    }

    // --- listen streams ------------------------------------------------------------------

    /** Opens {@code subscriptions/listen} on a node; the acknowledgement is the first message. */
    Listener listen(int port, ObjectNode filter) {
        ObjectNode params = Json.object();
        params.set("notifications", filter);
        HttpRequest request =
                post(port, request("subscriptions/listen", params)).build();
        try {
            HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("listen on " + port + " answered " + response.statusCode() + ": "
                        + new String(response.body().readAllBytes(), StandardCharsets.UTF_8));
            }
            return new Listener(response.body());
        } catch (IOException e) {
            throw new NodeUnavailable(port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The messages of one SSE stream (a listen stream, a 2025-11-25 call), as they arrive. */
    static final class Listener implements AutoCloseable {
        private final InputStream body;
        private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
        /** The SSE event id each message came with (2025-11-25 call streams), by identity. */
        private final Map<JsonNode, String> ids =
                java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());

        private volatile String primingId;

        Listener(InputStream body) {
            this.body = body;
            Thread reader = new Thread(this::read, "listen-reader");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String id = null;
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.isEmpty()) {
                        id = null;
                    } else if (line.startsWith("id:")) {
                        id = line.substring(3).trim();
                    } else if (line.startsWith("data:")) {
                        String data = line.substring(5).trim();
                        if (data.isEmpty()) {
                            primingId = primingId == null ? id : primingId; // a priming event: an id, no message
                        } else {
                            JsonNode message = Json.parse(data);
                            if (id != null) {
                                ids.put(message, id);
                            }
                            messages.add(message);
                        }
                    }
                }
            } catch (IOException | RuntimeException ignored) {
                // closed
            }
        }

        /** The SSE event id {@code message} (one this listener returned) came with, or null. */
        String eventIdOf(JsonNode message) {
            return ids.get(message);
        }

        /** The id of the stream's priming event, or null. */
        String primingId() {
            return primingId;
        }

        /** The next message whose method is {@code method}, skipping others; null after {@code timeout}. */
        JsonNode next(String method, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                JsonNode message = messages.poll(left, TimeUnit.NANOSECONDS);
                if (message != null && method.equals(message.path("method").asText())) {
                    return message;
                }
            }
        }

        /** The next JSON-RPC response (not a request or notification); null after {@code timeout}. */
        JsonNode nextResponse(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                JsonNode message = messages.poll(left, TimeUnit.NANOSECONDS);
                if (message != null && !message.has("method") && (message.has("result") || message.has("error"))) {
                    return message;
                }
            }
        }

        @Override
        public void close() {
            try {
                body.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
