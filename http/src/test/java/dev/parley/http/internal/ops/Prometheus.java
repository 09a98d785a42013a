package dev.parley.http.internal.ops;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the management port: status codes of /ready and /alive, samples of /metrics. */
final class Prometheus {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private Prometheus() {}

    static HttpResponse<String> get(int port, String path) {
        try {
            return HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .timeout(Duration.ofSeconds(30))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static int status(int port, String path) {
        return get(port, path).statusCode();
    }

    static String scrape(int port) {
        HttpResponse<String> response = get(port, "/metrics");
        if (response.statusCode() != 200) {
            throw new AssertionError("/metrics answered " + response.statusCode());
        }
        return response.body();
    }

    /** The sum of the samples named {@code name} whose labels include {@code labels}; 0 when none. */
    static double sample(String scrape, String name, Map<String, String> labels) {
        double sum = 0;
        for (String line : scrape.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.matches() || !sample.group(1).equals(name)) {
                continue;
            }
            Map<String, String> found = new java.util.HashMap<>();
            if (sample.group(3) != null) {
                Matcher label = LABEL.matcher(sample.group(3));
                while (label.find()) {
                    found.put(label.group(1), label.group(2));
                }
            }
            if (found.entrySet().containsAll(labels.entrySet())) {
                sum += Double.parseDouble(sample.group(4));
            }
        }
        return sum;
    }
}
