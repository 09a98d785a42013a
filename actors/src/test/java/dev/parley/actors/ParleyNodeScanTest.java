package dev.parley.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A journal scan takes at most a twentieth of the housekeeping thread, however long it runs. */
class ParleyNodeScanTest {
    private static final Duration INTERVAL = Duration.ofSeconds(15);

    @Test
    void aQuickScanRunsEveryInterval() {
        assertEquals(
                INTERVAL.toNanos(),
                ParleyNode.nextScanDelayNanos(INTERVAL, Duration.ofMillis(40).toNanos()));
        assertEquals(
                INTERVAL.toNanos(),
                ParleyNode.nextScanDelayNanos(INTERVAL, Duration.ofMillis(750).toNanos()));
    }

    @Test
    void aLongScanWaitsNineteenTimesItsDuration() {
        long took = Duration.ofSeconds(2).toNanos();
        long next = ParleyNode.nextScanDelayNanos(INTERVAL, took);
        assertEquals(Duration.ofSeconds(38).toNanos(), next);
        assertEquals(0.05, (double) took / (took + next), 1e-9, "the scan's share of the thread");
    }
}
