package dev.parley.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void smallValuesAreExactAndUseNearestRank() {
        LatencyHistogram histogram = new LatencyHistogram();
        LongStream.rangeClosed(1, 100).forEach(histogram::record);
        assertEquals(100, histogram.count());
        assertEquals(50, histogram.percentile(50));
        assertEquals(90, histogram.percentile(90));
        assertEquals(99, histogram.percentile(99));
        assertEquals(100, histogram.percentile(99.9));
        assertEquals(100, histogram.percentile(100));
        assertEquals(1, histogram.min());
        assertEquals(100, histogram.max());
        assertEquals(50.5, histogram.mean(), 1e-9);
    }

    @Test
    void nearestRankRoundsUp() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (long value : new long[] {10, 20, 30, 40}) {
            histogram.record(value);
        }
        // rank = ceil(p/100 * 4): p50 -> 2nd value, p51 -> 3rd, p1 -> 1st
        assertEquals(20, histogram.percentile(50));
        assertEquals(30, histogram.percentile(51));
        assertEquals(10, histogram.percentile(1));
    }

    @Test
    void largeValuesAreWithinOneBucketAndNeverAboveTheMaximum() {
        LatencyHistogram histogram = new LatencyHistogram();
        long[] values =
                new Random(7).longs(100_000, 1_000, 2_000_000_000L).sorted().toArray();
        for (long value : values) {
            histogram.record(value);
        }
        for (double p : new double[] {50, 90, 99, 99.9}) {
            long exact = values[(int) Math.ceil(p / 100 * values.length) - 1];
            long reported = histogram.percentile(p);
            assertTrue(reported >= exact, p + ": " + reported + " < " + exact);
            assertTrue(reported <= exact * 1.0079 + 1, p + ": " + reported + " too far above " + exact);
        }
        assertEquals(values[values.length - 1], histogram.percentile(100));
        assertEquals(values[values.length - 1], histogram.max());
    }

    @Test
    void bucketsAreContiguous() {
        for (int index = 0; index < 4351; index++) {
            assertEquals(
                    LatencyHistogram.highestInBucket(index) + 1,
                    LatencyHistogram.lowestInBucket(index + 1),
                    "bucket " + index);
            assertEquals(index, LatencyHistogram.index(LatencyHistogram.lowestInBucket(index)));
            assertEquals(index, LatencyHistogram.index(LatencyHistogram.highestInBucket(index)));
        }
        assertEquals(
                LatencyHistogram.MAX_TRACKABLE,
                LatencyHistogram.highestInBucket(LatencyHistogram.index(LatencyHistogram.MAX_TRACKABLE)));
    }

    @Test
    void mergeAddsCountsAndKeepsExtremes() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        LongStream.rangeClosed(1, 50).forEach(a::record);
        LongStream.rangeClosed(51, 100).forEach(b::record);
        a.merge(b);
        assertEquals(100, a.count());
        assertEquals(1, a.min());
        assertEquals(100, a.max());
        assertEquals(90, a.percentile(90));
    }

    @Test
    void emptyHistogramReportsZeroAndRejectsNonsense() {
        LatencyHistogram histogram = new LatencyHistogram();
        assertEquals(0, histogram.percentile(99));
        assertEquals(0, histogram.min());
        assertThrows(IllegalArgumentException.class, () -> histogram.percentile(0));
        assertThrows(IllegalArgumentException.class, () -> histogram.percentile(100.5));
    }

    @Test
    void negativeAndHugeValuesAreClamped() {
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(-5);
        histogram.record(Long.MAX_VALUE);
        assertEquals(0, histogram.min());
        assertEquals(LatencyHistogram.MAX_TRACKABLE, histogram.max());
    }
}
