package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A demo process collects its start's garbage once after it is ready ({@code
 * parley.lifecycle.collect-start-garbage}), then gives its free native memory back at an interval
 * ({@code trim-native-heap-every}), and does neither when that is off. The JVM's own logs say which
 * collections and trims ran and why.
 */
class StartGarbageIT {
    private static final String START_COLLECTION = "Pause Full (System.gc())";
    private static final String NATIVE_TRIM = "Manual Trim";
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
    void aReadyDemoTrimsItsNativeHeapAfterTheCollectionAndAgainAtTheInterval() throws InterruptedException {
        // The JVM's trim command (and its log tag) exists from 17.0.9 on glibc, as on the build machines.
        assumeTrue(Runtime.version().compareTo(Runtime.Version.parse("17.0.9")) >= 0, "a JVM before 17.0.9");
        DemoProcess demo = DemoProcess.start(
                data, List.of("-Xlog:trimnative:stdout", "-Dparley.lifecycle.trim-native-heap-every=1s"));
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (count(demo.output(), NATIVE_TRIM) < 3 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            String output = demo.output();
            assertTrue(count(output, NATIVE_TRIM) >= 3, () -> "fewer than three native trims in:\n" + output);
        } finally {
            demo.kill();
        }
    }

    @Test
    @Timeout(240)
    void withItOffTheDemoCollectsAndTrimsNothingExplicitly() throws InterruptedException {
        DemoProcess demo = DemoProcess.start(
                data,
                List.of(
                        "-Xlog:gc:stdout",
                        "-Xlog:trimnative:stdout",
                        "-Dparley.lifecycle.collect-start-garbage=off",
                        "-Dparley.lifecycle.trim-native-heap-every=1s"));
        try {
            Thread.sleep(6000); // three times the delay of the start collection
            String output = demo.output();
            assertFalse(output.contains(START_COLLECTION), () -> "a start collection in:\n" + output);
            assertFalse(output.contains(NATIVE_TRIM), () -> "a native trim in:\n" + output);
        } finally {
            demo.kill();
        }
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
            count++;
        }
        return count;
    }
}
