package dev.parley.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code targets BASELINE.json CALL.json MRTR.json [JMH.json]}: the performance targets of the
 * docs/performance.md as a Markdown table, from one run of the load generator against the bare route
 * ({@code --flow call}), the demo server ({@code --flow call}) and the demo server
 * ({@code --flow mrtr}), and optionally a JMH result with {@code JournalWriteBenchmark}.
 * Each load file's first level is used. Exit code 0 when every target present is met.
 */
public final class Targets {
    private Targets() {}

    public static int run(String[] args) throws IOException {
        if (args.length < 3 || args.length > 4) {
            System.err.println("usage: java -jar parley-load.jar targets BASELINE.json CALL.json MRTR.json [JMH.json]");
            return 2;
        }
        JsonNode baseline = level(args[0]);
        JsonNode call = level(args[1]);
        JsonNode mrtr = level(args[2]);
        double bare = baseline.path("requestsPerSecond").asDouble();
        double calls = call.path("requestsPerSecond").asDouble();
        double flows = mrtr.path("flowsPerSecond").asDouble();
        double callP99 = call.path("kinds").path("call").path("p99Ms").asDouble();
        double retryP99 = mrtr.path("kinds").path("retry").path("p99Ms").asDouble();
        boolean allMet = true;
        System.out.println("| target | measured | ratio | result |");
        System.out.println("|---|---|---|---|");
        allMet &= row(
                "one-round `tools/call` ≥ 80 % of the bare route's requests/s",
                String.format(
                        Locale.ROOT,
                        "%,.0f req/s vs %,.0f req/s (c=%d / c=%d)",
                        calls,
                        bare,
                        call.path("concurrency").asInt(),
                        baseline.path("concurrency").asInt()),
                calls / bare,
                0.80,
                true);
        allMet &= row(
                "two-round MRTR flows on H2 ≥ 35 % of the bare route's requests/s",
                String.format(
                        Locale.ROOT,
                        "%,.0f flows/s vs %,.0f req/s (c=%d)",
                        flows,
                        bare,
                        mrtr.path("concurrency").asInt()),
                flows / bare,
                0.35,
                true);
        allMet &= row(
                "p99 of the retry ≤ 2 × p99 of a one-round call",
                String.format(Locale.ROOT, "%.1f ms vs %.1f ms", retryP99, callP99),
                retryP99 / callP99,
                2.0,
                false);
        if (args.length == 4) {
            JsonNode jmh = Json.MAPPER.readTree(Files.readAllBytes(Path.of(args[3])));
            double entity = score(jmh, "JournalWriteBenchmark.entityWrites");
            double plain = score(jmh, "JournalWriteBenchmark.plainBatchedInserts");
            if (entity > 0 && plain > 0) {
                allMet &= row(
                        "journal write rate ≥ 50 % of a plain batched insert",
                        String.format(Locale.ROOT, "%,.0f events/s vs %,.0f rows/s", entity, plain),
                        entity / plain,
                        0.50,
                        true);
            }
        }
        String errors = errors(baseline, call, mrtr);
        if (!errors.isEmpty()) {
            System.out.println();
            System.out.println("errors during the runs: " + errors);
        }
        return allMet ? 0 : 1;
    }

    private static boolean row(String target, String measured, double ratio, double bound, boolean atLeast) {
        boolean met = atLeast ? ratio >= bound : ratio <= bound;
        String shown = atLeast
                ? String.format(Locale.ROOT, "%.0f %%", 100 * ratio)
                : String.format(Locale.ROOT, "%.2f ×", ratio);
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s |%n", target, measured, shown, met ? "pass" : "**fail**");
        return met;
    }

    private static JsonNode level(String file) throws IOException {
        JsonNode root = Json.MAPPER.readTree(Files.readAllBytes(Path.of(file)));
        JsonNode level = root.path("levels").path(0);
        if (level.isMissingNode()) {
            throw new IOException(file + " is not a parley-load JSON result (no levels)");
        }
        return level;
    }

    private static double score(JsonNode jmh, String suffix) {
        for (JsonNode result : jmh) {
            if (result.path("benchmark").asText().endsWith(suffix)) {
                return result.path("primaryMetric").path("score").asDouble();
            }
        }
        return -1;
    }

    private static String errors(JsonNode... levels) {
        StringBuilder text = new StringBuilder();
        for (JsonNode level : levels) {
            if (level.path("errors").asLong() > 0) {
                text.append(level.path("errorsByKind")).append(' ');
            }
        }
        return text.toString().trim();
    }
}
