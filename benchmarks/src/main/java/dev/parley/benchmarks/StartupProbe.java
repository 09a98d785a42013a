package dev.parley.benchmarks;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.NodeConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * What a node alone pays for remoting and the cluster at start: starts an actor system with a
 * node's configuration ({@link NodeConfig}), either as a node starts it ({@code cluster}: Artery,
 * the cluster of one joined, sharding) or without remoting and the cluster ({@code local}), and
 * prints the time from the JVM's start to that point, the classes loaded, and the RSS a few
 * seconds later. Run each mode in a fresh JVM, alternately, a few times.
 */
final class StartupProbe {
    private StartupProbe() {}

    static int run(String[] args) throws Exception {
        if (args.length < 1 || !(args[0].equals("cluster") || args[0].equals("local"))) {
            System.err.println("usage: java -jar parley-load.jar startup-probe cluster|local [SETTLE_SECONDS]");
            return 2;
        }
        Duration settle = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 5);
        Report report = measure(args[0].equals("cluster"), settle);
        System.out.println(args[0] + ": " + report);
        return 0;
    }

    record Report(long readyMillis, long classes, long rssMegabytes) {
        @Override
        public String toString() {
            return "ready " + readyMillis + " ms after the JVM started, " + classes + " classes loaded, RSS "
                    + rssMegabytes + " MB";
        }
    }

    static Report measure(boolean cluster, Duration settle) throws Exception {
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        Config mode = ConfigFactory.parseString(
                cluster ? "pekko.remote.artery.canonical.port = 0" : "pekko.actor.provider = local");
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "startup-probe", NodeConfig.load(mode));
        try {
            if (cluster) {
                Cluster node = Cluster.get(system);
                node.manager().tell(new Join(node.selfMember().address()));
                ClusterSharding.get(system);
                while (node.selfMember().status() != MemberStatus.up()) {
                    Thread.sleep(5);
                }
            }
            long ready = System.currentTimeMillis() - jvmStart;
            Thread.sleep(settle.toMillis());
            return new Report(
                    ready, ManagementFactory.getClassLoadingMXBean().getLoadedClassCount(), residentMegabytes());
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().join();
        }
    }

    private static long residentMegabytes() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
            }
        }
        return -1;
    }
}
