package dev.parley.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.engine.Cancellation;
import dev.parley.runtime.engine.RunEnvironment;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.SourceQueueWithComplete;
import org.apache.pekko.util.ByteString;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import dev.parley.actors.McpDispatcher;
import dev.parley.actors.McpRequest;
import dev.parley.actors.PekkoStages;
import dev.parley.runtime.json.Json;
import dev.parley.runtime.wire.ErrorCodes;
import dev.parley.runtime.wire.JsonRpc;
import dev.parley.runtime.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.wire.JsonRpc.Response;
import dev.parley.runtime.wire.Lifecycle;
import dev.parley.runtime.wire.McpException;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Allow;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.apache.pekko.stream.Materializer;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The single MCP endpoint (Streamable HTTP, 2026-07-28): POST only; Host and Origin checked;
 * one JSON-RPC message per body; the stateless gate; the standard headers compared with the
 * body; then the dispatcher, whose reply becomes the HTTP response.
 */
public final class McpRoutes extends AllDirectives {
  private static final long BODY_READ_TIMEOUT_MS = 10_000;
  private static final int STREAM_BUFFER = 256;
  private static final ByteString KEEP_ALIVE = ByteString.fromString(": keep-alive\n\n");
  private static final String BASE64_PREFIX = "=?base64?";
  private static final String BASE64_SUFFIX = "?=";

  private final McpDispatcher dispatcher;
  private final HttpSettings settings;
  private final PrincipalResolver principals;
  private final Materializer materializer;

  public McpRoutes(McpDispatcher dispatcher, HttpSettings settings, PrincipalResolver principals, Materializer materializer) {
    this.dispatcher = dispatcher;
    this.settings = settings;
    this.principals = principals;
    this.materializer = materializer;
  }

  public Route route() {
    return path(settings.path(), () -> extractRequest(request -> completeWithFuture(handle(request))));
  }

  /** The whole endpoint as a function; never fails. */
  CompletionStage<HttpResponse> handle(HttpRequest request) {
    if (!hostAllowed(request) || !originAllowed(request)) {
      return done(jsonError(StatusCodes.FORBIDDEN, null,
          new ErrorObject(ErrorCodes.INVALID_REQUEST, "Forbidden: Host or Origin not allowed", null)));
    }
    if (!request.method().equals(HttpMethods.POST)) {
      return done(HttpResponse.create().withStatus(StatusCodes.METHOD_NOT_ALLOWED)
          .addHeader(Allow.create(HttpMethods.POST)));
    }
    if (!request.entity().getContentType().mediaType().equals(MediaTypes.APPLICATION_JSON)) {
      return done(jsonError(StatusCodes.UNSUPPORTED_MEDIA_TYPE, null,
          new ErrorObject(ErrorCodes.INVALID_REQUEST, "Content-Type must be application/json", null)));
    }
    if (!acceptsJson(request)) {
      return done(jsonError(StatusCodes.NOT_ACCEPTABLE, null,
          new ErrorObject(ErrorCodes.INVALID_REQUEST, "Accept must allow application/json", null)));
    }
    return PekkoStages.direct(request.entity().withSizeLimit(settings.maxBodyBytes())
            .toStrict(BODY_READ_TIMEOUT_MS, materializer))
        .thenCompose(strict -> handleBody(request, strict.getData().toArray()))
        .exceptionally(failure -> {
          Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
          if (cause instanceof EntityStreamSizeException) {
            return jsonError(StatusCodes.PAYLOAD_TOO_LARGE, null, new ErrorObject(ErrorCodes.INVALID_REQUEST,
                "Request body exceeds " + settings.maxBodyBytes() + " bytes", null));
          }
          return jsonError(StatusCodes.BAD_REQUEST, null,
              new ErrorObject(ErrorCodes.INVALID_REQUEST, "Could not read the request body", null));
        });
  }

  private CompletionStage<HttpResponse> handleBody(HttpRequest http, byte[] body) {
    JsonRpc.Message message;
    McpRequest request;
    try {
      message = JsonRpc.parse(body);
      if (message.isNotification()) {
        // Core 2026-07-28 defines no client notifications over HTTP; accept and ignore.
        return done(HttpResponse.create().withStatus(StatusCodes.ACCEPTED));
      }
      checkVersionHeader(http, message.params());
      request = McpRequest.from(message, principals.principalOf(http));
      checkHeaders(http, request);
      if (request.method().equals("tools/call")) {
        checkParameterHeaders(http, request);
      }
      if (request.method().equals("subscriptions/listen")) {
        return done(eventStream(listenEvents(request)));
      }
    } catch (McpException e) {
      return done(jsonError(StatusCodes.BAD_REQUEST, JsonRpc.idOf(body), e.toError()));
    }
    if (request.wantsNotifications() && acceptsEventStream(http)) {
      return done(eventStream(streamedReply(request)));
    }
    return dispatcher.dispatch(request).thenApply(response -> json(statusOf(response), response));
  }

  // --- SSE ------------------------------------------------------------------------------

  /**
   * A request with a progress token or a log level is answered as SSE: its notifications, then
   * the response, which ends the stream. If the client closes the stream first, the request is
   * cancelled: the handler sees {@code isCancelled()}, its thread is interrupted, nothing more is sent.
   */
  private Source<ByteString, NotUsed> streamedReply(McpRequest request) {
    Pair<SourceQueueWithComplete<ObjectNode>, Source<ObjectNode, NotUsed>> queue =
        Source.<ObjectNode>queue(STREAM_BUFFER, OverflowStrategy.dropHead()).preMaterialize(materializer);
    Cancellation cancellation = new Cancellation();
    AtomicBoolean answered = new AtomicBoolean();
    dispatcher.dispatch(request, new StreamSink(request, queue.first()), cancellation)
        .thenAccept(response -> {
          answered.set(true);
          queue.first().offer((ObjectNode) Json.tree(response));
          queue.first().complete();
        });
    return queue.second()
        .map(McpRoutes::sseFrame)
        // Comment frames while the handler is quiet: a write is how a closed connection is noticed.
        .keepAlive(settings.keepAlive(), () -> KEEP_ALIVE)
        .watchTermination((notUsed, terminated) -> {
          PekkoStages.direct(terminated).whenComplete((ok, failure) -> {
            if (!answered.get()) {
              cancellation.cancel();
            }
          });
          return NotUsed.getInstance();
        });
  }

  /** Progress and log notifications of one request, filtered by what the request asked for. */
  private record StreamSink(McpRequest request, SourceQueueWithComplete<ObjectNode> queue)
      implements RunEnvironment.RequestSink {
    @Override
    public void progress(double done, Double total, String message) {
      if (request.progressToken() == null) {
        return;
      }
      ObjectNode params = Json.object();
      params.set("progressToken", request.progressToken());
      params.put("progress", done);
      if (total != null) {
        params.put("total", total);
      }
      if (message != null) {
        params.put("message", message);
      }
      queue.offer(McpDispatcher.notification("notifications/progress", params));
    }

    @Override
    public void log(LogLevel level, String logger, JsonNode data) {
      if (request.logLevel() == null || level.compareTo(request.logLevel()) < 0) {
        return;
      }
      ObjectNode params = Json.object().put("level", level.wireName());
      if (logger != null) {
        params.put("logger", logger);
      }
      params.set("data", data);
      queue.offer(McpDispatcher.notification("notifications/message", params));
    }
  }

  /** The acknowledgement, then the requested notifications, with keep-alive comments between. */
  private Source<ByteString, NotUsed> listenEvents(McpRequest request) {
    McpDispatcher.Listen listen = dispatcher.listen(request);
    return Source.single(listen.acknowledgement())
        .concat(listen.notifications())
        .map(McpRoutes::sseFrame)
        .keepAlive(settings.keepAlive(), () -> KEEP_ALIVE);
  }

  private static ByteString sseFrame(ObjectNode message) {
    return ByteString.fromString("event: message\ndata: " + Json.write(message) + "\n\n");
  }

  private static HttpResponse eventStream(Source<ByteString, NotUsed> frames) {
    return HttpResponse.create()
        .addHeader(RawHeader.create("X-Accel-Buffering", "no"))
        .addHeader(RawHeader.create("Cache-Control", "no-cache"))
        .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(), frames));
  }

  private static boolean acceptsEventStream(HttpRequest request) {
    Optional<HttpHeader> accept = request.getHeader("accept");
    return accept.isEmpty() || accept.get().value().toLowerCase(Locale.ROOT).contains("text/event-stream")
        || accept.get().value().contains("*/*");
  }

  // --- headers --------------------------------------------------------------------------

  /**
   * {@code Mcp-Param-*} headers (spec §6.2): each tool argument whose input-schema property
   * carries {@code x-mcp-header} must be repeated in its header when present in the body; an
   * argument that is null or absent has no header.
   */
  private void checkParameterHeaders(HttpRequest http, McpRequest request) {
    ToolDefinition<?> tool = dispatcher.server().tool(textOrEmpty(request.params().get("name"))).orElse(null);
    if (tool == null) {
      return;
    }
    JsonNode arguments = request.params().path("arguments");
    for (Map.Entry<String, JsonNode> property : tool.inputSchema().path("properties").properties()) {
      JsonNode headerName = property.getValue().get("x-mcp-header");
      if (headerName == null || !headerName.isTextual()) {
        continue;
      }
      String header = "mcp-param-" + headerName.asText().toLowerCase(Locale.ROOT);
      JsonNode value = arguments.get(property.getKey());
      Optional<String> sent = http.getHeader(header).map(HttpHeader::value).map(String::trim);
      if (value == null || value.isNull()) {
        if (sent.isPresent()) {
          throw new McpException(ErrorCodes.HEADER_MISMATCH, "Header " + header + " given for an absent argument");
        }
        continue;
      }
      if (sent.isEmpty()) {
        throw new McpException(ErrorCodes.HEADER_MISMATCH, "Missing required header " + header);
      }
      if (!sameValue(decodeHeaderValue(header, sent.get()), value)) {
        throw new McpException(ErrorCodes.HEADER_MISMATCH, "Header " + header + " does not match the request body");
      }
    }
  }

  /** Integers compare numerically, booleans as true/false, strings exactly. */
  private static boolean sameValue(String header, JsonNode value) {
    if (value.isIntegralNumber()) {
      try {
        return new java.math.BigInteger(header).equals(value.bigIntegerValue());
      } catch (NumberFormatException e) {
        return false;
      }
    }
    return value.isValueNode() && header.equals(value.asText());
  }

  /**
   * {@code MCP-Protocol-Version} must repeat the body's {@code _meta} version. Checked before the
   * gate judges that version, so a mismatch is -32020 even when the body names a version we do
   * not support (spec §6.3; conformance {@code sep-2575-http-server-header-mismatch-400}). A body
   * without a version string is left to the gate (-32602).
   */
  private static void checkVersionHeader(HttpRequest http, ObjectNode params) {
    JsonNode version = params.path("_meta").get(Lifecycle.META_PROTOCOL_VERSION);
    if (version != null && version.isTextual()) {
      expectHeader(http, "mcp-protocol-version", version.asText());
    }
  }

  /** Standard headers must repeat the body (spec §6.2); values compare exactly after trimming. */
  private static void checkHeaders(HttpRequest http, McpRequest request) {
    expectHeader(http, "mcp-method", request.method());
    String name = switch (request.method()) {
      case "tools/call", "prompts/get" -> textOrEmpty(request.params().get("name"));
      case "resources/read" -> textOrEmpty(request.params().get("uri"));
      case "tasks/get", "tasks/update", "tasks/cancel" -> textOrEmpty(request.params().get("taskId"));
      default -> null;
    };
    if (name != null) {
      expectHeader(http, "mcp-name", name);
    }
  }

  private static void expectHeader(HttpRequest http, String header, String expected) {
    Optional<String> value = http.getHeader(header).map(HttpHeader::value).map(String::trim);
    if (value.isEmpty()) {
      throw new McpException(ErrorCodes.HEADER_MISMATCH, "Missing required header " + header);
    }
    if (!decodeHeaderValue(header, value.get()).equals(expected)) {
      throw new McpException(ErrorCodes.HEADER_MISMATCH,
          "Header " + header + " does not match the request body");
    }
  }

  /**
   * A value that is not header-safe arrives as {@code =?base64?<base64 of UTF-8>?=} (spec §6.2);
   * the server decodes it before comparing. Values without the wrapper are literal. Invalid
   * base64 or UTF-8 inside the wrapper is refused.
   */
  private static String decodeHeaderValue(String header, String value) {
    if (!value.startsWith(BASE64_PREFIX) || !value.endsWith(BASE64_SUFFIX)
        || value.length() < BASE64_PREFIX.length() + BASE64_SUFFIX.length()) {
      return value;
    }
    String encoded = value.substring(BASE64_PREFIX.length(), value.length() - BASE64_SUFFIX.length());
    try {
      if (encoded.length() % 4 != 0) {
        throw new IllegalArgumentException("base64 without its padding");
      }
      byte[] bytes = Base64.getDecoder().decode(encoded);
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (IllegalArgumentException | CharacterCodingException e) {
      throw new McpException(ErrorCodes.HEADER_MISMATCH, "Header " + header + " has an invalid base64 value");
    }
  }

  private static String textOrEmpty(JsonNode node) {
    return node != null && node.isTextual() ? node.asText() : "";
  }

  /** In-band errors are 200; a few codes have fixed statuses (spec §6.3). */
  private static StatusCode statusOf(Response response) {
    if (response.error() == null) {
      return StatusCodes.OK;
    }
    return switch (response.error().code()) {
      case ErrorCodes.METHOD_NOT_FOUND -> StatusCodes.NOT_FOUND;
      case ErrorCodes.HEADER_MISMATCH, ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
          ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION, ErrorCodes.PARSE_ERROR, ErrorCodes.INVALID_REQUEST ->
          StatusCodes.BAD_REQUEST;
      default -> StatusCodes.OK;
    };
  }

  private boolean hostAllowed(HttpRequest request) {
    String host = request.getUri().host().address();
    Optional<HttpHeader> header = request.getHeader("host");
    if (header.isPresent()) {
      host = hostWithoutPort(header.get().value().trim());
    }
    return settings.allowedHosts().contains(host.toLowerCase(Locale.ROOT));
  }

  private boolean originAllowed(HttpRequest request) {
    Optional<HttpHeader> origin = request.getHeader("origin");
    if (origin.isEmpty()) {
      return true;
    }
    try {
      String host = URI.create(origin.get().value().trim()).getHost();
      return host != null && settings.allowedOriginHosts().contains(host.toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static String hostWithoutPort(String host) {
    if (host.startsWith("[")) {
      int end = host.indexOf(']');
      return end < 0 ? host : host.substring(0, end + 1);
    }
    int colon = host.indexOf(':');
    return colon < 0 ? host : host.substring(0, colon);
  }

  private static boolean acceptsJson(HttpRequest request) {
    Optional<HttpHeader> accept = request.getHeader("accept");
    if (accept.isEmpty()) {
      return true;
    }
    String value = accept.get().value().toLowerCase(Locale.ROOT);
    return value.contains("application/json") || value.contains("*/*") || value.contains("application/*");
  }

  private static HttpResponse jsonError(StatusCode status, JsonNode id, ErrorObject error) {
    return json(status, Response.error(id, error));
  }

  private static HttpResponse json(StatusCode status, Object body) {
    byte[] bytes;
    try {
      bytes = Json.MAPPER.writeValueAsBytes(body);
    } catch (Exception e) {
      status = StatusCodes.INTERNAL_SERVER_ERROR;
      bytes = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Internal error\"}}".getBytes();
    }
    return HttpResponse.create().withStatus(status).withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, bytes));
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
