package dev.parley.actors.internal;

import dev.parley.actors.internal.alone.LocalSharding;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/** Where a node's entities live: Pekko Cluster Sharding on a cluster's node, {@link LocalSharding} on a node alone. */
public final class NodeSharding {
    private NodeSharding() {}

    public static ClusterSharding of(ActorSystem<?> system) {
        return clustered(system) ? ClusterSharding.get(system) : LocalSharding.get(system);
    }

    /**
     * How many entities of {@code type} a node alone holds in memory (the console's figure). Here
     * because the http module may reach {@code actors.internal} but not its {@code alone} package.
     */
    public static CompletionStage<Integer> liveEntitiesAlone(
            ActorSystem<?> system, EntityTypeKey<?> type, Duration timeout) {
        return LocalSharding.get(system).liveEntities(type, timeout);
    }

    /** Whether {@code system} runs Pekko Cluster ({@code parley.cluster.mode}; an entity test kit may not). */
    public static boolean clustered(ActorSystem<?> system) {
        String provider = system.settings().config().getString("pekko.actor.provider");
        return provider.equals("cluster") || provider.equals("org.apache.pekko.cluster.ClusterActorRefProvider");
    }
}
