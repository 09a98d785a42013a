package dev.parley.http.internal.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.actors.internal.ops.CallMdc;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.runtime.ErrorCodes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import dev.parley.runtime.McpServerDefinition;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * What the MCP endpoint reports about each request (metrics, a server span, MDC fields):
 * {@code McpRoutes} hands it every dispatched
 * request with its final JSON-RPC response, and the requests its edge refused.
 */
public final class RequestObserver {
  /** Methods with their own label; any other (a client's typo, a future method) is {@code _other}. */
  private static final Set<String> KNOWN_METHODS = Set.of("server/discover", "ping", "tools/list", "tools/call",
      "prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read",
      "completion/complete", "logging/setLevel", "subscriptions/listen", "tasks/get", "tasks/update", "tasks/cancel",
      "tasks/list", "tasks/result", "initialize");

  private final ParleyMetrics metrics;
  private final ParleyTracing tracing;
  private final McpServerDefinition server;

  private RequestObserver(ParleyMetrics metrics, ParleyTracing tracing, McpServerDefinition server) {
    this.metrics = metrics;
    this.tracing = tracing;
    this.server = server;
  }

  /** The observer of {@code server} on the node whose actor system runs {@code materializer}. */
  public static RequestObserver of(Materializer materializer, McpServerDefinition server) {
    org.apache.pekko.actor.typed.ActorSystem<Void> system = Adapter.toTyped(materializer.system());
    return new RequestObserver(ParleyMetrics.get(system), ParleyTracing.get(system), server);
  }

  /**
   * Dispatches through {@code dispatch} inside the request's server span (W3C context from
   * {@code params._meta.traceparent}, else from the HTTP {@code traceparent} header) and with
   * its MDC fields set (the tool executor carries both to the handler); records the reply's
   * outcome and duration when it completes.
   */
  public CompletionStage<McpReply.Final> observe(HttpRequest http, McpRequest request,
      Supplier<CompletionStage<McpReply.Final>> dispatch) {
    long started = System.nanoTime();
    boolean firstRound = request.method().equals("tools/call") && request.params().get("requestState") == null;
    String name = request.params().path("name").asText(null);
    String method = KNOWN_METHODS.contains(request.method()) ? request.method() : "_other";
    String tool = request.method().equals("tools/call") ? toolLabel(request.params().get("name")) : "";
    Span span = startSpan(http, request, method, tool, firstRound);
    CompletionStage<McpReply.Final> reply;
    try (Scope traced = span.makeCurrent();
         CallMdc.Scope mdc = CallMdc.open(request.method(), name, null, firstRound ? 1 : null, null, request.principal())) {
      reply = dispatch.get();
    } catch (RuntimeException e) {
      span.recordException(e);
      span.end();
      throw e;
    }
    return reply.whenComplete((response, failure) -> ended(method, tool, request, span, started, response));
  }

  /**
   * Like {@link #observe} for a request answered as a stream: the request ends with the
   * stream's final reply.
   */
  public McpReply observeStream(HttpRequest http, McpRequest request, Supplier<McpReply> dispatch) {
    McpReply[] reply = new McpReply[1];
    observe(http, request, () -> {
      reply[0] = dispatch.get();
      return reply[0] instanceof McpReply.Stream stream ? stream.end() : CompletableFuture.completedFuture(
          (McpReply.Final) reply[0]);
    });
    return reply[0];
  }

  private void ended(String method, String tool, McpRequest request, Span span, long started, McpReply.Final reply) {
    long nanos = System.nanoTime() - started;
    String resultType;
    String errorCode = "";
    if (reply == null) {
      resultType = "error";
      errorCode = Integer.toString(ErrorCodes.INTERNAL_ERROR);
    } else if (reply instanceof McpReply.Error error) {
      resultType = "error";
      errorCode = Integer.toString(error.error().code());
    } else if (reply instanceof McpReply.InputRequired asked) {
      resultType = "input_required";
      if (asked.callId() != null) {
        span.setAttribute(ParleyTracing.CALL_ID, asked.callId());
      }
    } else if (reply instanceof McpReply.TaskCreated created) {
      resultType = "task";
      span.setAttribute(ParleyTracing.TASK_ID, created.result().taskId());
    } else {
      resultType = "complete";
    }
    metrics.requestEnded(method, tool, request.protocolVersion(), resultType, errorCode, nanos);
    span.setAttribute(ParleyTracing.RESULT_TYPE, resultType);
    if (!errorCode.isEmpty()) {
      span.setAttribute("rpc.response.status_code", errorCode);
      span.setAttribute("error.type", errorCode);
      span.setStatus(StatusCode.ERROR);
    }
    span.end();
  }

  private Span startSpan(HttpRequest http, McpRequest request, String method, String tool, boolean firstRound) {
    String target = switch (request.method()) {
      case "tools/call" -> tool.equals("_unknown") ? null : tool;
      case "prompts/get" -> request.params().path("name").asText(null);
      case "resources/read" -> request.params().path("uri").asText(null);
      default -> null;
    };
    SpanBuilder span = tracing.tracer().spanBuilder(target == null ? method : method + " " + target)
        .setSpanKind(SpanKind.SERVER)
        .setParent(parentOf(http, request))
        .setAttribute("mcp.method.name", method)
        .setAttribute("mcp.protocol.version", request.protocolVersion())
        .setAttribute("network.transport", "tcp")
        .setAttribute("network.protocol.name", "http");
    if (request.id() != null) {
      span.setAttribute("jsonrpc.request.id", request.id().asText());
    }
    if (request.method().equals("tools/call")) {
      span.setAttribute("gen_ai.operation.name", "execute_tool").setAttribute("gen_ai.tool.name", tool);
    } else if (request.method().equals("prompts/get") && target != null) {
      span.setAttribute("gen_ai.prompt.name", target);
    } else if (request.method().equals("resources/read") && target != null) {
      span.setAttribute("mcp.resource.uri", target);
    }
    JsonNode taskId = request.params().get("taskId");
    if (taskId != null && taskId.isTextual()) {
      span.setAttribute(ParleyTracing.TASK_ID, taskId.asText());
    }
    if (firstRound) {
      span.setAttribute(ParleyTracing.ROUND, 1L);
    }
    return span.startSpan();
  }

  /** The MCP conventions carry the context in {@code params._meta}; the HTTP header is the fallback. */
  private static Context parentOf(HttpRequest http, McpRequest request) {
    JsonNode meta = request.params().path("_meta");
    JsonNode traceParent = meta.get("traceparent");
    if (traceParent != null && traceParent.isTextual()) {
      JsonNode traceState = meta.get("tracestate");
      return ParleyTracing.contextOf(traceParent.asText(), traceState != null && traceState.isTextual() ? traceState.asText() : null);
    }
    if (http != null) {
      java.util.Optional<String> header = http.getHeader("traceparent").map(h -> h.value());
      if (header.isPresent()) {
        return ParleyTracing.contextOf(header.get(), http.getHeader("tracestate").map(h -> h.value()).orElse(null));
      }
    }
    return Context.root();
  }

  /** A request answered by the edge before dispatch; {@code reason} names why, e.g. {@code forbidden_host}. */
  public void refusedAtEdge(String reason) {
    metrics.refusedAtEdge(reason);
  }

  /** A tool this server has, else {@code _unknown}: a client cannot grow the label set. */
  private String toolLabel(JsonNode name) {
    return name != null && name.isTextual() && server.tool(name.asText()).isPresent() ? name.asText() : "_unknown";
  }

  /**
   * The edge's own refusals, told apart by their HTTP status (the dispatcher answers only
   * 200, 400 and 404); other statuses are not counted here.
   */
  public void edgeResponded(HttpResponse response) {
    if (response == null) {
      return;
    }
    String reason = switch (response.status().intValue()) {
      case 403 -> "forbidden_host_or_origin";
      case 405 -> "method_not_allowed";
      case 406 -> "not_acceptable";
      case 413 -> "body_too_large";
      case 415 -> "unsupported_media_type";
      default -> null;
    };
    if (reason != null) {
      metrics.refusedAtEdge(reason);
    }
  }
}
