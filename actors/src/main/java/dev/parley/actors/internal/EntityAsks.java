package dev.parley.actors.internal;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.japi.function.Function;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * Asks an entity, sending the message again when an attempt gets no answer in time. A message
 * sent to a shard on a node that just died is lost until sharding moves the shard; resending
 * reaches the entity once it has. Only for messages the entities treat idempotently (all of
 * Parley's: a repeated round, start, update or cancel gets the recorded answer).
 */
public final class EntityAsks {
  private EntityAsks() {}

  public static <M, R> CompletionStage<R> ask(
      EntityRef<M> entity, Function<ActorRef<R>, M> message, Duration attempt, Duration total) {
    return attempt(entity, message, attempt, System.nanoTime() + total.toNanos());
  }

  private static <M, R> CompletionStage<R> attempt(
      EntityRef<M> entity, Function<ActorRef<R>, M> message, Duration attempt, long deadline) {
    long left = deadline - System.nanoTime();
    Duration timeout = Duration.ofNanos(Math.max(1, Math.min(attempt.toNanos(), left)));
    return PekkoStages.direct(entity.<R>ask(message, timeout))
        .handle((reply, failure) -> {
          Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
          if (cause == null) {
            return CompletableFuture.completedFuture(reply);
          }
          if (cause instanceof TimeoutException && deadline - System.nanoTime() > 0) {
            return attempt(entity, message, attempt, deadline);
          }
          return CompletableFuture.<R>failedFuture(cause);
        })
        .thenCompose(stage -> stage);
  }
}
