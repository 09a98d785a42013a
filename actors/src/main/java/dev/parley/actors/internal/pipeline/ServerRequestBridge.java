package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.parley.actors.ParleySettings;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.state.InvalidRequestStateException;
import dev.parley.runtime.internal.state.PointerBinding;
import dev.parley.runtime.internal.state.SealedPointers;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The same recorded asks, delivered the 2025-11-25 way: each open question of a waiting call
 * becomes a server→client JSON-RPC request ({@code elicitation/create}, {@code sampling/createMessage},
 * {@code roots/list}); the client's response, posted back to any node, is recorded in the call's
 * {@link ToolCallEntity} exactly like a 2026-07-28 {@code inputResponses} entry, and the request
 * stream waits for the round's outcome through the entity. So a 2025 call waiting for an answer is
 * as durable as a 2026 one, and no part of it is tied to a node.
 *
 * <p>A request id is {@code <key>.<sealed>}: the question's key, then a seal of the call id and
 * round bound to the principal and the key (the same HMAC keys as {@code requestState}), so an
 * answer finds its entity through sharding and nobody can answer another principal's question.
 */
public final class ServerRequestBridge {
    private static final Logger log = LoggerFactory.getLogger(ServerRequestBridge.class);

    private final ActorSystem<?> system;
    private final SealedPointers stateCodec;
    private final ClusterSharding sharding;
    private final ParleySettings settings;
    private final dev.parley.actors.internal.journal.JournalAvailability journal;

    ServerRequestBridge(
            ActorSystem<?> system,
            SealedPointers stateCodec,
            ClusterSharding sharding,
            ParleySettings settings,
            dev.parley.actors.internal.journal.JournalAvailability journal) {
        this.system = system;
        this.stateCodec = stateCodec;
        this.sharding = sharding;
        this.settings = settings;
        this.journal = journal;
    }

    /** The server→client request for the open question {@code key} of {@code waiting}. */
    public JsonRpc.Request requestFor(McpRequest request, McpReply.InputRequired waiting, String key) {
        InputRequest question = waiting.result().inputRequests().get(key);
        String sealed = stateCodec.seal(waiting.callId(), waiting.round(), binding(request.principal(), key));
        String id = key + "." + sealed;
        return new JsonRpc.Request(TextNode.valueOf(id), question.method(), withElicitationId(question.params(), id));
    }

    /**
     * A URL-mode elicitation needs an {@code elicitationId} on 2025-11-25 (2026-07-28 dropped it);
     * the request's id is unique per call, round and question, so it serves. Without it the
     * TypeScript SDK v1 client rejects the request, which counts as {@code cancel}.
     */
    private static JsonNode withElicitationId(JsonNode params, String id) {
        if (params == null
                || !params.isObject()
                || !"url".equals(params.path("mode").asText())) {
            return params;
        }
        com.fasterxml.jackson.databind.node.ObjectNode copy =
                ((com.fasterxml.jackson.databind.node.ObjectNode) params).deepCopy();
        copy.put("elicitationId", id);
        return copy;
    }

    /**
     * Records a posted response as the answer to its question. A response that is not to a live
     * question of this principal is ignored (logged), as the spec allows for late or unknown ids.
     * A JSON-RPC error answering an elicitation counts as {@code cancel}.
     */
    public CompletionStage<Void> answer(JsonRpc.ClientResponse response, String principal, JsonNode capabilities) {
        Target target = target(response.id(), principal);
        if (target == null) {
            return CompletableFuture.completedFuture(null);
        }
        JsonNode answer =
                response.result() != null ? response.result() : Json.object().put("action", "cancel");
        EntityRef<ToolCallEntity.Command> call = sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, target.callId());
        // an answer the journal cannot take ends with a 503 (the client posts it again)
        return dev.parley.actors.internal.EntityAsks.<ToolCallEntity.Command, ToolCallEntity.Reply>askUnlessUnanswered(
                        journal,
                        call,
                        replyTo -> new ToolCallEntity.AnswerQuestion(
                                target.key(),
                                answer,
                                principal,
                                capabilities == null
                                        ? Json.object()
                                        : (com.fasterxml.jackson.databind.node.ObjectNode) capabilities,
                                replyTo),
                        settings.askAttemptTimeout(),
                        settings.askTimeout())
                .thenAccept(reply -> {
                    if (reply instanceof ToolCallEntity.Rejected rejected) {
                        log.info(
                                "answer to {} refused: {}",
                                target.key(),
                                rejected.error().message());
                    }
                });
    }

    /**
     * What the round {@code waiting} ends with once its answers are in: the next round's
     * questions, the result, or an error. Asks the entity again while an attempt gets no answer,
     * until {@code cancellation} fires or the round outlives a {@code requestState}. The progress
     * and log notifications of the run the answers start go to {@code notices}, through a relay
     * the entity keeps while the round is open (the answer, and so the run, may be on any node).
     */
    public CompletionStage<McpReply.Final> next(
            McpRequest request,
            McpReply.InputRequired waiting,
            RunEnvironment.RequestSink notices,
            Cancellation cancellation) {
        ActorRef<Object> relay = RoundNoticeRelay.start(system, notices);
        long deadline = System.nanoTime() + settings.requestStateLifetime().toNanos();
        CompletionStage<McpReply.Final> next = await(
                request,
                waiting.callId(),
                waiting.round(),
                relay == null ? null : relay.narrow(),
                cancellation,
                deadline);
        return RoundNoticeRelay.after(relay, next);
    }

    /** Stops the run of {@code round} of call {@code callId} if one is running, on whichever node it runs. */
    public void cancelRound(String callId, int round) {
        sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, callId).tell(new ToolCallEntity.CancelRound(round));
    }

    /**
     * What {@code round} of call {@code callId} ended with, from the call's journal (round 0: the
     * first round); waits while it has not ended. For a resuming stream.
     */
    public CompletionStage<McpReply.Final> outcomeOf(
            McpRequest request, String callId, int round, Cancellation cancellation) {
        long deadline = System.nanoTime() + settings.requestStateLifetime().toNanos();
        return await(request, callId, round, null, cancellation, deadline);
    }

    private CompletionStage<McpReply.Final> await(
            McpRequest request,
            String callId,
            int round,
            ActorRef<ToolCallEntity.RoundNotice> notices,
            Cancellation cancellation,
            long deadline) {
        EntityRef<ToolCallEntity.Command> call = sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, callId);
        Duration attempt = settings.askAttemptTimeout();
        return dev.parley.actors.internal.PekkoStages.direct(call.<ToolCallEntity.Reply>ask(
                        replyTo -> new ToolCallEntity.AwaitRound(round, request.principal(), notices, replyTo),
                        attempt))
                .handle((reply, failure) -> {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause()
                            : failure;
                    if (cause instanceof TimeoutException
                            && !cancellation.isCancelled()
                            && System.nanoTime() < deadline) {
                        return await(request, callId, round, notices, cancellation, deadline);
                    }
                    if (cause != null) {
                        return CompletableFuture.<McpReply.Final>failedFuture(cause);
                    }
                    return CompletableFuture.completedFuture(toReply(request, callId, reply));
                })
                .thenCompose(stage -> stage);
    }

    private McpReply.Final toReply(McpRequest request, String callId, ToolCallEntity.Reply reply) {
        if (reply instanceof ToolCallEntity.Asked asked) {
            Map<String, InputRequest> open = new java.util.LinkedHashMap<>();
            asked.questions().forEach(question -> open.put(question.key(), question.request()));
            return new McpReply.InputRequired(
                    request.id(),
                    new dev.parley.runtime.internal.wire.Mrtr.InputRequiredResult(open, null),
                    callId,
                    asked.round());
        }
        if (reply instanceof ToolCallEntity.Finished finished) {
            return new McpReply.Complete(request.id(), finished.result());
        }
        if (reply instanceof ToolCallEntity.Rejected rejected) {
            return McpReply.Error.inBand(request.id(), rejected.error());
        }
        // A 2025-11-25 request never runs as a task: its runs are synchronous.
        return McpReply.Error.inBand(request.id(), ToolCallEntity.INVALID_STATE);
    }

    /**
     * Journals the outcome of a 2025 first round that ended after its stream's connection went
     * away, under the id the request named its call with, for the client's resuming stream. A first
     * round that asked is journaled already (its call started under that id).
     */
    void recordFirstRound(McpRequest request, McpReply.Final reply) {
        if (request.callId() == null || reply instanceof McpReply.InputRequired) {
            return;
        }
        ObjectNode result = null;
        dev.parley.runtime.internal.wire.JsonRpc.ErrorObject error = null;
        if (reply instanceof McpReply.Complete complete) {
            result = Json.MAPPER.valueToTree(complete.result());
        } else {
            error = reply.response().error();
        }
        String name = request.params()
                .path(request.method().equals("resources/read") ? "uri" : "name")
                .asText("");
        JsonNode arguments = request.params().get("arguments");
        ObjectNode args = arguments instanceof ObjectNode object ? object : Json.object();
        ObjectNode outcome = result;
        dev.parley.runtime.internal.wire.JsonRpc.ErrorObject failure = error;
        EntityRef<ToolCallEntity.Command> call =
                sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, request.callId());
        dev.parley.actors.internal.EntityAsks.<ToolCallEntity.Command, ToolCallEntity.Reply>ask(
                        call,
                        replyTo -> new ToolCallEntity.RecordFirstRound(
                                request.method(), name, args, request.principal(), outcome, failure, replyTo),
                        settings.askAttemptTimeout(),
                        settings.askTimeout())
                .whenComplete((recorded, problem) -> {
                    if (problem != null) {
                        log.warn(
                                "could not journal the first round of call {} for its resuming stream",
                                request.callId(),
                                problem);
                    }
                });
    }

    private record Target(String callId, String key) {}

    private Target target(JsonNode id, String principal) {
        if (id == null || !id.isTextual()) {
            return null;
        }
        String text = id.asText();
        int dot = text.lastIndexOf('.'); // a key may hold dots; the seal (base64url) never does
        if (dot <= 0) {
            return null;
        }
        String key = text.substring(0, dot);
        try {
            SealedPointers.Opened opened = stateCodec.open(text.substring(dot + 1), binding(principal, key));
            return new Target(opened.pointer(), key);
        } catch (InvalidRequestStateException e) {
            log.info("ignored a response to an unknown server request: {}", e.getMessage());
            return null;
        }
    }

    private static PointerBinding binding(String principal, String key) {
        return PointerBinding.serverRequestId(principal, key);
    }
}
