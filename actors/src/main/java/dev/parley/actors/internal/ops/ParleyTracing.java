package dev.parley.actors.internal.ops;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The node's OpenTelemetry (a no-op until {@link #use} sets one, so tracing costs nothing when
 * off) and the W3C {@code traceparent} form in which a span's context travels in entity commands
 * and journal events: a round served by another node, or after a restart, still links to its
 * call's first span.
 */
public final class ParleyTracing implements Extension {
    public static final String INSTRUMENTATION = "dev.parley";
    /** Parley's span attributes beside the MCP conventions' own. */
    public static final String CALL_ID = "parley.call.id";

    public static final String ROUND = "parley.round";
    public static final String TASK_ID = "parley.task.id";
    public static final String RESULT_TYPE = "parley.result_type";

    private static final ExtensionId<ParleyTracing> ID = new ExtensionId<>() {
        @Override
        public ParleyTracing createExtension(ActorSystem<?> system) {
            return new ParleyTracing();
        }
    };

    private static final TextMapGetter<Map<String, String>> MAP_GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private volatile OpenTelemetry openTelemetry = OpenTelemetry.noop();
    private volatile Tracer tracer = openTelemetry.getTracer(INSTRUMENTATION);

    private ParleyTracing() {}

    public static ParleyTracing get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    /** Traces with {@code openTelemetry} from now on. */
    public void use(OpenTelemetry openTelemetry) {
        this.openTelemetry = openTelemetry;
        this.tracer = openTelemetry.getTracer(INSTRUMENTATION);
    }

    public Tracer tracer() {
        return tracer;
    }

    /** The current span's context as a W3C {@code traceparent}, or null when there is no valid span. */
    public static String currentTraceParent() {
        if (!Span.current().getSpanContext().isValid()) {
            return null;
        }
        Map<String, String> carrier = new HashMap<>();
        W3CTraceContextPropagator.getInstance().inject(Context.current(), carrier, Map::put);
        return carrier.get("traceparent");
    }

    /** The context a {@code traceparent} (and optional {@code tracestate}) names; the root context for null or a bad value. */
    public static Context contextOf(String traceParent, String traceState) {
        if (traceParent == null) {
            return Context.root();
        }
        Map<String, String> carrier = new HashMap<>();
        carrier.put("traceparent", traceParent);
        if (traceState != null) {
            carrier.put("tracestate", traceState);
        }
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), carrier, MAP_GETTER);
    }

    /** The span context a {@code traceparent} names; invalid for null or a bad value. */
    public static SpanContext spanContextOf(String traceParent) {
        return Span.fromContext(contextOf(traceParent, null)).getSpanContext();
    }

    /**
     * The span of one run of a durable call's handler: a child of the request that carried the
     * answers ({@code requestTraceParent}), linked to the call's first request span
     * ({@code firstTraceParent}), so every round of a call can be found from its start.
     */
    public Span startRound(
            String method, String name, String callId, int round, String requestTraceParent, String firstTraceParent) {
        SpanBuilder span = tracer.spanBuilder(method + " " + name + " round")
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(contextOf(requestTraceParent, null))
                .setAttribute("mcp.method.name", method)
                .setAttribute("gen_ai.tool.name", name)
                .setAttribute(CALL_ID, callId)
                .setAttribute(ROUND, round);
        SpanContext first = spanContextOf(firstTraceParent);
        if (first.isValid()) {
            span.addLink(first);
        }
        return span.startSpan();
    }

    /** The background run of a task: linked to the span of the request that created it. */
    public Span startTaskRun(String method, String name, String taskId, String createdTraceParent) {
        SpanBuilder span = tracer.spanBuilder(method + " " + name + " task")
                .setSpanKind(SpanKind.INTERNAL)
                .setNoParent()
                .setAttribute("mcp.method.name", method)
                .setAttribute("gen_ai.tool.name", name)
                .setAttribute(TASK_ID, taskId);
        SpanContext created = spanContextOf(createdTraceParent);
        if (created.isValid()) {
            span.addLink(created);
        }
        return span.startSpan();
    }

    /** A journaled step: a child of the run in progress on this thread. */
    public Span startStep(String name) {
        return tracer.spanBuilder("step " + name)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute("parley.step.name", name)
                .startSpan();
    }
}
