package dev.parley.benchmarks.load;

/**
 * Latencies in nanoseconds, in log-linear buckets: exact below 256 ns, then 128 buckets per
 * power of two (every recorded value is known to within 1/128, under 0.8 %). Fixed size,
 * allocation-free on record, so every worker keeps its own and they are merged at the end.
 * Not thread-safe.
 *
 * <p>Percentiles use the nearest-rank definition: the p-th percentile of n samples is the
 * smallest recorded value such that at least {@code ceil(p / 100 * n)} samples are at or below
 * it. A bucketed value is reported as the highest value of its bucket, clamped to the exact
 * minimum and maximum (so a percentile never overstates the maximum).
 */
public final class LatencyHistogram {
    private static final int SUB_BUCKETS = 128;
    private static final int EXACT = 2 * SUB_BUCKETS;
    /** Values are clamped to this (about 18 minutes); request timeouts are far below it. */
    static final long MAX_TRACKABLE = (1L << 40) - 1;

    private static final int BUCKETS = index(MAX_TRACKABLE) + 1;

    private final long[] counts = new long[BUCKETS];
    private long count;
    private long sum;
    private long min = Long.MAX_VALUE;
    private long max;

    public void record(long nanos) {
        long value = Math.max(0, Math.min(nanos, MAX_TRACKABLE));
        counts[index(value)]++;
        count++;
        sum += value;
        min = Math.min(min, value);
        max = Math.max(max, value);
    }

    public void merge(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        count += other.count;
        sum += other.sum;
        min = Math.min(min, other.min);
        max = Math.max(max, other.max);
    }

    public long count() {
        return count;
    }

    public long min() {
        return count == 0 ? 0 : min;
    }

    public long max() {
        return max;
    }

    public double mean() {
        return count == 0 ? 0 : (double) sum / count;
    }

    /** The nearest-rank {@code percentile} (0 < p ≤ 100) in nanoseconds; 0 when empty. */
    public long percentile(double percentile) {
        if (percentile <= 0 || percentile > 100 || Double.isNaN(percentile)) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + percentile);
        }
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * count));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.max(min, Math.min(max, highestInBucket(i)));
            }
        }
        return max;
    }

    static int index(long value) {
        if (value < EXACT) {
            return (int) value;
        }
        int msb = 63 - Long.numberOfLeadingZeros(value);
        int shift = msb - 7;
        return EXACT + (shift - 1) * SUB_BUCKETS + (int) ((value >>> shift) - SUB_BUCKETS);
    }

    static long lowestInBucket(int index) {
        if (index < EXACT) {
            return index;
        }
        int j = index - EXACT;
        int shift = j / SUB_BUCKETS + 1;
        long mantissa = j % SUB_BUCKETS + SUB_BUCKETS;
        return mantissa << shift;
    }

    static long highestInBucket(int index) {
        if (index < EXACT) {
            return index;
        }
        return lowestInBucket(index + 1) - 1;
    }
}
