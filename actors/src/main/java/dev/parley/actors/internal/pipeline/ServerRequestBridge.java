package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.parley.actors.ParleySettings;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.state.InvalidRequestStateException;
import dev.parley.runtime.internal.state.RequestStateBinding;
import dev.parley.runtime.internal.state.RequestStateCodec;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

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
  private static final String ANSWER_BINDING = "server-request";

  private final RequestStateCodec stateCodec;
  private final ClusterSharding sharding;
  private final ParleySettings settings;

  ServerRequestBridge(RequestStateCodec stateCodec, ClusterSharding sharding, ParleySettings settings) {
    this.stateCodec = stateCodec;
    this.sharding = sharding;
    this.settings = settings;
  }

  /** The server→client requests for the questions of {@code waiting} not in {@code alreadySent}. */
  public List<JsonRpc.Request> requestsFor(McpRequest request, McpReply.InputRequired waiting, java.util.Set<String> alreadySent) {
    List<JsonRpc.Request> requests = new ArrayList<>();
    for (Map.Entry<String, InputRequest> question : waiting.result().inputRequests().entrySet()) {
      String key = question.getKey();
      if (alreadySent.add(key)) {
        String sealed = stateCodec.seal(waiting.callId(), waiting.round(), binding(request.principal(), key));
        String id = key + "." + sealed;
        requests.add(new JsonRpc.Request(TextNode.valueOf(id), question.getValue().method(),
            withElicitationId(question.getValue().params(), id)));
      }
    }
    return requests;
  }

  /**
   * A URL-mode elicitation needs an {@code elicitationId} on 2025-11-25 (2026-07-28 dropped it);
   * the request's id is unique per call, round and question, so it serves. Without it the
   * TypeScript SDK v1 client rejects the request, which counts as {@code cancel}.
   */
  private static JsonNode withElicitationId(JsonNode params, String id) {
    if (params == null || !params.isObject() || !"url".equals(params.path("mode").asText())) {
      return params;
    }
    com.fasterxml.jackson.databind.node.ObjectNode copy = ((com.fasterxml.jackson.databind.node.ObjectNode) params).deepCopy();
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
    JsonNode answer = response.result() != null ? response.result() : Json.object().put("action", "cancel");
    EntityRef<ToolCallEntity.Command> call = sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, target.callId());
    return dev.parley.actors.internal.EntityAsks.<ToolCallEntity.Command, ToolCallEntity.Reply>ask(call,
            replyTo -> new ToolCallEntity.AnswerQuestion(target.key(), answer, principal,
                capabilities == null ? Json.object() : (com.fasterxml.jackson.databind.node.ObjectNode) capabilities, replyTo),
            settings.askAttemptTimeout(), settings.askTimeout())
        .thenAccept(reply -> {
          if (reply instanceof ToolCallEntity.Rejected rejected) {
            log.info("answer to {} refused: {}", target.key(), rejected.error().message());
          }
        });
  }

  /**
   * What the round {@code waiting} ends with once its answers are in: the next round's
   * questions, the result, or an error. Asks the entity again while an attempt gets no answer,
   * until {@code cancellation} fires or the round outlives a {@code requestState}.
   */
  public CompletionStage<McpReply.Final> next(McpRequest request, McpReply.InputRequired waiting, Cancellation cancellation) {
    long deadline = System.nanoTime() + settings.requestStateLifetime().toNanos();
    return await(request, waiting, cancellation, deadline);
  }

  private CompletionStage<McpReply.Final> await(McpRequest request, McpReply.InputRequired waiting,
      Cancellation cancellation, long deadline) {
    EntityRef<ToolCallEntity.Command> call = sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, waiting.callId());
    Duration attempt = settings.askAttemptTimeout();
    return dev.parley.actors.internal.PekkoStages.direct(call.<ToolCallEntity.Reply>ask(
            replyTo -> new ToolCallEntity.AwaitRound(waiting.round(), request.principal(), replyTo), attempt))
        .handle((reply, failure) -> {
          Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
          if (cause instanceof TimeoutException && !cancellation.isCancelled() && System.nanoTime() < deadline) {
            return await(request, waiting, cancellation, deadline);
          }
          if (cause != null) {
            return CompletableFuture.<McpReply.Final>failedFuture(cause);
          }
          return CompletableFuture.completedFuture(toReply(request, waiting, reply));
        })
        .thenCompose(stage -> stage);
  }

  private McpReply.Final toReply(McpRequest request, McpReply.InputRequired waiting, ToolCallEntity.Reply reply) {
    if (reply instanceof ToolCallEntity.Asked asked) {
      Map<String, InputRequest> open = new java.util.LinkedHashMap<>();
      asked.questions().forEach(question -> open.put(question.key(), question.request()));
      return new McpReply.InputRequired(request.id(),
          new dev.parley.runtime.internal.wire.Mrtr.InputRequiredResult(open, null), waiting.callId(), asked.round());
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
      RequestStateCodec.Opened opened = stateCodec.open(text.substring(dot + 1), binding(principal, key));
      return new Target(opened.callId(), key);
    } catch (InvalidRequestStateException e) {
      log.info("ignored a response to an unknown server request: {}", e.getMessage());
      return null;
    }
  }

  private static RequestStateBinding binding(String principal, String key) {
    return new RequestStateBinding(principal, ANSWER_BINDING, key, "");
  }
}
