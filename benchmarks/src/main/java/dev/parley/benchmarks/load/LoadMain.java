package dev.parley.benchmarks.load;

import java.time.Instant;
import java.util.List;

/** {@code java -jar parley-load.jar --url URL (--duration D | --requests N) [options]}. */
public final class LoadMain {
    private LoadMain() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /** Runs the load generator; the exit code (0 ok, 1 errors seen, 2 usage). */
    public static int run(String[] args) throws InterruptedException {
        LoadOptions options;
        try {
            options = LoadOptions.parse(args);
            options.checkTargetAllowed();
        } catch (LoadOptions.UsageException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("parley-load: " + e.getMessage());
                System.err.println();
            }
            System.err.print(LoadOptions.USAGE);
            return e.getMessage().isEmpty() ? 0 : 2;
        }
        Instant started = Instant.now();
        LoadGenerator generator = new LoadGenerator(options, System.out, System.console());
        System.out.println("parley-load: " + options.url() + " flow="
                + options.flow().name().toLowerCase()
                + " tool=" + options.tool() + " concurrency=" + options.concurrency()
                + (options.duration() != null
                        ? " duration=" + options.duration().toMillis() / 1000.0 + "s"
                        : "")
                + (options.requests() != null ? " requests=" + options.requests() : "")
                + " warmup=" + options.warmup().toMillis() / 1000.0 + "s");
        List<LevelResult> levels = generator.run();
        Report report = new Report(options, levels, started);
        System.out.println();
        report.print(System.out);
        try {
            if (options.json() != null) {
                report.writeJson(options.json());
                System.out.println("JSON written to " + options.json().toAbsolutePath());
            }
            if (options.html() != null) {
                report.writeHtml(options.html());
                System.out.println("HTML report written to " + options.html().toAbsolutePath());
            }
        } catch (java.io.IOException e) {
            System.err.println("parley-load: could not write the report: " + e.getMessage());
            return 1;
        }
        boolean anyFlow = levels.stream().anyMatch(level -> level.stats().flows() > 0);
        boolean errors = levels.stream().anyMatch(level -> level.stats().errorCount() > 0);
        return anyFlow && !errors ? 0 : 1;
    }
}
