package dev.parley.actors.internal.pipeline;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;

/** Cluster-wide pub-sub topics between the nodes' pipelines (every node, this one included, hears each message). */
final class NodeTopics {
    private static final AtomicInteger INSTANCES = new AtomicInteger(); // several nodes may share a JVM in tests

    private NodeTopics() {}

    /** Joins topic {@code name}: each message published on it, by any node, goes to {@code onMessage}. */
    static <T> ActorRef<Topic.Command<T>> join(
            ActorSystem<?> system, Class<T> type, String name, Consumer<T> onMessage) {
        int instance = INSTANCES.incrementAndGet();
        ActorRef<Topic.Command<T>> topic =
                system.systemActorOf(Topic.create(type, name), name + "-" + instance, Props.empty());
        ActorRef<T> subscriber = system.systemActorOf(
                Behaviors.receive(type)
                        .onMessage(type, message -> {
                            onMessage.accept(message);
                            return Behaviors.same();
                        })
                        .build(),
                name + "-subscriber-" + instance,
                Props.empty());
        topic.tell(Topic.subscribe(subscriber));
        return topic;
    }
}
