package dev.parley.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The probe starts both kinds of actor system with a node's configuration, and reports what it measured. */
class StartupProbeTest {

    @Test
    @Timeout(60)
    void startsAnActorSystemWithAndWithoutTheClusterAndReports() throws Exception {
        for (boolean cluster : new boolean[] {true, false}) {
            StartupProbe.Report report = StartupProbe.measure(cluster, Duration.ZERO);
            assertTrue(report.readyMillis() > 0, report.toString());
            assertTrue(report.classes() > 1_000, report.toString());
            assertTrue(report.rssMegabytes() > 0, report.toString());
        }
    }
}
