package dev.parley.actors;

import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One INFO line for each change of the cluster an operator cares about in a failover: a node
 * joined, became unreachable or reachable again, and was removed (after which sharding starts
 * its shards, with their calls and tasks, on the remaining nodes).
 */
final class ClusterMembershipLog {
    private static final Logger log = LoggerFactory.getLogger(ClusterMembershipLog.class);

    private ClusterMembershipLog() {}

    static void start(ActorSystem<?> system) {
        system.systemActorOf(behavior(), "parley-cluster-membership-log", Props.empty());
    }

    private static Behavior<ClusterEvent.ClusterDomainEvent> behavior() {
        return Behaviors.setup(context -> {
            Cluster cluster = Cluster.get(context.getSystem());
            cluster.subscriptions()
                    .tell(Subscribe.create(
                            context.getSelf().<ClusterEvent.MemberEvent>narrow(), ClusterEvent.MemberEvent.class));
            cluster.subscriptions()
                    .tell(Subscribe.create(
                            context.getSelf().<ClusterEvent.ReachabilityEvent>narrow(),
                            ClusterEvent.ReachabilityEvent.class));
            return Behaviors.receive(ClusterEvent.ClusterDomainEvent.class)
                    .onMessage(ClusterEvent.MemberUp.class, event -> {
                        log.info("cluster: node {} joined (up)", event.member().address());
                        return Behaviors.same();
                    })
                    .onMessage(ClusterEvent.UnreachableMember.class, event -> {
                        log.info(
                                "cluster: node {} is unreachable",
                                event.member().address());
                        return Behaviors.same();
                    })
                    .onMessage(ClusterEvent.ReachableMember.class, event -> {
                        log.info(
                                "cluster: node {} is reachable again",
                                event.member().address());
                        return Behaviors.same();
                    })
                    .onMessage(ClusterEvent.MemberRemoved.class, event -> {
                        log.info(
                                "cluster: node {} removed (was {}); sharding hands its shards to the remaining nodes",
                                event.member().address(),
                                event.previousStatus());
                        return Behaviors.same();
                    })
                    .onAnyMessage(event -> Behaviors.same())
                    .build();
        });
    }
}
