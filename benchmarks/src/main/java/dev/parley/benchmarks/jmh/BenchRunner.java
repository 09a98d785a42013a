package dev.parley.benchmarks.jmh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code jmh [REGEX...] [-Dparley.bench.KEY=VALUE...] [-- JMH options]}: runs the Parley
 * benchmarks (all of them, or those matching a regex) and writes the results as JSON.
 *
 * <p>Properties (as JVM {@code -D} flags or as arguments): {@code parley.bench.short=true} (1 fork,
 * 1 × 2 s warm-up, 2 × 2 s measured: every benchmark in a few minutes on 2 cores),
 * {@code parley.bench.forks}, {@code parley.bench.warmupIterations}, {@code parley.bench.warmupTime}
 * (seconds), {@code parley.bench.iterations}, {@code parley.bench.time} (seconds),
 * {@code parley.bench.result} (default {@code target/jmh-result.json} beside the jar). JMH
 * options after {@code --} (e.g. {@code -- -t 4 -prof gc}) win over all of these.
 */
public final class BenchRunner {
    private BenchRunner() {}

    public static void main(String[] args) throws Exception {
        List<String> includes = new ArrayList<>();
        List<String> jmhArgs = new ArrayList<>();
        boolean passThrough = false;
        for (String arg : args) {
            if (passThrough) {
                jmhArgs.add(arg);
            } else if (arg.equals("--")) {
                passThrough = true;
            } else if (arg.startsWith("-D") && arg.contains("=")) {
                int eq = arg.indexOf('=');
                System.setProperty(arg.substring(2, eq), arg.substring(eq + 1));
            } else if (arg.equals("-h") || arg.equals("--help")) {
                System.out.println(
                        "usage: java -jar parley-benchmarks.jar jmh [REGEX...] [-Dparley.bench.short=true] [-- JMH options]");
                return;
            } else {
                includes.add(arg);
            }
        }
        CommandLineOptions command = new CommandLineOptions(jmhArgs.toArray(String[]::new));
        ChainedOptionsBuilder options = new OptionsBuilder().parent(command);
        if (command.getIncludes().isEmpty()) {
            if (includes.isEmpty()) {
                options.include("dev\\.parley\\.benchmarks\\.jmh\\..*");
            } else {
                includes.forEach(options::include);
            }
        }
        boolean quick = Boolean.getBoolean("parley.bench.short");
        if (!command.getForkCount().hasValue()) {
            Integer forks = integer("parley.bench.forks", quick ? 1 : null);
            if (forks != null) {
                options.forks(forks);
            }
        }
        if (!command.getWarmupIterations().hasValue()) {
            Integer value = integer("parley.bench.warmupIterations", quick ? 1 : null);
            if (value != null) {
                options.warmupIterations(value);
            }
        }
        if (!command.getWarmupTime().hasValue()) {
            Integer value = integer("parley.bench.warmupTime", quick ? 2 : null);
            if (value != null) {
                options.warmupTime(TimeValue.seconds(value));
            }
        }
        if (!command.getMeasurementIterations().hasValue()) {
            Integer value = integer("parley.bench.iterations", quick ? 2 : null);
            if (value != null) {
                options.measurementIterations(value);
            }
        }
        if (!command.getMeasurementTime().hasValue()) {
            Integer value = integer("parley.bench.time", quick ? 2 : null);
            if (value != null) {
                options.measurementTime(TimeValue.seconds(value));
            }
        }
        Path result = Path.of(
                System.getProperty("parley.bench.result", defaultResultFile().toString()));
        if (!command.getResult().hasValue()) {
            Files.createDirectories(result.toAbsolutePath().getParent());
            options.resultFormat(ResultFormatType.JSON).result(result.toString());
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        summarize(results);
        if (!command.getResult().hasValue()) {
            System.out.println("JMH results (JSON): " + result.toAbsolutePath());
        }
    }

    private static Integer integer(String property, Integer fallback) {
        String value = System.getProperty(property);
        return value == null || value.isBlank() ? fallback : Integer.valueOf(value.trim());
    }

    /** {@code target/jmh-result.json} beside the jar (or the classes directory) this runs from. */
    static Path defaultResultFile() {
        try {
            Path location = Path.of(BenchRunner.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            Path target = Files.isDirectory(location) ? location.getParent() : location.getParent();
            if (target != null
                    && target.getFileName() != null
                    && target.getFileName().toString().equals("target")) {
                return target.resolve("jmh-result.json");
            }
        } catch (Exception ignored) {
            // fall back to the working directory
        }
        return Path.of("target", "jmh-result.json");
    }

    /** The scores, and the ratios the performance targets are about. */
    static void summarize(Collection<RunResult> results) {
        Map<String, Double> scores = new LinkedHashMap<>();
        System.out.println();
        System.out.println("Parley benchmarks (higher is better):");
        for (RunResult run : results) {
            String name = run.getParams().getBenchmark().replace("dev.parley.benchmarks.jmh.", "");
            double score = run.getPrimaryResult().getScore();
            StringBuilder label = new StringBuilder(name);
            for (String key : run.getParams().getParamsKeys()) {
                String value = run.getParams().getParam(key);
                if (key.equals("journalParallelism") && value.equals("shipped")) {
                    continue;
                }
                label.append(' ').append(key).append('=').append(value);
                if (key.equals("journalParallelism")) {
                    name = name + " " + key + "=" + value;
                }
            }
            scores.putIfAbsent(name, score);
            System.out.printf(
                    Locale.ROOT,
                    "  %-60s %14.1f ± %-10.1f %s%n",
                    label,
                    score,
                    run.getPrimaryResult().getScoreError(),
                    run.getPrimaryResult().getScoreUnit());
        }
        ratio(
                scores,
                "JournalWriteBenchmark.entityWrites",
                "JournalWriteBenchmark.plainBatchedInserts",
                "journal write rate (entity on H2) / plain batched insert",
                0.50);
        ratio(
                scores,
                "HttpBenchmark.oneRoundCall",
                "HttpBenchmark.baselineOneRoundCall",
                "HTTP one-round tools/call / bare pekko-http route",
                0.80);
        ratio(
                scores,
                "HttpBenchmark.mrtrFlow",
                "HttpBenchmark.baselineOneRoundCall",
                "HTTP two-round MRTR flows / bare route requests",
                0.35);
    }

    private static void ratio(
            Map<String, Double> scores, String numerator, String denominator, String label, double target) {
        Double top = scores.get(numerator);
        Double bottom = scores.get(denominator);
        if (top != null && bottom != null && bottom > 0) {
            double ratio = top / bottom;
            System.out.printf(
                    Locale.ROOT,
                    "  %-60s %5.1f %% (target ≥ %.0f %%: %s)%n",
                    label,
                    100 * ratio,
                    100 * target,
                    ratio >= target ? "met" : "missed");
        }
    }
}
