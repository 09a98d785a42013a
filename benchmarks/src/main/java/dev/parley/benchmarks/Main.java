package dev.parley.benchmarks;

import dev.parley.benchmarks.baseline.BaselineServer;
import dev.parley.benchmarks.jmh.BenchRunner;
import dev.parley.benchmarks.load.FailoverDrill;
import dev.parley.benchmarks.load.LoadMain;
import java.util.Arrays;

/**
 * The launcher of {@code parley-benchmarks.jar} and {@code parley-load.jar} (the same jar):
 * {@code jmh ...} runs the JMH benchmarks, {@code baseline ...} starts the bare pekko-http
 * route, {@code load ...} (or any arguments that start with an option) runs the load generator,
 * {@code targets ...} turns result files into the target table of docs/performance.md,
 * {@code failover ...} runs the failover drill (scripts/failover-drill.sh), {@code startup-probe
 * cluster|local} starts an actor system with and without remoting and the cluster (docs/performance.md,
 * "Start-up").
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        org.slf4j.LoggerFactory.getILoggerFactory(); // initialise logging before Pekko's threads log
        String command = args.length == 0 ? "help" : args[0];
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        switch (command) {
            case "jmh" -> BenchRunner.main(rest);
            case "baseline" -> BaselineServer.main(rest);
            case "load" -> System.exit(LoadMain.run(rest));
            case "targets" -> System.exit(Targets.run(rest));
            case "failover" -> System.exit(FailoverDrill.run(rest));
            case "startup-probe" -> System.exit(StartupProbe.run(rest));
            case "help", "-h", "--help" -> {
                System.out.println("""
            usage:
              java -jar parley-load.jar --url URL (--duration D | --requests N) [options]   load generator (--help)
              java -jar parley-load.jar baseline [--port 18090] [--journal DIR [--entities]]  bare pekko-http route
              java -jar parley-load.jar targets BASE.json CALL.json MRTR.json [JMH.json]      docs/performance.md target table
              java -jar parley-load.jar failover --nodes URL,URL,URL --kill-node N --kill-pid PID [--calls 200]   failover drill
              java -jar parley-load.jar startup-probe cluster|local [SETTLE_SECONDS]          an actor system's start with and without the cluster
              java -jar parley-benchmarks.jar jmh [REGEX...] [-Dparley.bench.short=true] [-- JMH options]""");
            }
            default -> {
                if (command.startsWith("-")) {
                    System.exit(LoadMain.run(args));
                }
                System.err.println("unknown command " + command
                        + " (jmh, load, baseline, targets, failover, startup-probe, help)");
                System.exit(2);
            }
        }
    }
}
