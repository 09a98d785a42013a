package dev.parley.benchmarks.load;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import java.util.Map;

/**
 * The outcome of one level: a concurrency (closed loop), or an offered rate of flows per second
 * ({@code offeredRate} &gt; 0: open loop, with at most {@code concurrency} flows in flight).
 */
public record LevelResult(
        int concurrency,
        double offeredRate,
        double measuredSeconds,
        LevelStats stats,
        CpuSampler.Use cpu,
        long[] timeline) {

    public double flowsPerSecond() {
        return measuredSeconds <= 0 ? 0 : stats.flows() / measuredSeconds;
    }

    public double requestsPerSecond() {
        return measuredSeconds <= 0 ? 0 : stats.requests() / measuredSeconds;
    }

    /**
     * Server CPU milliseconds per request of each kind, when the server's pid was given. A level
     * whose flows send one kind of request (a one-round call, a tasks/get loop) gets that kind's
     * exact share; with several kinds in a flow the server's CPU cannot be split by kind from its
     * total, so only {@code flow} and {@code request} (all kinds together) are given.
     */
    public Map<String, Double> serverCpuMillis() {
        Map<String, Double> perKind = new java.util.LinkedHashMap<>();
        if (cpu.serverCpuSeconds() < 0 || stats.flows() == 0) {
            return perKind;
        }
        double millis = cpu.serverCpuSeconds() * 1000;
        perKind.put(LevelStats.FLOW, millis / stats.flows());
        perKind.put("request", millis / Math.max(1, stats.requests()));
        java.util.List<String> kinds = stats.kinds().keySet().stream()
                .filter(k -> !k.equals(LevelStats.FLOW))
                .toList();
        if (kinds.size() == 1) {
            perKind.put(
                    kinds.get(0),
                    millis / Math.max(1, stats.kinds().get(kinds.get(0)).count()));
        }
        return perKind;
    }

    /** How the level is named in reports: {@code c=64} or {@code 1000/s}. */
    public String label() {
        return offeredRate > 0 ? String.format(java.util.Locale.ROOT, "%.0f/s", offeredRate) : "c=" + concurrency;
    }

    public static double millis(double nanos) {
        return nanos / 1_000_000.0;
    }

    public ObjectNode toJson() {
        ObjectNode node = Json.object();
        node.put("concurrency", concurrency);
        if (offeredRate > 0) {
            node.put("offeredRatePerSecond", round(offeredRate, 1));
        }
        node.put("measuredSeconds", round(measuredSeconds, 3));
        node.put("flows", stats.flows());
        node.put("flowsPerSecond", round(flowsPerSecond(), 1));
        node.put("requests", stats.requests());
        node.put("requestsPerSecond", round(requestsPerSecond(), 1));
        node.put("errors", stats.errorCount());
        ObjectNode kinds = node.putObject("kinds");
        for (Map.Entry<String, LatencyHistogram> entry : stats.kinds().entrySet()) {
            LatencyHistogram h = entry.getValue();
            ObjectNode kind = kinds.putObject(entry.getKey());
            kind.put("count", h.count());
            kind.put("ratePerSecond", round(measuredSeconds <= 0 ? 0 : h.count() / measuredSeconds, 1));
            kind.put("meanMs", round(millis(h.mean()), 3));
            kind.put("p50Ms", round(millis(h.percentile(50)), 3));
            kind.put("p90Ms", round(millis(h.percentile(90)), 3));
            kind.put("p99Ms", round(millis(h.percentile(99)), 3));
            kind.put("p999Ms", round(millis(h.percentile(99.9)), 3));
            kind.put("maxMs", round(millis(h.max()), 3));
        }
        node.set("errorsByKind", Json.tree(stats.errors()));
        node.put("warmupErrors", stats.warmupErrors());
        node.put("clientCpuCores", round(cpu.clientCores(), 3));
        node.put("machineCpuBusy", round(cpu.machineBusy(), 3));
        if (cpu.serverCores() >= 0) {
            node.put("serverCpuCores", round(cpu.serverCores(), 3));
            ObjectNode perKind = node.putObject("serverCpuMsPerKind");
            serverCpuMillis().forEach((kind, millis) -> perKind.put(kind, round(millis, 4)));
        }
        node.set("flowsPerSecondTimeline", Json.tree(timeline));
        return node;
    }

    static double round(double value, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(value * scale) / scale;
    }
}
