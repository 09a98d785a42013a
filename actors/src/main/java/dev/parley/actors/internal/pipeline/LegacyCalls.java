package dev.parley.actors.internal.pipeline;

import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.Legacy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One 2025-11-25 request that may ask, on any transport: its notifications, a server→client
 * request per question (each sent once), and, once the answers are in and the rounds have run,
 * its response, written the 2025 way. The transport only says where messages go.
 */
public final class LegacyCalls {
  private static final Logger log = LoggerFactory.getLogger(LegacyCalls.class);

  private final McpPipeline pipeline;

  LegacyCalls(McpPipeline pipeline) {
    this.pipeline = pipeline;
  }

  /**
   * Runs {@code request}, handing every message for the client to {@code emit}; completes after
   * the response was emitted, or without one once {@code stop} fired (the client went away or
   * cancelled). {@code run} cancels the handler itself.
   */
  public CompletionStage<Void> run(McpRequest request, Consumer<Object> emit, Cancellation run, Cancellation stop) {
    McpReply reply = pipeline.stream(request, run);
    CompletionStage<McpReply.Final> first = reply instanceof McpReply.Stream stream
        ? stream.notifications().runForeach(emit::accept, pipeline.materializer()).thenCompose(done -> stream.end())
        : CompletableFuture.completedFuture((McpReply.Final) reply);
    CompletableFuture<Void> done = new CompletableFuture<>();
    first.whenComplete((end, failure) -> continueWith(request, end, failure, emit, new HashSet<>(), stop, done));
    return done;
  }

  /**
   * Goes on from a first round that already ended with {@code first} (answered by
   * {@link McpPipeline#handle}): its questions, then its later rounds, then its response.
   */
  public CompletionStage<Void> continueFrom(McpRequest request, McpReply.Final first, Consumer<Object> emit,
      Cancellation stop) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    continueWith(request, first, null, emit, new HashSet<>(), stop, done);
    return done;
  }

  private void continueWith(McpRequest request, McpReply.Final reply, Throwable failure, Consumer<Object> emit,
      Set<String> sent, Cancellation stop, CompletableFuture<Void> done) {
    if (stop.isCancelled()) {
      done.complete(null);
      return;
    }
    if (failure != null || reply == null) {
      log.warn("a 2025-11-25 request ended without a reply", failure);
      emit.accept(JsonRpc.Response.error(request.id(), new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Internal error", null)));
      done.complete(null);
      return;
    }
    if (reply instanceof McpReply.InputRequired waiting) {
      pipeline.serverRequests().requestsFor(request, waiting, sent).forEach(emit);
      pipeline.serverRequests().next(request, waiting, stop)
          .whenComplete((next, error) -> continueWith(request, next, error, emit, sent, stop, done));
      return;
    }
    emit.accept(response(reply));
    done.complete(null);
  }

  /** A final reply as this era writes it: results without the 2026-only members. */
  public static JsonRpc.Response response(McpReply.Final reply) {
    JsonRpc.Response modern = reply.response();
    return modern.error() != null ? modern : JsonRpc.Response.result(modern.id(), Legacy.result(modern.result()));
  }
}
