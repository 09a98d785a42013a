package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A demo process collects its start's garbage once after it is ready ({@code
 * parley.lifecycle.collect-start-garbage}), and not when that is off. The JVM's own GC log says
 * which collections ran and why.
 */
class StartGarbageIT {
    private static final String START_COLLECTION = "Pause Full (System.gc())";
    private static final List<String> GC_LOG = List.of("-Xlog:gc:stdout");

    @TempDir
    Path data;

    @Test
    @Timeout(240)
    void aReadyDemoCollectsItsStartGarbageOnce() throws InterruptedException {
        DemoProcess demo = DemoProcess.start(data, GC_LOG);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!demo.output().contains(START_COLLECTION) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            String output = demo.output();
            assertTrue(output.contains(START_COLLECTION), () -> "no start collection in:\n" + output);
            Thread.sleep(3000);
            String later = demo.output();
            assertTrue(
                    later.indexOf(START_COLLECTION) == later.lastIndexOf(START_COLLECTION),
                    () -> "more than one start collection in:\n" + later);
        } finally {
            demo.kill();
        }
    }

    @Test
    @Timeout(240)
    void withItOffTheDemoCollectsNothingExplicitly() throws InterruptedException {
        DemoProcess demo =
                DemoProcess.start(data, List.of("-Xlog:gc:stdout", "-Dparley.lifecycle.collect-start-garbage=off"));
        try {
            Thread.sleep(6000); // three times the delay of the start collection
            String output = demo.output();
            assertFalse(output.contains(START_COLLECTION), () -> "a start collection in:\n" + output);
        } finally {
            demo.kill();
        }
    }
}
