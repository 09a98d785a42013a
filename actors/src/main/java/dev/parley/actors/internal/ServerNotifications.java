package dev.parley.actors.internal;

import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ServerChange;
import dev.parley.runtime.internal.wire.Tasks.DetailedTask;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.BroadcastHub;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.SourceQueueWithComplete;

/**
 * Cluster-wide fan-out of server changes (list changed, resource updated) to the
 * {@code subscriptions/listen} streams of every node: a change made on any node is published
 * on a Pekko pub-sub topic; each node's subscriber feeds a broadcast hub its streams attach to.
 */
public final class ServerNotifications {
    private static final int BUFFER = 256;

    /** What listen streams receive: a server change, or a task's new state. */
    public sealed interface Notice {}

    public record ChangeNotice(ServerChange change) implements Notice {}

    /** {@code task} is the {@code DetailedTask}; only streams of {@code principal} may see it. */
    public record TaskNotice(String principal, String taskId, DetailedTask task) implements Notice {}

    /** What travels between nodes (one of the three groups of fields is set). */
    public record Published(
            ServerChange.ListKind listChanged,
            String resourceUpdated,
            String principal,
            String taskId,
            DetailedTask task)
            implements CborSerializable {
        static Published of(ServerChange change) {
            return change instanceof ServerChange.ListChanged listChanged
                    ? new Published(listChanged.kind(), null, null, null, null)
                    : new Published(null, ((ServerChange.ResourceUpdated) change).uri(), null, null, null);
        }

        Notice notice() {
            if (taskId != null) {
                return new TaskNotice(principal, taskId, task);
            }
            return new ChangeNotice(
                    listChanged != null
                            ? new ServerChange.ListChanged(listChanged)
                            : new ServerChange.ResourceUpdated(resourceUpdated));
        }
    }

    private final Source<Notice, NotUsed> notices;
    private final ActorRef<Topic.Command<Published>> topic;

    private final List<Consumer<TaskNotice>> taskListeners;

    private ServerNotifications(
            Source<Notice, NotUsed> notices,
            ActorRef<Topic.Command<Published>> topic,
            List<Consumer<TaskNotice>> taskListeners) {
        this.notices = notices;
        this.topic = topic;
        this.taskListeners = taskListeners;
    }

    public static ServerNotifications start(ActorSystem<?> system, McpServerDefinition server) {
        Materializer materializer = Materializer.matFromSystem(system);
        Pair<SourceQueueWithComplete<Notice>, Source<Notice, NotUsed>> hub = Source.<Notice>queue(
                        BUFFER, OverflowStrategy.dropHead())
                .toMat(BroadcastHub.of(Notice.class, BUFFER), Keep.both())
                .run(materializer);
        // Keep the hub drained, so a stream that attaches later never sees old changes.
        hub.second().runWith(Sink.ignore(), materializer);

        ActorRef<Topic.Command<Published>> topic = system.systemActorOf(
                Topic.create(Published.class, "parley-server-changes"), "parley-server-changes", Props.empty());
        List<Consumer<TaskNotice>> taskListeners = new CopyOnWriteArrayList<>();
        ActorRef<Published> subscriber = system.systemActorOf(
                Behaviors.receive(Published.class)
                        .onMessage(Published.class, published -> {
                            Notice notice = published.notice();
                            if (notice instanceof TaskNotice task) {
                                taskListeners.forEach(listener -> listener.accept(task));
                            }
                            hub.first().offer(notice);
                            return Behaviors.same();
                        })
                        .build(),
                "parley-server-changes-subscriber",
                Props.empty());
        topic.tell(Topic.subscribe(subscriber));
        server.onChange(change -> topic.tell(Topic.publish(Published.of(change))));
        return new ServerNotifications(hub.second(), topic, taskListeners);
    }

    /** {@code listener} hears every task's new state from every node, on this node's subscriber (keep it short). */
    public void onTaskNotice(Consumer<TaskNotice> listener) {
        taskListeners.add(listener);
    }

    /** Announces a task's new state to every node's listen streams. */
    public void publishTask(String principal, String taskId, DetailedTask task) {
        topic.tell(Topic.publish(new Published(null, null, principal, taskId, task)));
    }

    /** Every notice from now on, from every node. */
    public Source<Notice, NotUsed> notices() {
        return notices;
    }
}
