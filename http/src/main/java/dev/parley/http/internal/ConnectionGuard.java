package dev.parley.http.internal;

import dev.parley.actors.internal.PekkoStages;
import dev.parley.http.internal.HttpStatusTable.Refusal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.impl.engine.server.HttpAttributes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.ResponseEntity;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Connection;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.TimerGraphStageLogic;
import org.apache.pekko.util.ByteString;

/**
 * The handler of one HTTP connection of the MCP port (pekko-http materializes it once per
 * connection): it counts the connection in {@link ConnectionLimits}, answers one request at a time
 * with {@code handler} (one that throws or fails is answered 500, and the connection serves on),
 * and closes the connection when it sends no complete request head within
 * the idle timeout after it opened or after its last response was fully sent (idle keep-alive and
 * slowloris alike). A response that streams (SSE) holds the connection as long as it streams.
 * A connection over a limit is answered 503 with {@code Retry-After} and closed, or closed
 * without an answer when no request comes within {@code refusal-wait}.
 */
public final class ConnectionGuard extends GraphStage<FlowShape<HttpRequest, HttpResponse>> {
    private static final String IDLE_TIMER = "idle";
    private static final String REFUSAL_TIMER = "refusal";

    private final Inlet<HttpRequest> in = Inlet.create("ConnectionGuard.in");
    private final Outlet<HttpResponse> out = Outlet.create("ConnectionGuard.out");
    private final FlowShape<HttpRequest, HttpResponse> shape = FlowShape.of(in, out);

    private final ConnectionLimits limits;
    private final Function<HttpRequest, CompletionStage<HttpResponse>> handler;
    private final Runnable onRefused;

    private ConnectionGuard(
            ConnectionLimits limits, Function<HttpRequest, CompletionStage<HttpResponse>> handler, Runnable onRefused) {
        this.limits = limits;
        this.handler = handler;
        this.onRefused = onRefused;
    }

    /** The per-connection handler flow to bind: {@code handler} behind the limits. */
    public static Flow<HttpRequest, HttpResponse, NotUsed> flow(
            ConnectionLimits limits, Function<HttpRequest, CompletionStage<HttpResponse>> handler, Runnable onRefused) {
        return Flow.fromGraph(new ConnectionGuard(limits, handler, onRefused));
    }

    @Override
    public FlowShape<HttpRequest, HttpResponse> shape() {
        return shape;
    }

    @Override
    public GraphStageLogic createLogic(Attributes attributes) {
        // pekko-http puts the peer's address on the connection's stages (remote-address-attribute = on),
        // as an attribute its public API does not name yet; the bound connection source, which does
        // name it, would lose pekko-http's graceful termination of the connections at shutdown.
        InetAddress address = attributes
                .getAttribute(HttpAttributes.RemoteAddress.class)
                .map(HttpAttributes.RemoteAddress::address)
                .map(InetSocketAddress::getAddress)
                .orElse(null);
        return new Logic(address);
    }

    private final class Logic extends TimerGraphStageLogic {
        private final InetAddress address;
        private final AsyncCallback<HttpResponse> answered = createAsyncCallback(this::answered);
        private final AsyncCallback<NotUsed> responseSent = createAsyncCallback(sent -> responseSent());
        /** Why this connection may not stay (it is not counted), or null. */
        private String refusal;
        /** A request is being answered, or its response still streams. */
        private boolean busy;
        /** The client closed its side: close once the current response is sent. */
        private boolean closing;

        private long idleSinceNanos;

        Logic(InetAddress address) {
            super(shape);
            this.address = address;
            setHandler(in, new AbstractInHandler() {
                @Override
                public void onPush() throws Exception {
                    request(grab(in));
                }

                @Override
                public void onUpstreamFinish() {
                    if (busy) {
                        closing = true;
                    } else {
                        completeStage();
                    }
                }
            });
            setHandler(out, new AbstractOutHandler() {
                @Override
                public void onPull() {}
            });
        }

        @Override
        public void preStart() {
            refusal = limits.admit(address);
            if (refusal != null) {
                onRefused.run();
                scheduleOnce(REFUSAL_TIMER, limits.settings().refusalWait());
            } else {
                // One timer for the connection's life, not one per request. Checked every tick, so a
                // connection idle when the node becomes busy is cut within a tick.
                Duration tick = limits.settings().busyIdleTimeout();
                scheduleWithFixedDelay(IDLE_TIMER, tick, tick);
                idleSinceNanos = System.nanoTime();
            }
            pull(in);
        }

        @Override
        public void postStop() {
            if (refusal == null) {
                limits.release(address);
            }
        }

        private void request(HttpRequest request) throws Exception {
            if (refusal != null) {
                request.discardEntityBytes(materializer());
                emit(out, tooManyConnections(), this::completeStage);
                return;
            }
            busy = true;
            CompletionStage<HttpResponse> answer;
            try {
                answer = handler.apply(request);
            } catch (Exception e) { // answered 500 below, as a failed stage is, instead of failing the connection
                answer = CompletableFuture.failedFuture(e);
            }
            // direct: the handler's stage is a Scala future's, whose plain continuations start a thread each
            // (PekkoStages)
            PekkoStages.direct(answer)
                    .whenComplete((response, failure) -> answered.invoke(
                            failure == null
                                    ? response
                                    : HttpResponse.create().withStatus(StatusCodes.INTERNAL_SERVER_ERROR)));
        }

        private void answered(HttpResponse response) {
            ResponseEntity entity = response.entity();
            if (entity.isStrict()) {
                emit(out, response);
                responseSent();
                return;
            }
            // The connection waits for its next request only once the whole response is sent.
            Optional<StreamEnd> end = response.getAttribute(StreamEnd.ATTRIBUTE);
            if (end.isPresent()) {
                end.get().onEnd(() -> responseSent.invoke(NotUsed.getInstance()));
                emit(out, response);
                return;
            }
            Source<ByteString, Object> watched = entity.getDataBytes().watchTermination((mat, done) -> {
                PekkoStages.direct(done).whenComplete((ok, failure) -> responseSent.invoke(NotUsed.getInstance()));
                return mat;
            });
            emit(
                    out,
                    response.withEntity(
                            entity.getContentLengthOption().isPresent()
                                    ? HttpEntities.create(
                                            entity.getContentType(),
                                            entity.getContentLengthOption().getAsLong(),
                                            watched)
                                    : HttpEntities.createChunked(entity.getContentType(), watched)));
        }

        private void responseSent() {
            if (!busy) {
                return;
            }
            busy = false;
            if (closing) {
                completeStage();
                return;
            }
            idleSinceNanos = System.nanoTime();
            if (!hasBeenPulled(in) && !isClosed(in)) {
                pull(in);
            }
        }

        @Override
        public void onTimer(Object key) {
            if (REFUSAL_TIMER.equals(key)) {
                completeStage();
            } else if (!busy
                    && System.nanoTime() - idleSinceNanos
                            >= limits.idleTimeout().toNanos()) {
                completeStage();
            }
        }

        private HttpResponse tooManyConnections() {
            return HttpReplies.refusal(Refusal.TOO_MANY_CONNECTIONS, refusal)
                    .addHeader(RawHeader.create(
                            "Retry-After",
                            Long.toString(
                                    Math.max(1, limits.settings().retryAfter().toSeconds()))))
                    .addHeader(Connection.create("close"));
        }
    }
}
