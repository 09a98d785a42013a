package dev.parley.actors.internal;

import dev.parley.actors.internal.journal.JournalAvailability;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.japi.function.Function;

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

    /**
     * As above, for a message whose answer needs the journal (the entity writes, or recovers to
     * answer): refused at once while {@code journal} is unavailable, and ended when it becomes
     * unavailable during the ask or an attempt goes unanswered while it is, with
     * {@link JournalAvailability.Unavailable}.
     */
    public static <M, R> CompletionStage<R> ask(
            JournalAvailability journal,
            EntityRef<M> entity,
            Function<ActorRef<R>, M> message,
            Duration attempt,
            Duration total) {
        long deadline = System.nanoTime() + total.toNanos();
        return journal.guard(() -> attempt(entity, message, attempt, deadline, journal));
    }

    /**
     * As above, for a message the entity may well answer from memory (a 2025-11-25 session's
     * look-up, an answer to a waiting call's question): sent even while {@code journal} is
     * unavailable, but ended with {@link JournalAvailability.Unavailable} when an attempt goes
     * unanswered while it is, instead of waiting out {@code total}.
     */
    public static <M, R> CompletionStage<R> askUnlessUnanswered(
            JournalAvailability journal,
            EntityRef<M> entity,
            Function<ActorRef<R>, M> message,
            Duration attempt,
            Duration total) {
        return attempt(entity, message, attempt, System.nanoTime() + total.toNanos(), journal);
    }

    private static <M, R> CompletionStage<R> attempt(
            EntityRef<M> entity, Function<ActorRef<R>, M> message, Duration attempt, long deadline) {
        return attempt(entity, message, attempt, deadline, null);
    }

    private static <M, R> CompletionStage<R> attempt(
            EntityRef<M> entity,
            Function<ActorRef<R>, M> message,
            Duration attempt,
            long deadline,
            JournalAvailability journal) {
        long left = deadline - System.nanoTime();
        Duration timeout = Duration.ofNanos(Math.max(1, Math.min(attempt.toNanos(), left)));
        return PekkoStages.direct(entity.<R>ask(message, timeout))
                .handle((reply, failure) -> {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause()
                            : failure;
                    if (cause == null) {
                        return CompletableFuture.completedFuture(reply);
                    }
                    if (cause instanceof TimeoutException && journal != null && !journal.available()) {
                        return CompletableFuture.<R>failedFuture(new JournalAvailability.Unavailable());
                    }
                    if (cause instanceof TimeoutException && deadline - System.nanoTime() > 0) {
                        return attempt(entity, message, attempt, deadline, journal);
                    }
                    return CompletableFuture.<R>failedFuture(cause);
                })
                .thenCompose(stage -> stage);
    }
}
