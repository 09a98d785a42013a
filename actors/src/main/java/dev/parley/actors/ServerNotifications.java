package dev.parley.actors;

import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ServerChange;
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

  /** What travels between nodes. */
  public record Published(ServerChange.ListKind listChanged, String resourceUpdated) implements CborSerializable {
    static Published of(ServerChange change) {
      return change instanceof ServerChange.ListChanged listChanged
          ? new Published(listChanged.kind(), null)
          : new Published(null, ((ServerChange.ResourceUpdated) change).uri());
    }

    ServerChange change() {
      return listChanged != null ? new ServerChange.ListChanged(listChanged) : new ServerChange.ResourceUpdated(resourceUpdated);
    }
  }

  private final Source<ServerChange, NotUsed> changes;

  private ServerNotifications(Source<ServerChange, NotUsed> changes) {
    this.changes = changes;
  }

  public static ServerNotifications start(ActorSystem<?> system, McpServerDefinition server) {
    Materializer materializer = Materializer.matFromSystem(system);
    Pair<SourceQueueWithComplete<ServerChange>, Source<ServerChange, NotUsed>> hub =
        Source.<ServerChange>queue(BUFFER, OverflowStrategy.dropHead())
            .toMat(BroadcastHub.of(ServerChange.class, BUFFER), Keep.both())
            .run(materializer);
    // Keep the hub drained, so a stream that attaches later never sees old changes.
    hub.second().runWith(Sink.ignore(), materializer);

    ActorRef<Topic.Command<Published>> topic =
        system.systemActorOf(Topic.create(Published.class, "parley-server-changes"), "parley-server-changes", Props.empty());
    ActorRef<Published> subscriber = system.systemActorOf(Behaviors.receive(Published.class)
        .onMessage(Published.class, published -> {
          hub.first().offer(published.change());
          return Behaviors.same();
        }).build(), "parley-server-changes-subscriber", Props.empty());
    topic.tell(Topic.subscribe(subscriber));
    server.onChange(change -> topic.tell(Topic.publish(Published.of(change))));
    return new ServerNotifications(hub.second());
  }

  /** Every change from now on, from every node. */
  public Source<ServerChange, NotUsed> changes() {
    return changes;
  }
}
