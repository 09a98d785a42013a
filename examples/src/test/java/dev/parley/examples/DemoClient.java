package dev.parley.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.json.Json;

import java.io.IOException;
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
 * A small MCP 2026-07-28 client for the demo tests (a copy of the http module's test client):
 * builds requests with the per-request {@code _meta}, derives the standard headers from the
 * body (spec §6.2) and sends them with {@link HttpClient}; also opens the payment page.
 */
final class DemoClient {
  static final String VERSION = "2026-07-28";
  /** What a client that can answer every kind of elicitation declares. */
  static final String ALL_ELICITATION = "{\"elicitation\":{\"form\":{},\"url\":{}}}";
  /** {@code elicitation: {}} means form mode only (spec §4). */
  static final String FORM_ONLY = "{\"elicitation\":{}}";
  /** Every kind of elicitation, and the tasks extension (spec §3.1): the server may answer with a task. */
  static final String WITH_TASKS =
      "{\"elicitation\":{\"form\":{},\"url\":{}},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10))
      .build();
  private final URI endpoint;
  private final AtomicLong ids = new AtomicLong();

  DemoClient(int port) {
    this.endpoint = URI.create("http://127.0.0.1:" + port + "/mcp");
  }

  URI endpoint() {
    return endpoint;
  }

  /** One HTTP exchange as the client saw it. */
  record Reply(int status, String contentType, String body, java.net.http.HttpHeaders headers) {
    /** The body as JSON, or null when there is none. */
    JsonNode json() {
      return body == null || body.isEmpty() ? null : Json.parse(body);
    }

    JsonNode result() {
      return json().get("result");
    }

    JsonNode error() {
      return json().get("error");
    }

    int errorCode() {
      return error().get("code").asInt();
    }

    String resultType() {
      return result().path("resultType").asText();
    }

    String requestState() {
      return result().path("requestState").asText(null);
    }

    /** The {@code taskId} of a {@code CreateTaskResult}. */
    String taskId() {
      return result().path("taskId").asText(null);
    }

    /** The text of the first content block of a {@code CallToolResult}. */
    String text() {
      return result().path("content").path(0).path("text").asText();
    }
  }

  // --- messages ------------------------------------------------------------------------

  /** A request with a fresh id and the required {@code _meta}; {@code capabilities} is JSON. */
  ObjectNode request(String method, ObjectNode params, String capabilities) {
    ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", ids.incrementAndGet()).put("method", method);
    ObjectNode withMeta = params == null ? Json.object() : params.deepCopy();
    withMeta.set("_meta", meta(VERSION, capabilities));
    message.set("params", withMeta);
    return message;
  }

  ObjectNode request(String method, ObjectNode params) {
    return request(method, params, ALL_ELICITATION);
  }

  static ObjectNode meta(String version, String capabilities) {
    ObjectNode meta = Json.object();
    meta.put("io.modelcontextprotocol/protocolVersion", version);
    meta.set("io.modelcontextprotocol/clientCapabilities", Json.parse(capabilities));
    meta.set("io.modelcontextprotocol/clientInfo", Json.object().put("name", "parley-tests").put("version", "1"));
    return meta;
  }

  /** A first-round {@code tools/call}. */
  ObjectNode toolCall(String tool, ObjectNode arguments, String capabilities) {
    ObjectNode params = Json.object().put("name", tool);
    params.set("arguments", arguments);
    return request("tools/call", params, capabilities);
  }

  ObjectNode toolCall(String tool, ObjectNode arguments) {
    return toolCall(tool, arguments, ALL_ELICITATION);
  }

  /** {@code tasks/get}, {@code tasks/update} or {@code tasks/cancel} of {@code taskId}, the extension declared. */
  ObjectNode taskRequest(String method, String taskId) {
    return request(method, Json.object().put("taskId", taskId), WITH_TASKS);
  }

  /** {@code tasks/update} answering the task's open questions with {@code inputResponses}. */
  ObjectNode taskUpdate(String taskId, ObjectNode inputResponses) {
    ObjectNode params = Json.object().put("taskId", taskId);
    params.set("inputResponses", inputResponses);
    return request("tasks/update", params, WITH_TASKS);
  }

  /**
   * The retry of {@code original} (spec §2.5): a NEW id, the same method and params, plus
   * {@code inputResponses} (when not null) and {@code requestState}.
   */
  ObjectNode retry(ObjectNode original, String requestState, ObjectNode inputResponses) {
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

  /** {@code {key: {action: "accept", content: {...}}}}. */
  static ObjectNode accept(String key, ObjectNode content) {
    ObjectNode responses = Json.object();
    ObjectNode answer = responses.putObject(key).put("action", "accept");
    if (content != null) {
      answer.set("content", content);
    }
    return responses;
  }

  /** {@code {key: {action: "decline" | "cancel"}}}. */
  static ObjectNode answer(String key, String action) {
    ObjectNode responses = Json.object();
    responses.putObject(key).put("action", action);
    return responses;
  }

  static ObjectNode object(String json) {
    return (ObjectNode) Json.parse(json);
  }

  // --- sending -------------------------------------------------------------------------

  /** Sends {@code message} with the headers a conforming client derives from it. */
  Reply send(ObjectNode message) {
    return send(message, Map.of());
  }

  /** Sends {@code message} with its standard headers, changed by {@code overrides} (null drops one). */
  Reply send(ObjectNode message, Map<String, String> overrides) {
    Map<String, String> headers = standardHeaders(message);
    headers.putAll(overrides);
    return post(Json.write(message), headers);
  }

  /** The headers of spec §6.2 for {@code message}, plus Content-Type and Accept. */
  static Map<String, String> standardHeaders(ObjectNode message) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("Accept", "application/json, text/event-stream");
    JsonNode params = message.path("params");
    String version = params.path("_meta").path("io.modelcontextprotocol/protocolVersion").asText(null);
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
      case "tasks/get", "tasks/update", "tasks/cancel" -> params.path("taskId").asText(null);
      default -> null;
    };
    if (name != null) {
      headers.put("Mcp-Name", name);
    }
    return headers;
  }

  /** POSTs {@code body} with exactly {@code headers} (null values are left out). */
  Reply post(String body, Map<String, String> headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
        .timeout(REQUEST_TIMEOUT)
        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    headers.forEach((name, value) -> {
      if (value != null) {
        request.header(name, value);
      }
    });
    return exchange(request.build());
  }

  Reply exchange(HttpRequest request) {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Reply(response.statusCode(), response.headers().firstValue("content-type").orElse(null),
          response.body(), response.headers());
    } catch (IOException e) {
      throw new IllegalStateException("request to " + request.uri() + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** A GET of any URL (the payment page). */
  Reply get(URI uri) {
    return exchange(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build());
  }

  /** Submits the payment page's form, as the user's browser would. */
  Reply submitForm(URI uri) {
    return exchange(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("card=4242424242424242")).build());
  }
}
