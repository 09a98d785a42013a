package dev.parley.http.internal.console;

import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A test node for the console: its tools, and plain HTTP helpers for the management port. */
final class ConsoleNode {
    /** The content of every answer the tests send: it must never appear in the console by default. */
    static final String SECRET = "Zanzibar-7f3q";

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    record TextArgs(@Description("Some text") String text) {}

    record TripArgs(@Description("Who travels") String traveller) {}

    /**
     * {@code echo} (one round), {@code ask} (two rounds), {@code plan_trip} (three rounds with a
     * journaled step between its questions) and {@code long_job} (a task that works until cancelled
     * or its node stops, at most ten minutes: on a loaded machine the tests before a cancel take minutes).
     */
    static McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-console-tests", "0.0.1")
                .tool(ToolDefinition.tool("echo", TextArgs.class)
                        .description("Echoes its input.")
                        .handler((args, ctx) -> ToolResult.text("echo: " + args.text())))
                .tool(ToolDefinition.tool("ask", TextArgs.class)
                        .description("Asks for a name, then answers.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "who",
                                    Elicitation.form("Who are you?")
                                            .field("name", FormField.string("Your name"))
                                            .build());
                            return ToolResult.text(
                                    answer instanceof ElicitAnswer.Accepted accepted
                                            ? "hello " + accepted.string("name")
                                            : "no");
                        }))
                .tool(ToolDefinition.tool("plan_trip", TripArgs.class)
                        .description("Asks where to, reserves a seat, asks for the meal, then confirms.")
                        .handler((args, ctx) -> {
                            ElicitAnswer where = ctx.elicit(
                                    "destination",
                                    Elicitation.form("Where to?")
                                            .field("city", FormField.string("City"))
                                            .build());
                            String city = where instanceof ElicitAnswer.Accepted accepted
                                    ? accepted.string("city")
                                    : "nowhere";
                            String seat = ctx.step("reserve_seat", String.class, () -> "seat 12A to " + city);
                            ElicitAnswer meal = ctx.elicit(
                                    "meal",
                                    Elicitation.form("Which meal?")
                                            .field("choice", FormField.string("Meal"))
                                            .build());
                            String choice =
                                    meal instanceof ElicitAnswer.Accepted accepted ? accepted.string("choice") : "none";
                            return ToolResult.text("Booked " + seat + " with " + choice);
                        }))
                .tool(ToolDefinition.tool("long_job", TextArgs.class)
                        .description("Works until cancelled.")
                        .taskSupport(TaskSupport.REQUIRED)
                        .handler((args, ctx) -> {
                            ctx.becomeTask();
                            ctx.progress(0, null, "Working on " + args.text());
                            long deadline =
                                    System.nanoTime() + Duration.ofMinutes(10).toNanos();
                            try {
                                while (!ctx.isCancelled() && System.nanoTime() < deadline) {
                                    Thread.sleep(20);
                                }
                            } catch (InterruptedException interrupted) {
                                Thread.currentThread().interrupt();
                            }
                            return ToolResult.text("stopped");
                        }))
                .build();
    }

    static McpHttpServer start(Path data, String config) {
        return McpHttpServer.builder(definition())
                .dataDirectory(data)
                .port(0)
                .config(ConfigFactory.parseString(
                        "parley.management.port = 0\nparley.metrics.journal-scan-interval = 200ms\n" + config))
                .start();
    }

    static HttpResponse<String> get(URI uri, Map<String, String> headers) {
        return send(uri, "GET", headers);
    }

    static HttpResponse<String> send(URI uri, String method, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.noBody());
        headers.forEach(request::header);
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A raw HTTP/1.1 request, for headers java.net.http does not let a caller set (Host); the status line's code. */
    static int rawStatus(InetAddress address, int port, String method, String path, Map<String, String> headers)
            throws IOException {
        try (Socket socket = new Socket(address, port)) {
            socket.setSoTimeout(20_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
            headers.forEach((name, value) ->
                    request.append(name).append(": ").append(value).append("\r\n"));
            request.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            Matcher status = Pattern.compile("^HTTP/1\\.1 (\\d{3})").matcher(response);
            return status.find() ? Integer.parseInt(status.group(1)) : HttpURLConnection.HTTP_INTERNAL_ERROR;
        }
    }

    /** The sum of every sample of {@code name} in a Prometheus text scrape whose labels include {@code labels}. */
    static double sum(String scrape, String name, Map<String, String> labels) {
        double total = 0;
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "(\\{(.*)})? (\\S+)$");
        for (String line : scrape.split("\n")) {
            Matcher matcher = sample.matcher(line);
            String present = matcher.matches() && matcher.group(2) != null ? "," + matcher.group(2) + "," : ",";
            if (matcher.matches()
                    && labels.entrySet().stream()
                            .allMatch(label ->
                                    present.contains("," + label.getKey() + "=\"" + label.getValue() + "\","))) {
                total += Double.parseDouble(matcher.group(3));
            }
        }
        return total;
    }

    private ConsoleNode() {}
}
