package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.Legacy;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One 2025-11-25 request that may ask, on any transport: its notifications, a server→client
 * request per question (each sent once), and, once the answers are in and the rounds have run,
 * its response, written the 2025 way. The transport only says where messages go.
 */
public final class LegacyCalls {
    private static final Logger log = LoggerFactory.getLogger(LegacyCalls.class);

    private final McpPipeline pipeline;
    private final ServerRequestBridge serverRequests;
    private final CallCaps caps;
    private final ParleyMetrics metrics;

    LegacyCalls(McpPipeline pipeline, ServerRequestBridge serverRequests, CallCaps caps, ParleyMetrics metrics) {
        this.pipeline = pipeline;
        this.serverRequests = serverRequests;
        this.caps = caps;
        this.metrics = metrics;
    }

    /**
     * Where a call's messages go. {@code cursor} says where in the call each one is (for a
     * resumable stream's event ids; a transport without resumption ignores it).
     */
    public interface Events {
        /** Sends {@code message}; false when it could not go out (the client's connection is gone). */
        boolean send(Object message, StreamCursors.Cursor cursor);
    }

    /**
     * Runs {@code request}, handing every message for the client to {@code emit}; completes after
     * the response was emitted, or without one once {@code stop} fired (the client went away or
     * cancelled). {@code run} cancels the handler itself.
     */
    public CompletionStage<Void> run(McpRequest request, Consumer<Object> emit, Cancellation run, Cancellation stop) {
        return run(
                request,
                (message, cursor) -> {
                    emit.accept(message);
                    return true;
                },
                run,
                stop);
    }

    /**
     * As above, for a resumable stream: when {@code request} names its call ({@link McpRequest#callId()})
     * and the first round ends after the client's connection went away, its outcome is journaled
     * under that id, so a resuming stream finds it ({@link #resume}).
     */
    public CompletionStage<Void> run(McpRequest request, Events events, Cancellation run, Cancellation stop) {
        McpReply reply = pipeline.stream(request, run);
        StreamCursors.Cursor during =
                new StreamCursors.Cursor(request.callId(), 0, StreamCursors.ROUND_START, request.id());
        CompletionStage<McpReply.Final> first = reply instanceof McpReply.Stream stream
                ? PekkoStages.direct(stream.notifications()
                                .runForeach(notification -> events.send(notification, during), pipeline.materializer()))
                        .thenCompose(done -> stream.end())
                : CompletableFuture.completedFuture((McpReply.Final) reply);
        CompletableFuture<Void> done = new CompletableFuture<>();
        first.whenComplete((end, failure) -> {
            if (run.isCancelled()) {
                done.complete(null); // cancelled by the client: no response, nothing to journal (spec: cancellation)
                return;
            }
            continueWith(request, end, failure, events, new HashSet<>(), run, stop, done, true, request.callId(), 0);
        });
        return done;
    }

    /**
     * Goes on from a first round that already ended with {@code first} (answered by
     * {@link McpPipeline#handle}): its questions, then its later rounds, then its response.
     */
    public CompletionStage<Void> continueFrom(
            McpRequest request, McpReply.Final first, Events events, Cancellation run, Cancellation stop) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        continueWith(request, first, null, events, new HashSet<>(), run, stop, done, false, request.callId(), 0);
        return done;
    }

    /**
     * A resumed stream ({@code GET} with {@code Last-Event-ID}): what followed {@code cursor}, read
     * from the call's journal, then the rest of the call live. The questions of the cursor's round
     * it had not got yet are sent (those it got are not sent again), then each later round's
     * questions and the response as the call goes on. Nothing after a response.
     */
    public CompletionStage<Void> resume(
            McpRequest request, StreamCursors.Cursor cursor, Events events, Cancellation run, Cancellation stop) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (cursor.position() == StreamCursors.RESPONSE) {
            done.complete(null);
            return done;
        }
        ServerRequestBridge bridge = serverRequests;
        if (cursor.round() == 0) {
            bridge.outcomeOf(request, cursor.callId(), 0, stop)
                    .whenComplete((next, failure) -> continueWith(
                            request,
                            next,
                            failure,
                            events,
                            new HashSet<>(),
                            run,
                            stop,
                            done,
                            false,
                            cursor.callId(),
                            0));
            return done;
        }
        // The questions of round r are what round r - 1 ended with.
        bridge.outcomeOf(request, cursor.callId(), cursor.round() - 1, stop).whenComplete((asked, failure) -> {
            Set<String> sent = new HashSet<>();
            if (asked instanceof McpReply.InputRequired waiting && waiting.round() == cursor.round()) {
                waiting.result().inputRequests().keySet().stream()
                        .limit(cursor.position())
                        .forEach(sent::add);
            }
            continueWith(
                    request, asked, failure, events, sent, run, stop, done, false, cursor.callId(), cursor.round());
        });
        return done;
    }

    private void continueWith(
            McpRequest request,
            McpReply.Final reply,
            Throwable failure,
            Events events,
            Set<String> sent,
            Cancellation run,
            Cancellation stop,
            CompletableFuture<Void> done,
            boolean firstRound,
            String callId,
            int round) {
        if (stop.isCancelled()) {
            if (firstRound && failure == null) {
                serverRequests.recordFirstRound(request, reply);
            }
            done.complete(null);
            return;
        }
        StreamCursors.Cursor response = new StreamCursors.Cursor(callId, round, StreamCursors.RESPONSE, request.id());
        if (failure != null || reply == null) {
            log.warn("a 2025-11-25 request ended without a reply", failure);
            events.send(
                    JsonRpc.Response.error(
                            request.id(), new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Internal error", null)),
                    response);
            done.complete(null);
            return;
        }
        if (reply instanceof McpReply.InputRequired waiting) {
            // The run the answers start is in the call's entity, maybe on another node: its notifications
            // come back to this stream, and the client's cancel stops it there. The stream tells the entity
            // so (AwaitRound) before the questions go out, so the run an early answer starts finds the relay.
            StreamCursors.Cursor afterQuestions = new StreamCursors.Cursor(
                    waiting.callId(),
                    waiting.round(),
                    waiting.result().inputRequests().size(),
                    request.id());
            RunEnvironment.RequestSink notices = request.wantsNotifications()
                    ? new RequestNotifications(request, notification -> events.send(notification, afterQuestions))
                    : RunEnvironment.RequestSink.NONE;
            run.onCancel(() -> serverRequests.cancelRound(waiting.callId(), waiting.round()));
            CompletionStage<McpReply.Final> outcome = serverRequests.next(request, waiting, notices, stop);
            int position = 0;
            for (String key : waiting.result().inputRequests().keySet()) {
                position++;
                if (sent.add(key)) {
                    JsonRpc.Request question = serverRequests.requestFor(request, waiting, key);
                    metrics.deprecatedRequest("server_request", question.method());
                    events.send(
                            question,
                            new StreamCursors.Cursor(waiting.callId(), waiting.round(), position, request.id()));
                }
            }
            BiConsumer<McpReply.Final, Throwable> lease = caps.afterRound(request.quotaPrincipal(), waiting.callId());
            outcome.whenComplete((next, error) -> {
                // The answers came as their own requests; the round they ran renews or ends the call's lease
                // here. A stream that stopped learns nothing, and the lease runs out with the requestState.
                if (next != null && !stop.isCancelled()) {
                    lease.accept(next, null);
                }
                continueWith(
                        request, next, error, events, sent, run, stop, done, false, waiting.callId(), waiting.round());
            });
            return;
        }
        reply = forLegacyClient(request, reply);
        if (!events.send(response(reply), response) && firstRound) {
            serverRequests.recordFirstRound(request, reply);
        }
        done.complete(null);
    }

    /**
     * A final reply as a 2025-11-25 client should get it. That era has no {@code -32021}: a
     * question the client cannot answer (or a task it cannot run) is a tool result with
     * {@code isError} and a text saying what is missing, and a JSON-RPC error at HTTP 200 for a
     * prompt or a resource.
     */
    static McpReply.Final forLegacyClient(McpRequest request, McpReply.Final reply) {
        if (!(reply instanceof McpReply.Error error)
                || error.error().code() != ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY) {
            return reply;
        }
        JsonNode required = error.error().data() == null
                ? Json.object()
                : error.error().data().path("requiredCapabilities");
        String missing = "This request needs a client capability this client did not declare at initialize: "
                + Json.write(required) + ".";
        return request.method().equals(Methods.TOOLS_CALL)
                ? new McpReply.Complete(request.id(), ToolResult.error(missing).toWire())
                : McpReply.Error.inBand(request.id(), new ErrorObject(ErrorCodes.INTERNAL_ERROR, missing, null));
    }

    /** A final reply as this era writes it: results without the 2026-only members. */
    public static JsonRpc.Response response(McpReply.Final reply) {
        JsonRpc.Response modern = reply.response();
        return modern.error() != null ? modern : JsonRpc.Response.result(modern.id(), Legacy.result(modern.result()));
    }
}
