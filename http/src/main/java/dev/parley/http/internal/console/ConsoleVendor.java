package dev.parley.http.internal.console;

/** The version of the uPlot webjar the console serves; the same as {@code uplot.version} in the root pom. */
final class ConsoleVendor {
    static final String UPLOT_VERSION = "1.6.30";

    private ConsoleVendor() {}
}
