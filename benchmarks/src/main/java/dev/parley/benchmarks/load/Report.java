package dev.parley.benchmarks.load;

import static dev.parley.benchmarks.load.LevelResult.millis;
import static dev.parley.benchmarks.load.SvgChart.escape;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The summary on the console, the JSON file and the HTML report. */
public final class Report {
    private final LoadOptions options;
    private final List<LevelResult> levels;
    private final Instant startedAt;

    public Report(LoadOptions options, List<LevelResult> levels, Instant startedAt) {
        this.options = options;
        this.levels = levels;
        this.startedAt = startedAt;
    }

    public static String machine() {
        return Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + ", Java " + System.getProperty("java.version");
    }

    public String header() {
        return String.format(
                Locale.ROOT,
                "parley-load %s  flow=%s tool=%s protocol=%s client=%s%nmachine: %s",
                options.url(),
                options.flow().name().toLowerCase(Locale.ROOT),
                options.tool(),
                options.protocol().wire,
                options.client().name().toLowerCase(Locale.ROOT),
                machine());
    }

    public void print(PrintStream out) {
        out.println(header());
        for (LevelResult level : levels) {
            out.println();
            if (level.offeredRate() > 0) {
                out.printf(
                        Locale.ROOT,
                        "rate %.1f flows/s offered (open loop, at most %d in flight): %.1f s measured (after %.1f s warm-up)%n",
                        level.offeredRate(),
                        level.concurrency(),
                        level.measuredSeconds(),
                        options.warmup().toMillis() / 1000.0);
            } else {
                out.printf(
                        Locale.ROOT,
                        "concurrency %d: %.1f s measured (after %.1f s warm-up)%n",
                        level.concurrency(),
                        level.measuredSeconds(),
                        options.warmup().toMillis() / 1000.0);
            }
            out.printf(Locale.ROOT, "  flows    %10d  %10.1f/s%n", level.stats().flows(), level.flowsPerSecond());
            out.printf(
                    Locale.ROOT,
                    "  requests %10d  %10.1f/s   errors %d%n",
                    level.stats().requests(),
                    level.requestsPerSecond(),
                    level.stats().errorCount());
            out.printf(
                    Locale.ROOT,
                    "  %-13s %9s %10s %8s %8s %8s %8s %8s %7s%n",
                    "kind",
                    "count",
                    "rate/s",
                    "mean ms",
                    "p50 ms",
                    "p90 ms",
                    "p99 ms",
                    "max ms",
                    "errors");
            Set<String> kinds = new LinkedHashSet<>(level.stats().kinds().keySet());
            kinds.remove(LevelStats.FLOW);
            kinds.addAll(level.stats().errors().keySet());
            kinds.add(LevelStats.FLOW);
            for (String kind : kinds) {
                LatencyHistogram h = level.stats().kinds().getOrDefault(kind, new LatencyHistogram());
                long errors = level.stats().errors().getOrDefault(kind, Map.of()).values().stream()
                        .mapToLong(Long::longValue)
                        .sum();
                out.printf(
                        Locale.ROOT,
                        "  %-13s %9d %10.1f %8.2f %8.2f %8.2f %8.2f %8.2f %7d%n",
                        kind,
                        h.count(),
                        level.measuredSeconds() <= 0 ? 0 : h.count() / level.measuredSeconds(),
                        millis(h.mean()),
                        millis(h.percentile(50)),
                        millis(h.percentile(90)),
                        millis(h.percentile(99)),
                        millis(h.max()),
                        errors);
            }
            level.stats()
                    .errors()
                    .forEach((kind, byError) -> byError.forEach((error, count) ->
                            out.printf(Locale.ROOT, "  error  %-12s %-40s x %d%n", kind, error, count)));
            if (level.stats().warmupErrors() > 0) {
                out.printf(
                        Locale.ROOT,
                        "  (%d errors during warm-up or after the window, not counted)%n",
                        level.stats().warmupErrors());
            }
            out.printf(
                    Locale.ROOT,
                    "  client CPU %s; machine CPU busy %s%n",
                    cores(level.cpu().clientCores()),
                    level.cpu().machineBusy() < 0
                            ? "unknown"
                            : String.format(
                                    Locale.ROOT, "%.0f%%", 100 * level.cpu().machineBusy()));
            if (level.cpu().serverCores() >= 0) {
                StringBuilder perKind = new StringBuilder();
                level.serverCpuMillis()
                        .forEach((kind, millis) ->
                                perKind.append(String.format(Locale.ROOT, "  %s %.3f", kind, millis)));
                out.printf(
                        Locale.ROOT,
                        "  server CPU %.2f cores; ms per%s%n",
                        level.cpu().serverCores(),
                        perKind);
            }
        }
    }

    private static String cores(double cores) {
        if (cores < 0) {
            return "unknown";
        }
        int available = Runtime.getRuntime().availableProcessors();
        return String.format(Locale.ROOT, "%.2f cores (%.0f%% of %d)", cores, 100 * cores / available, available);
    }

    public ObjectNode toJson() {
        ObjectNode root = Json.object();
        root.put("tool", "parley-load");
        root.put("startedAt", startedAt.toString());
        ObjectNode machine = root.putObject("machine");
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        root.set("options", options.toJson());
        ArrayNode array = root.putArray("levels");
        levels.forEach(level -> array.add(level.toJson()));
        return root;
    }

    public void writeJson(Path file) throws IOException {
        createParent(file);
        Files.write(file, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(toJson()));
    }

    public void writeHtml(Path file) throws IOException {
        createParent(file);
        Files.writeString(file, html(), StandardCharsets.UTF_8);
    }

    private static void createParent(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
    }

    public String html() {
        StringBuilder html = new StringBuilder(32 * 1024);
        html.append(
                        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>parley-load report</title>\n")
                .append(
                        "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin:1em 0}")
                .append("th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}")
                .append(
                        "td:first-child,th:first-child{text-align:left}.chart{margin:1em 0}code{background:#f4f4f4;padding:1px 4px}</style>\n")
                .append("</head><body>\n<h1>parley-load report</h1>\n<p>");
        html.append("Target <code>")
                .append(escape(options.url().toString()))
                .append("</code>, flow <b>")
                .append(escape(options.flow().name().toLowerCase(Locale.ROOT)))
                .append("</b>, tool <code>")
                .append(escape(options.tool()))
                .append("</code> with <code>")
                .append(escape(options.arguments().toString()))
                .append("</code>, protocol ")
                .append(escape(options.protocol().wire))
                .append(", client ")
                .append(escape(options.client().name().toLowerCase(Locale.ROOT)))
                .append(".<br>Started ")
                .append(escape(startedAt.toString()))
                .append(" on ")
                .append(escape(machine()))
                .append(". Warm-up ")
                .append(options.warmup().toMillis() / 1000.0)
                .append(" s per level; ")
                .append(
                        options.duration() != null
                                ? "measured " + options.duration().toMillis() / 1000.0 + " s per level"
                                : "")
                .append(options.duration() != null && options.requests() != null ? ", at most " : "")
                .append(options.requests() != null ? options.requests() + " flows per level" : "")
                .append(".</p>\n");
        boolean open = options.openLoop();
        String axis = open ? "offered rate (flows/s)" : "concurrency (workers)";
        html.append("<h2>Summary</h2>\n<table><tr><th>")
                .append(open ? "offered flows/s" : "concurrency")
                .append("</th><th>flows/s</th><th>requests/s</th><th>flows</th>")
                .append(
                        "<th>errors</th><th>flow p50 ms</th><th>flow p99 ms</th><th>client CPU (cores)</th><th>machine CPU busy</th></tr>\n");
        for (LevelResult level : levels) {
            LatencyHistogram flow = level.stats().kinds().getOrDefault(LevelStats.FLOW, new LatencyHistogram());
            html.append(String.format(
                    Locale.ROOT,
                    "<tr><td>%s</td><td>%.1f</td><td>%.1f</td><td>%d</td><td>%d</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%s</td></tr>%n",
                    open
                            ? String.format(Locale.ROOT, "%.1f", level.offeredRate())
                            : String.valueOf(level.concurrency()),
                    level.flowsPerSecond(),
                    level.requestsPerSecond(),
                    level.stats().flows(),
                    level.stats().errorCount(),
                    millis(flow.percentile(50)),
                    millis(flow.percentile(99)),
                    level.cpu().clientCores(),
                    level.cpu().machineBusy() < 0
                            ? "?"
                            : String.format(
                                    Locale.ROOT, "%.0f%%", 100 * level.cpu().machineBusy())));
        }
        html.append("</table>\n");
        List<String> categories = levels.stream()
                .map(l -> open ? String.format(Locale.ROOT, "%.0f", l.offeredRate()) : String.valueOf(l.concurrency()))
                .toList();
        Set<String> kinds = new LinkedHashSet<>();
        levels.forEach(l -> kinds.addAll(l.stats().kinds().keySet()));
        if (levels.size() > 1) {
            html.append(open ? "<h2>Against offered rate</h2>\n" : "<h2>Against concurrency</h2>\n")
                    .append("<div class=\"chart\">")
                    .append(new SvgChart(open ? "Achieved throughput" : "Throughput", axis, "per second", categories)
                            .add(
                                    "flows/s",
                                    levels.stream()
                                            .mapToDouble(LevelResult::flowsPerSecond)
                                            .toArray())
                            .add(
                                    "requests/s",
                                    levels.stream()
                                            .mapToDouble(LevelResult::requestsPerSecond)
                                            .toArray())
                            .render())
                    .append("</div>\n");
            for (double percentile : new double[] {50, 99}) {
                SvgChart chart = new SvgChart(
                        String.format(Locale.ROOT, "Latency p%.0f by request kind", percentile),
                        axis,
                        "milliseconds",
                        categories);
                for (String kind : kinds) {
                    chart.add(
                            kind,
                            levels.stream()
                                    .mapToDouble(l -> {
                                        LatencyHistogram h = l.stats().kinds().get(kind);
                                        return h == null || h.count() == 0
                                                ? Double.NaN
                                                : millis(h.percentile(percentile));
                                    })
                                    .toArray());
                }
                html.append("<div class=\"chart\">").append(chart.render()).append("</div>\n");
            }
        }
        int seconds = levels.stream().mapToInt(l -> l.timeline().length).max().orElse(0);
        if (seconds > 1) {
            List<String> ticks = new ArrayList<>();
            for (int i = 0; i < seconds; i++) {
                ticks.add(String.valueOf(i + 1));
            }
            SvgChart timeline =
                    new SvgChart("Completed flows per second", "second of the measured window", "flows/s", ticks);
            for (LevelResult level : levels) {
                double[] values = new double[seconds];
                java.util.Arrays.fill(values, Double.NaN);
                for (int i = 0; i < level.timeline().length; i++) {
                    values[i] = level.timeline()[i];
                }
                timeline.add(level.label(), values);
            }
            html.append("<h2>Over time</h2>\n<div class=\"chart\">")
                    .append(timeline.render())
                    .append("</div>\n");
        }
        html.append("<h2>Latency by request kind</h2>\n");
        for (LevelResult level : levels) {
            html.append("<h3>")
                    .append(
                            level.offeredRate() > 0
                                    ? escape(level.label()) + " offered"
                                    : "concurrency " + level.concurrency())
                    .append("</h3>\n<table><tr><th>kind</th><th>count</th>")
                    .append(
                            "<th>rate/s</th><th>mean ms</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th></tr>\n");
            for (Map.Entry<String, LatencyHistogram> entry :
                    level.stats().kinds().entrySet()) {
                LatencyHistogram h = entry.getValue();
                html.append(String.format(
                        Locale.ROOT,
                        "<tr><td>%s</td><td>%d</td><td>%.1f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.2f</td></tr>%n",
                        escape(entry.getKey()),
                        h.count(),
                        level.measuredSeconds() <= 0 ? 0 : h.count() / level.measuredSeconds(),
                        millis(h.mean()),
                        millis(h.percentile(50)),
                        millis(h.percentile(90)),
                        millis(h.percentile(99)),
                        millis(h.percentile(99.9)),
                        millis(h.max())));
            }
            html.append("</table>\n");
            if (!level.stats().errors().isEmpty()) {
                html.append("<table><tr><th>request kind</th><th>error</th><th>count</th></tr>\n");
                level.stats()
                        .errors()
                        .forEach((kind, byError) -> byError.forEach((error, count) -> html.append("<tr><td>")
                                .append(escape(kind))
                                .append("</td><td>")
                                .append(escape(error))
                                .append("</td><td>")
                                .append(count)
                                .append("</td></tr>\n")));
                html.append("</table>\n");
            }
        }
        html.append("<p>Latencies are measured by the client from sending a request to reading its whole response. ")
                .append(
                        "A flow is one whole exchange (for <code>mrtr</code>: the call and every retry; for <code>task</code>: ")
                .append(
                        "creation, polls and updates until the task ended). Only samples that started and ended inside ")
                .append("the measured window count.</p>\n</body></html>\n");
        return html.toString();
    }
}
