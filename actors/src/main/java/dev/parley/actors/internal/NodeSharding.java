package dev.parley.actors.internal;

import dev.parley.actors.internal.alone.LocalSharding;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/** Where a node's entities live: Pekko Cluster Sharding on a cluster's node, {@link LocalSharding} on a node alone. */
public final class NodeSharding {
    private NodeSharding() {}

    public static ClusterSharding of(ActorSystem<?> system) {
        return clustered(system) ? ClusterSharding.get(system) : LocalSharding.get(system);
    }

    /** Whether {@code system} runs Pekko Cluster ({@code parley.cluster.mode}; an entity test kit may not). */
    public static boolean clustered(ActorSystem<?> system) {
        String provider = system.settings().config().getString("pekko.actor.provider");
        return provider.equals("cluster") || provider.equals("org.apache.pekko.cluster.ClusterActorRefProvider");
    }
}
