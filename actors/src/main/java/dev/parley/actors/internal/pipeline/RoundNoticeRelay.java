package dev.parley.actors.internal.pipeline;

import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.internal.engine.RunEnvironment;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Delivers the progress and log notifications of a round that runs in its entity (on any node of
 * the cluster) to the stream of the request that is waiting for it: a short-lived actor per
 * round, stopped when the round has answered.
 *
 * <p>The entity sends a round's notices before its reply, but they reach the stream by two paths
 * (this relay, and the ask that gets the reply): the stream writes the reply only once the relay
 * has delivered what it was sent before ({@link #drain}), so no notice comes after the result.
 */
final class RoundNoticeRelay {
    /** Stops the relay once everything queued before it is delivered, then completes {@code done}. */
    private record Drain(CompletableFuture<Void> done) {}

    private RoundNoticeRelay() {}

    /** A relay to {@code sink}, or null when the request wants no notifications. */
    static ActorRef<Object> start(ActorSystem<?> system, RunEnvironment.RequestSink sink) {
        if (sink == RunEnvironment.RequestSink.NONE) {
            return null;
        }
        return system.systemActorOf(forwardTo(sink), "round-notices-" + UUID.randomUUID(), Props.empty());
    }

    /** Stops {@code relay} after the notices it already has; completes when they are delivered. */
    static CompletionStage<Void> drain(ActorRef<Object> relay) {
        if (relay == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        relay.tell(new Drain(done));
        // A relay stopped with its node never answers: the reply must not wait for it.
        return done.completeOnTimeout(null, 5, TimeUnit.SECONDS);
    }

    /** {@code reply} once {@code relay} has delivered the notices sent before it. */
    static <T> CompletionStage<T> after(ActorRef<Object> relay, CompletionStage<T> reply) {
        return reply.handle((value, failure) -> drain(relay)
                        .thenCompose(drained -> failure == null
                                ? CompletableFuture.completedFuture(value)
                                : CompletableFuture.<T>failedFuture(failure)))
                .thenCompose(stage -> stage);
    }

    private static Behavior<Object> forwardTo(RunEnvironment.RequestSink sink) {
        return Behaviors.receive(Object.class)
                .onMessage(ToolCallEntity.RoundNotice.class, notice -> {
                    if (notice.level() != null) {
                        LogLevel.fromWire(notice.level())
                                .ifPresent(level -> sink.log(level, notice.logger(), notice.data()));
                    } else {
                        sink.progress(notice.progress(), notice.total(), notice.message());
                    }
                    return Behaviors.same();
                })
                .onMessage(Drain.class, drain -> {
                    drain.done().complete(null);
                    return Behaviors.stopped();
                })
                .build();
    }
}
