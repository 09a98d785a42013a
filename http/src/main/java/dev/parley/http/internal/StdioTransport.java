package dev.parley.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.pipeline.LegacySessions;
import dev.parley.actors.internal.pipeline.McpPipeline;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.http.internal.ops.RequestObserver;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.RequestLimits;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.Legacy;
import dev.parley.runtime.internal.wire.McpNames;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.UniqueKillSwitch;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MCP over stdio, both eras: newline-delimited JSON-RPC in, only JSON-RPC out (logs go to
 * stderr). A message with a 2026-07-28 {@code _meta} claim is served statelessly through the same
 * gate and pipeline as HTTP; an {@code initialize} opens the process's 2025-11-25 session, after
 * which the session's requests, the server→client requests of waiting calls and their answers
 * travel on the same two pipes. {@code notifications/cancelled} cancels a request (and ends a
 * {@code subscriptions/listen}); the transport ends at end of input.
 */
public final class StdioTransport {
    private static final Logger log = LoggerFactory.getLogger(StdioTransport.class);
    private static final Duration SESSION_OPENING_LIMIT = Duration.ofSeconds(30);

    private final McpPipeline pipeline;
    private final MessageIntake intake;
    private final String principal;
    private final Materializer materializer;
    private final Pipes pipes;
    private final PrintStream out;
    /** Requests in flight, by id: what cancels them. */
    private final Map<String, List<Cancellation>> inFlight = new ConcurrentHashMap<>();
    /** The process's 2025-11-25 session, once {@code initialize} opened it, and its protocol version. */
    private volatile String sessionId;

    private volatile String sessionVersion;
    /** An {@code initialize} still opening its session: the reading loop waits for it. */
    private volatile CompletableFuture<?> opening;

    private final RequestObserver observer; // metrics, spans and MDC of each request

    /** Serves the requests that arrive on {@code pipes} through {@code pipeline}; {@link #serve} starts it. */
    public StdioTransport(McpPipeline pipeline, RequestLimits limits, Materializer materializer, Pipes pipes) {
        this.pipeline = pipeline;
        this.intake = new MessageIntake(limits);
        this.principal = pipes.principal;
        this.materializer = materializer;
        this.pipes = pipes;
        this.out = pipes.out;
        this.observer = RequestObserver.stdio(materializer, pipeline.server());
    }

    /** Serves the lines of the pipes, those that arrived before the node was up first, until stdin ends. */
    public void serve() {
        pipes.attach();
        try {
            for (String line = pipes.next(); line != null; line = pipes.next()) {
                try {
                    handle(line.getBytes(StandardCharsets.UTF_8));
                    awaitSession();
                } catch (RuntimeException e) {
                    log.error("stdio message failed", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        inFlight.values().forEach(cancellations -> cancellations.forEach(Cancellation::cancel));
    }

    /**
     * The process's two pipes, read from the moment {@link #open} is called. Until a transport
     * serves them, a 2026-07-28 {@code server/discover} with no line queued before it is answered
     * at once from the definition (a host that gives a starting server a few seconds to answer
     * gets its answer in the time the JVM takes to start); every other line waits, in order, for
     * the node.
     */
    public static final class Pipes {
        private static final String END = new String("end of input"); // compared by identity
        private static final int WAITING_LINES = 1024; // then the reader waits: the host's pipe fills

        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>(WAITING_LINES);
        private final PrintStream out;
        /** Who is on the other end: every requestState and session of the pipes binds to it. */
        private final String principal;
        /** Answers {@code server/discover} until a transport serves the pipes; then null. */
        private Function<McpRequest, McpReply.Final> discovery;

        private Pipes(OutputStream out, String principal, Function<McpRequest, McpReply.Final> discovery) {
            this.out = new PrintStream(out, false, StandardCharsets.UTF_8);
            this.principal = principal;
            this.discovery = discovery;
        }

        /**
         * Starts reading {@code in} on a thread of its own; {@code discovery} (or null) answers
         * {@code server/discover} for {@code principal} until a transport serves the pipes.
         */
        public static Pipes open(
                InputStream in, OutputStream out, String principal, Function<McpRequest, McpReply.Final> discovery) {
            Pipes pipes = new Pipes(out, principal, discovery);
            Thread reader = new Thread(() -> pipes.read(in), "parley-stdio-in");
            reader.setDaemon(true);
            reader.start();
            return pipes;
        }

        private void read(InputStream in) {
            try {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                        if (!line.isBlank() && !answeredEarly(line)) {
                            lines.put(line);
                        }
                    }
                } catch (IOException e) {
                    log.warn("stdin failed: {}", e.toString());
                }
                lines.put(END);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Answers {@code line} if it is a discovery that can be answered before the node is up. */
        private synchronized boolean answeredEarly(String line) {
            if (discovery == null || !lines.isEmpty()) {
                return false; // served by the node, or queued behind a line that is
            }
            McpRequest request = discoverRequest(line);
            if (request == null) {
                return false;
            }
            write(out, discovery.apply(request).response());
            return true;
        }

        private McpRequest discoverRequest(String line) {
            try {
                JsonRpc.Message message = JsonRpc.parse(line.getBytes(StandardCharsets.UTF_8));
                boolean modern = message.params().path("_meta").has(McpNames.Meta.PROTOCOL_VERSION);
                return !message.isNotification() && modern && message.method().equals(Methods.SERVER_DISCOVER)
                        ? McpRequest.from(message, principal)
                        : null;
            } catch (McpException notServedEarly) {
                return null; // the node answers it, with the error
            }
        }

        private synchronized void attach() {
            discovery = null;
        }

        /** The next line, or null at the end of input. */
        private String next() throws InterruptedException {
            String line = lines.take();
            if (line == END) {
                lines.offer(END); // stays the end for a later reader
                return null;
            }
            return line;
        }
    }

    /**
     * After an {@code initialize}, the next line waits until the session is open: a client that
     * writes its session's requests right behind it has them served by that session, in order.
     */
    private void awaitSession() {
        CompletableFuture<?> pending = opening;
        if (pending == null) {
            return;
        }
        try {
            pending.get(SESSION_OPENING_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("the stdio session did not open: {}", e.toString());
        } finally {
            opening = null;
        }
    }

    private void handle(byte[] line) {
        // A client's response may come at any time: the pipes are the session.
        MessageIntake.Incoming incoming = intake.read(line, true, sessionId != null, null);
        if (incoming instanceof MessageIntake.Unreadable unreadable) {
            write(JsonRpc.Response.error(unreadable.id(), JsonRpc.ErrorObject.of(unreadable.error())));
            return;
        }
        if (incoming instanceof MessageIntake.ClientAnswer answer) {
            answer(answer.response());
            return;
        }
        MessageIntake.Message read = (MessageIntake.Message) incoming;
        JsonRpc.Message message = read.message();
        if (message.isNotification()) {
            if (message.method().equals(Legacy.NOTIFICATION_CANCELLED)) {
                List<Cancellation> cancellations =
                        inFlight.remove(key(message.params().get("requestId")));
                if (cancellations != null) {
                    cancellations.forEach(Cancellation::cancel);
                }
            }
            return;
        }
        if (read.legacy()) {
            legacy(message);
        } else {
            modern(message);
        }
    }

    /** A 2026-07-28 request: the gate, then the pipeline; its notifications are lines like any other. */
    private void modern(JsonRpc.Message message) {
        McpRequest request;
        try {
            request = McpRequest.from(message, principal);
        } catch (McpException e) {
            write(McpReply.Error.atGate(message.id(), e).response());
            return;
        }
        Cancellation cancellation = track(message.id());
        McpReply reply = observer.observeStream(null, request, () -> pipeline.stream(request, cancellation));
        if (!(reply instanceof McpReply.Stream stream)) {
            finish(message.id(), cancellation, (McpReply.Final) reply);
            return;
        }
        UniqueKillSwitch stop = stream.notifications()
                .viaMat(KillSwitches.single(), Keep.right())
                .toMat(Sink.foreach(this::write), Keep.left())
                .run(materializer);
        cancellation.onCancel(stop::shutdown);
        stream.end().whenComplete((end, failure) -> finish(message.id(), cancellation, end));
    }

    private void finish(JsonNode id, Cancellation cancellation, McpReply.Final end) {
        inFlight.remove(key(id));
        if (!cancellation.isCancelled()) {
            write(
                    end != null
                            ? end.response()
                            : JsonRpc.Response.error(
                                    id, new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Internal error", null)));
        }
    }

    /**
     * A 2025-11-25 message: {@code initialize}, or a request of the process's session. Its
     * observation ends with the response it writes, or when it stops without one.
     */
    private void legacy(JsonRpc.Message message) {
        boolean initialize = message.method().equals(Legacy.INITIALIZE);
        RequestObserver.Observation observed = observer.legacy(
                null,
                message,
                initialize
                        ? Legacy.negotiate(
                                message.params().path("protocolVersion").asText())
                        : sessionVersion,
                principal);
        Consumer<Object> emit = sent -> {
            observed.sent(sent);
            write(sent);
        };
        observed.run(() -> {
            legacy(message, emit, observed);
            return null;
        });
    }

    private void legacy(JsonRpc.Message message, Consumer<Object> emit, RequestObserver.Observation observed) {
        LegacySessions sessions = pipeline.legacy().sessions();
        try {
            if (message.method().equals(Legacy.INITIALIZE)) {
                CompletableFuture<JsonRpc.Response> opened = sessions.initialize(message, principal, principal)
                        .thenApply(initialized -> {
                            if (!(initialized instanceof LegacySessions.Opened session)) {
                                return JsonRpc.Response.error(
                                        message.id(), ((LegacySessions.Refused) initialized).error());
                            }
                            sessionVersion = session.result().protocolVersion();
                            sessionId = session.sessionId();
                            return JsonRpc.Response.result(message.id(), session.result());
                        })
                        .toCompletableFuture();
                opening = opened;
                reply(message.id(), opened, emit);
                return;
            }
            String session = sessionId;
            CompletionStage<JsonRpc.Response> own = sessions.own(session, principal, message);
            if (own != null) {
                reply(message.id(), own, emit);
                return;
            }
            Cancellation run = track(message.id());
            Cancellation stop = new Cancellation();
            inFlight.get(key(message.id())).add(stop);
            sessions.find(session, principal).thenAccept(view -> {
                if (view == null) {
                    emit.accept(JsonRpc.Response.error(
                            message.id(), new ErrorObject(ErrorCodes.INVALID_REQUEST, "Session not found", null)));
                    return;
                }
                pipeline.legacy()
                        .calls()
                        .run(LegacySessions.request(message, principal, view), emit, run, stop)
                        .whenComplete((done, failure) -> {
                            inFlight.remove(key(message.id()));
                            observed.closed(); // no-op when the response was written
                        });
            });
        } catch (McpException e) {
            emit.accept(JsonRpc.Response.error(message.id(), JsonRpc.ErrorObject.of(e)));
        }
    }

    /** The client's answer to one of the server's requests. */
    private void answer(JsonRpc.ClientResponse response) {
        String session = sessionId;
        if (session == null) {
            return; // only a 2025-11-25 session is ever sent requests
        }
        pipeline.legacy().sessions().find(session, principal).thenAccept(view -> {
            if (view != null) {
                pipeline.legacy().serverRequests().answer(response, principal, view.capabilities());
            }
        });
    }

    private void reply(JsonNode id, CompletionStage<JsonRpc.Response> response, Consumer<Object> emit) {
        response.whenComplete((answer, failure) -> emit.accept(
                answer != null
                        ? answer
                        : JsonRpc.Response.error(
                                id,
                                failure.getCause() instanceof McpException e
                                        ? JsonRpc.ErrorObject.of(e)
                                        : new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Internal error", null))));
    }

    private Cancellation track(JsonNode id) {
        Cancellation cancellation = new Cancellation();
        inFlight.put(key(id), new java.util.concurrent.CopyOnWriteArrayList<>(List.of(cancellation)));
        return cancellation;
    }

    private static String key(JsonNode id) {
        return id == null ? "" : id.toString();
    }

    private void write(Object message) {
        write(out, message);
    }

    /** One message, one line; writes from several threads never interleave. */
    private static void write(PrintStream out, Object message) {
        String line = Json.write(message);
        synchronized (out) {
            out.print(line);
            out.print('\n');
            out.flush();
        }
    }
}
