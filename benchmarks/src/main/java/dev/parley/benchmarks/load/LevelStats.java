package dev.parley.benchmarks.load;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one worker (or, merged, one concurrency level) measured: latency per request kind and
 * for whole flows, errors by request kind and error kind, and completed flows per second.
 * Samples count only inside the measured window: started at or after its start, ended at or
 * before its end; in the open loop ({@code byStart}), every flow due in the window counts however
 * late it ends, since the late ones are the queueing an open loop is there to show. Not
 * thread-safe: one per worker, merged when the workers are done.
 */
public final class LevelStats {
    public static final String FLOW = "flow";

    private final long windowStart;
    private final long windowEnd;
    final Map<String, LatencyHistogram> kinds = new LinkedHashMap<>();
    final Map<String, Map<String, Long>> errors = new TreeMap<>();
    long[] flowsPerSecond = new long[64];
    long lastFlowEnd;
    long warmupErrors;

    private final boolean byStart;

    public LevelStats(long windowStart, long windowEnd) {
        this(windowStart, windowEnd, false);
    }

    public LevelStats(long windowStart, long windowEnd, boolean byStart) {
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
        this.byStart = byStart;
    }

    public boolean inWindow(long start, long end) {
        return start >= windowStart && (byStart ? start < windowEnd : end <= windowEnd);
    }

    public void request(String kind, long start, long end) {
        if (inWindow(start, end)) {
            kinds.computeIfAbsent(kind, k -> new LatencyHistogram()).record(end - start);
        }
    }

    public void flow(long start, long end) {
        if (!inWindow(start, end)) {
            return;
        }
        kinds.computeIfAbsent(FLOW, k -> new LatencyHistogram()).record(end - start);
        int second = (int) Math.min(Integer.MAX_VALUE - 1, (end - windowStart) / 1_000_000_000L);
        if (second >= flowsPerSecond.length) {
            flowsPerSecond = Arrays.copyOf(flowsPerSecond, Math.max(second + 1, flowsPerSecond.length * 2));
        }
        flowsPerSecond[second]++;
        lastFlowEnd = Math.max(lastFlowEnd, end);
    }

    /** A failed request; counted when the flow it ended started in the window. */
    public void error(String kind, String errorKind, long flowStart) {
        if (flowStart >= windowStart && (byStart ? flowStart < windowEnd : System.nanoTime() <= windowEnd)) {
            errors.computeIfAbsent(kind, k -> new TreeMap<>()).merge(errorKind, 1L, Long::sum);
        } else {
            warmupErrors++;
        }
    }

    public void merge(LevelStats other) {
        other.kinds.forEach((kind, histogram) ->
                kinds.computeIfAbsent(kind, k -> new LatencyHistogram()).merge(histogram));
        other.errors.forEach((kind, byError) -> byError.forEach((error, count) ->
                errors.computeIfAbsent(kind, k -> new TreeMap<>()).merge(error, count, Long::sum)));
        if (other.flowsPerSecond.length > flowsPerSecond.length) {
            flowsPerSecond = Arrays.copyOf(flowsPerSecond, other.flowsPerSecond.length);
        }
        for (int i = 0; i < other.flowsPerSecond.length; i++) {
            flowsPerSecond[i] += other.flowsPerSecond[i];
        }
        lastFlowEnd = Math.max(lastFlowEnd, other.lastFlowEnd);
        warmupErrors += other.warmupErrors;
    }

    public long flows() {
        LatencyHistogram flow = kinds.get(FLOW);
        return flow == null ? 0 : flow.count();
    }

    /** Successful requests of every kind. */
    public long requests() {
        return kinds.entrySet().stream()
                .filter(e -> !e.getKey().equals(FLOW))
                .mapToLong(e -> e.getValue().count())
                .sum();
    }

    public long errorCount() {
        return errors.values().stream()
                .flatMap(m -> m.values().stream())
                .mapToLong(Long::longValue)
                .sum();
    }

    public Map<String, LatencyHistogram> kinds() {
        return kinds;
    }

    public Map<String, Map<String, Long>> errors() {
        return errors;
    }

    public long lastFlowEnd() {
        return lastFlowEnd;
    }

    public long warmupErrors() {
        return warmupErrors;
    }

    /** Flows completed in each whole second of the window ({@code seconds} entries). */
    public long[] timeline(int seconds) {
        return Arrays.copyOf(flowsPerSecond, Math.max(0, seconds));
    }
}
