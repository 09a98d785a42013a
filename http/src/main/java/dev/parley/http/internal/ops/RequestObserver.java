package dev.parley.http.internal.ops;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.actors.internal.ops.CallMdc;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.http.internal.StreamEnd;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.McpMethod;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.model.AttributeKey;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;

/**
 * What a transport reports about each request (metrics, a server span, MDC fields), for both
 * protocol eras: {@code McpRoutes} hands it every dispatched 2026-07-28 request with its final
 * reply and the requests its edge refused; {@code LegacyRoutes} and {@code StdioTransport} hand
 * it their 2025-11-25 requests, which end with their JSON-RPC response.
 */
public final class RequestObserver {
    /** The result type of a 2025-11-25 request whose client closed the stream before the response. */
    static final String CLOSED = "closed";

    /**
     * On a response the HTTP transport rendered: the JSON-RPC response of a JSON body, so the
     * observation reads its outcome without parsing the bytes again.
     */
    public static final AttributeKey<JsonRpc.Response> RESPONSE =
            AttributeKey.create("parley-response", JsonRpc.Response.class);

    /** On an SSE response: the messages it sends, each as it is rendered. */
    public static final AttributeKey<SentMessages> SENT_MESSAGES =
            AttributeKey.create("parley-sent-messages", SentMessages.class);

    /**
     * The messages an SSE response sends, told to whoever listens (the request's observation)
     * as each is rendered. The listener is set before the response's stream runs.
     */
    public static final class SentMessages {
        private volatile Consumer<Object> listener = message -> {};

        public void sent(Object message) {
            listener.accept(message);
        }

        void listen(Consumer<Object> listener) {
            this.listener = listener;
        }
    }

    private final ParleyMetrics metrics;
    private final ParleyTracing tracing;
    private final McpServerDefinition server;
    /** {@code network.transport}: {@code tcp} for HTTP, {@code pipe} for stdio. */
    private final String transport;

    private RequestObserver(
            ParleyMetrics metrics, ParleyTracing tracing, McpServerDefinition server, String transport) {
        this.metrics = metrics;
        this.tracing = tracing;
        this.server = server;
        this.transport = transport;
    }

    /** The observer of {@code server}'s HTTP endpoint on the node whose actor system runs {@code materializer}. */
    public static RequestObserver of(Materializer materializer, McpServerDefinition server) {
        return of(materializer, server, "tcp");
    }

    /** The observer of {@code server}'s stdio transport. */
    public static RequestObserver stdio(Materializer materializer, McpServerDefinition server) {
        return of(materializer, server, "pipe");
    }

    private static RequestObserver of(Materializer materializer, McpServerDefinition server, String transport) {
        org.apache.pekko.actor.typed.ActorSystem<Void> system = Adapter.toTyped(materializer.system());
        return new RequestObserver(ParleyMetrics.get(system), ParleyTracing.get(system), server, transport);
    }

    /**
     * Dispatches through {@code dispatch} inside the request's server span (W3C context from
     * {@code params._meta.traceparent}, else from the HTTP {@code traceparent} header; {@code http}
     * is null on stdio) and with its MDC fields set (the tool executor carries both to the
     * handler); records the reply's outcome and duration when it completes.
     */
    public CompletionStage<McpReply.Final> observe(
            HttpRequest http, McpRequest request, Supplier<CompletionStage<McpReply.Final>> dispatch) {
        boolean firstRound =
                request.descriptor() == McpMethod.TOOLS_CALL && request.params().get("requestState") == null;
        Observation observed = new Observation(
                http,
                request.method(),
                request.params(),
                request.id(),
                request.protocolVersion(),
                request.principal(),
                firstRound);
        CompletionStage<McpReply.Final> reply = observed.run(dispatch);
        return reply.whenComplete((response, failure) -> observed.ended(response));
    }

    /**
     * Like {@link #observe} for a request answered as a stream: the request ends with the
     * stream's final reply.
     */
    public McpReply observeStream(HttpRequest http, McpRequest request, Supplier<McpReply> dispatch) {
        McpReply[] reply = new McpReply[1];
        observe(http, request, () -> {
            reply[0] = dispatch.get();
            return reply[0] instanceof McpReply.Stream stream
                    ? stream.end()
                    : CompletableFuture.completedFuture((McpReply.Final) reply[0]);
        });
        return reply[0];
    }

    /**
     * A 2025-11-25 request ({@code initialize}, or one on a session of {@code protocolVersion}),
     * over HTTP ({@code http}) or stdio (null): the caller runs its dispatch through the returned
     * observation, which ends with the request's JSON-RPC response.
     */
    public Observation legacy(HttpRequest http, JsonRpc.Message message, String protocolVersion, String principal) {
        return new Observation(
                http, message.method(), message.params(), message.id(), protocolVersion, principal, false);
    }

    /** A request answered by the edge before dispatch; {@code reason} names why, e.g. {@code forbidden_host}. */
    public void refusedAtEdge(String reason) {
        metrics.refusedAtEdge(reason);
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

    /** A tool this server has, else {@code _unknown}: a client cannot grow the label set. */
    private String toolLabel(JsonNode name) {
        return name != null && name.isTextual() && server.tool(name.asText()).isPresent() ? name.asText() : "_unknown";
    }

    /** One request from its dispatch to its response: its span, its MDC while dispatching, its metrics once. */
    public final class Observation {
        private final long started = System.nanoTime();
        private final AtomicBoolean ended = new AtomicBoolean();
        private final JsonNode id;
        private final String rawMethod;
        private final McpMethod descriptor;
        /** What the request is about, by kind ({@code NONE} for a method Parley does not know). */
        private final McpMethod.Target kind;

        private final String name;
        private final String method;
        private final String tool;
        private final String protocolVersion;
        private final String principal;
        private final boolean firstRound;
        private final Span span;

        private Observation(
                HttpRequest http,
                String rawMethod,
                JsonNode params,
                JsonNode id,
                String protocolVersion,
                String principal,
                boolean firstRound) {
            this.id = id;
            this.rawMethod = rawMethod;
            this.descriptor = McpMethod.of(rawMethod);
            this.kind = descriptor == null ? McpMethod.Target.NONE : descriptor.target();
            // The MDC's tool field: the tool or prompt the request runs.
            this.name = kind == McpMethod.Target.TOOL || kind == McpMethod.Target.PROMPT
                    ? descriptor.targetIn(params)
                    : null;
            this.method = McpMethod.labelOf(rawMethod);
            this.tool = kind == McpMethod.Target.TOOL ? toolLabel(params.get(kind.param())) : "";
            this.protocolVersion = protocolVersion == null ? "" : protocolVersion;
            this.principal = principal;
            this.firstRound = firstRound;
            this.span = startSpan(http, params);
            if (descriptor == McpMethod.LOGGING_SET_LEVEL) {
                metrics.deprecatedRequest("logging", rawMethod);
            }
        }

        /** Runs the request's dispatch with its span current and its MDC fields set. */
        public <T> T run(Supplier<T> dispatch) {
            try (Scope traced = span.makeCurrent();
                    CallMdc.Scope mdc = CallMdc.openOnRequestThread(
                            rawMethod, name, null, firstRound ? 1 : null, null, principal)) {
                return dispatch.get();
            } catch (RuntimeException e) {
                span.recordException(e);
                end("error", Integer.toString(ErrorCodes.INTERNAL_ERROR));
                throw e;
            }
        }

        /**
         * Runs an HTTP dispatch ({@link #run}) and ends when its response does: a JSON body at once,
         * an SSE stream with the frame that carries the request's response (or when the stream
         * closes before it).
         */
        public CompletionStage<HttpResponse> watch(Supplier<CompletionStage<HttpResponse>> dispatch) {
            return run(dispatch).handle((response, failure) -> {
                if (response == null) {
                    end("error", Integer.toString(ErrorCodes.INTERNAL_ERROR));
                    throw failure instanceof RuntimeException e
                            ? e
                            : new java.util.concurrent.CompletionException(failure);
                }
                Optional<SentMessages> stream = response.getAttribute(SENT_MESSAGES);
                if (stream.isEmpty()) {
                    Optional<JsonRpc.Response> body = response.getAttribute(RESPONSE);
                    if (body.isPresent()) {
                        ended(body.get());
                    } else {
                        end(response.status().isSuccess() ? "complete" : "error", "");
                    }
                    return response;
                }
                stream.get().listen(this::sent);
                Optional<StreamEnd> streamEnd = response.getAttribute(StreamEnd.ATTRIBUTE);
                if (streamEnd.isPresent()) {
                    streamEnd.get().onEnd(() -> end(CLOSED, ""));
                    return response;
                }
                HttpEntity entity = response.entity();
                return response.withEntity(HttpEntities.createChunked(
                        entity.getContentType(), entity.getDataBytes().watchTermination((notUsed, done) -> {
                            // direct: a plain continuation on Pekko's stage would start a thread per stream
                            PekkoStages.direct(done).whenComplete((ok, closed) -> end(CLOSED, ""));
                            return NotUsed.getInstance();
                        })));
            });
        }

        /** A message sent to the client (stdio): the request's own response ends it. */
        public void sent(Object message) {
            if (message instanceof JsonRpc.Response response && id != null && id.equals(response.id())) {
                ended(response);
            }
        }

        /** The client went away (or the transport ended) before the response. */
        public void closed() {
            end(CLOSED, "");
        }

        private void ended(JsonRpc.Response response) {
            if (response.error() != null) {
                end("error", Integer.toString(response.error().code()));
            } else {
                end("complete", "");
            }
        }

        private void ended(McpReply.Final reply) {
            if (reply == null) {
                end("error", Integer.toString(ErrorCodes.INTERNAL_ERROR));
            } else if (reply instanceof McpReply.Error error) {
                end("error", Integer.toString(error.error().code()));
            } else if (reply instanceof McpReply.InputRequired asked) {
                if (asked.callId() != null) {
                    span.setAttribute(ParleyTracing.CALL_ID, asked.callId());
                }
                end("input_required", "");
            } else if (reply instanceof McpReply.TaskCreated created) {
                span.setAttribute(ParleyTracing.TASK_ID, created.result().taskId());
                end("task", "");
            } else {
                end("complete", "");
            }
        }

        /** Records the request once: its duration under its labels, and its span's outcome. */
        private void end(String resultType, String errorCode) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            metrics.requestEnded(method, tool, protocolVersion, resultType, errorCode, System.nanoTime() - started);
            span.setAttribute(ParleyTracing.RESULT_TYPE, resultType);
            if (!errorCode.isEmpty()) {
                span.setAttribute("rpc.response.status_code", errorCode);
                span.setAttribute("error.type", errorCode);
                span.setStatus(StatusCode.ERROR);
            }
            span.end();
        }

        private Span startSpan(HttpRequest http, JsonNode params) {
            String target = switch (kind) {
                case TOOL -> tool.equals("_unknown") ? null : tool;
                case PROMPT, RESOURCE -> descriptor.targetIn(params);
                case TASK, NONE -> null;
            };
            SpanBuilder span = tracing.tracer()
                    .spanBuilder(target == null ? method : method + " " + target)
                    .setSpanKind(SpanKind.SERVER)
                    .setParent(parentOf(http, params))
                    .setAttribute("mcp.method.name", method)
                    .setAttribute("mcp.protocol.version", protocolVersion)
                    .setAttribute("network.transport", transport);
            if (http != null) {
                span.setAttribute("network.protocol.name", "http");
            }
            if (id != null) {
                span.setAttribute("jsonrpc.request.id", id.asText());
            }
            if (kind == McpMethod.Target.TOOL) {
                span.setAttribute("gen_ai.operation.name", "execute_tool").setAttribute("gen_ai.tool.name", tool);
            } else if (kind == McpMethod.Target.PROMPT && target != null) {
                span.setAttribute("gen_ai.prompt.name", target);
            } else if (kind == McpMethod.Target.RESOURCE && target != null) {
                span.setAttribute("mcp.resource.uri", target);
            }
            String taskId = kind == McpMethod.Target.TASK ? descriptor.targetIn(params) : null;
            if (taskId != null) {
                span.setAttribute(ParleyTracing.TASK_ID, taskId);
            }
            if (firstRound) {
                span.setAttribute(ParleyTracing.ROUND, 1L);
            }
            return span.startSpan();
        }
    }

    /** The MCP conventions carry the context in {@code params._meta}; the HTTP header is the fallback. */
    private static Context parentOf(HttpRequest http, JsonNode params) {
        JsonNode meta = params.path("_meta");
        JsonNode traceParent = meta.get("traceparent");
        if (traceParent != null && traceParent.isTextual()) {
            JsonNode traceState = meta.get("tracestate");
            return ParleyTracing.contextOf(
                    traceParent.asText(), traceState != null && traceState.isTextual() ? traceState.asText() : null);
        }
        if (http != null) {
            Optional<String> header = http.getHeader("traceparent").map(h -> h.value());
            if (header.isPresent()) {
                return ParleyTracing.contextOf(
                        header.get(),
                        http.getHeader("tracestate").map(h -> h.value()).orElse(null));
            }
        }
        return Context.root();
    }
}
