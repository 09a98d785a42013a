package dev.parley.benchmarks.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small line chart as inline SVG, no script: evenly spaced categories (such as concurrency
 * levels) or a numeric x axis (such as seconds), a y axis from zero with rounded ticks, and a legend.
 */
public final class SvgChart {
    private static final String[] COLORS = {
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"
    };
    private static final int WIDTH = 720;
    private static final int HEIGHT = 340;
    private static final int LEFT = 70;
    private static final int RIGHT = 170;
    private static final int TOP = 36;
    private static final int BOTTOM = 48;

    public record Series(String name, double[] values) {}

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<String> categories;
    private final List<Series> series = new ArrayList<>();

    /** A chart over categories (x positions evenly spaced, labelled by {@code categories}). */
    public SvgChart(String title, String xLabel, String yLabel, List<String> categories) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.categories = categories;
    }

    public SvgChart add(String name, double[] values) {
        series.add(new Series(name, values));
        return this;
    }

    public String render() {
        double max = 0;
        for (Series s : series) {
            for (double v : s.values()) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        double top = niceCeiling(max);
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder(4096);
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"%s\">%n",
                WIDTH,
                HEIGHT,
                WIDTH,
                HEIGHT,
                escape(title)));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
                LEFT,
                escape(title)));
        // y grid and ticks
        int ticks = 5;
        for (int i = 0; i <= ticks; i++) {
            double value = top * i / ticks;
            double y = TOP + plotHeight - plotHeight * (double) i / ticks;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT,
                    y,
                    LEFT + plotWidth,
                    y,
                    LEFT - 6,
                    y + 4,
                    format(value)));
        }
        // x ticks
        int n = categories.size();
        for (int i = 0; i < n; i++) {
            double x = xOf(i, n, plotWidth);
            if (n <= 20 || i % Math.max(1, n / 10) == 0 || i == n - 1) {
                svg.append(String.format(
                        Locale.ROOT,
                        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>"
                                + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                        x,
                        TOP + plotHeight,
                        x,
                        TOP + plotHeight + 4,
                        x,
                        TOP + plotHeight + 18,
                        escape(categories.get(i))));
            }
        }
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                        + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
                LEFT,
                TOP,
                LEFT,
                TOP + plotHeight,
                LEFT,
                TOP + plotHeight,
                LEFT + plotWidth,
                TOP + plotHeight));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                LEFT + plotWidth / 2,
                HEIGHT - 10,
                escape(xLabel)));
        svg.append(String.format(
                Locale.ROOT,
                "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">%s</text>%n",
                TOP + plotHeight / 2,
                escape(yLabel)));
        // series
        for (int s = 0; s < series.size(); s++) {
            Series line = series.get(s);
            String color = COLORS[s % COLORS.length];
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < Math.min(n, line.values().length); i++) {
                double v = line.values()[i];
                if (Double.isNaN(v)) {
                    continue;
                }
                double x = xOf(i, n, plotWidth);
                double y = TOP + plotHeight - (top == 0 ? 0 : plotHeight * v / top);
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                if (n <= 40) {
                    svg.append(String.format(
                            Locale.ROOT,
                            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s: %s</title></circle>%n",
                            x,
                            y,
                            color,
                            escape(line.name() + " @ " + categories.get(i)),
                            format(v)));
                }
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
                    color,
                    points.toString().trim()));
            int ly = TOP + 8 + s * 18;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
                            + "<text x=\"%d\" y=\"%d\">%s</text>%n",
                    WIDTH - RIGHT + 14,
                    ly,
                    WIDTH - RIGHT + 34,
                    ly,
                    color,
                    WIDTH - RIGHT + 40,
                    ly + 4,
                    escape(line.name())));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static double xOf(int i, int n, int plotWidth) {
        return n <= 1 ? LEFT + plotWidth / 2.0 : LEFT + 10 + (plotWidth - 20) * (double) i / (n - 1);
    }

    /** 1, 2 or 5 times a power of ten, at or above {@code value}. */
    static double niceCeiling(double value) {
        if (value <= 0 || Double.isNaN(value)) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= value) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    static String format(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return String.format(Locale.ROOT, "%,d", (long) value);
        }
        return Math.abs(value) >= 100
                ? String.format(Locale.ROOT, "%,.0f", value)
                : Math.abs(value) >= 1
                        ? String.format(Locale.ROOT, "%.2f", value)
                        : String.format(Locale.ROOT, "%.3f", value);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
