package dev.parley.actors.internal.pipeline;

import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.internal.engine.RunEnvironment;
import java.util.UUID;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Delivers the progress and log notifications of a round that runs in its entity (on any node of
 * the cluster) to the stream of the request that is waiting for it: a short-lived actor per
 * round, stopped when the round has answered.
 */
final class RoundNoticeRelay {
    private static final Object STOP = new Object();

    private RoundNoticeRelay() {}

    /** A relay to {@code sink}, or null when the request wants no notifications. */
    static ActorRef<Object> start(ActorSystem<?> system, RunEnvironment.RequestSink sink) {
        if (sink == RunEnvironment.RequestSink.NONE) {
            return null;
        }
        return system.systemActorOf(forwardTo(sink), "round-notices-" + UUID.randomUUID(), Props.empty());
    }

    static void stop(ActorRef<Object> relay) {
        if (relay != null) {
            relay.tell(STOP);
        }
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
                .onMessageEquals(STOP, Behaviors::stopped)
                .build();
    }
}
