package dev.parley.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.http.ParleyServer;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * {@code java -XX:ArchiveClassesAtExit=parley.jsa -jar parley.jar cds-training}: the training run of
 * a class-data-sharing archive. It starts the demo on free ports in a temporary directory, sends it
 * what a client's first minute brings (discovery, the tool list, a one-round call, a two-round call, a
 * 2025-11-25 {@code initialize}, a readiness probe), stops it and exits; the JVM then writes every
 * class it loaded into the archive. A JVM started with {@code -XX:SharedArchiveFile=parley.jsa} maps
 * those classes instead of reading and verifying them again, which halves the node's start. The build
 * makes {@code examples/target/parley.jsa} this way; an archive holds for the jar and the JVM it was
 * made with (any other JVM or jar ignores it with a warning).
 */
final class CdsTraining {
    private static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
    private static final String META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

    private final URI endpoint;
    private int nextId = 1;

    private CdsTraining(URI endpoint) {
        this.endpoint = endpoint;
    }

    static void run() throws IOException {
        trainOn("demo", CdsTraining::trainDemo);
        trainOn("fixtures", CdsTraining::trainFixtures);
    }

    /** Starts {@code command}'s server as {@code java -jar parley.jar COMMAND --port 0} would, and trains it. */
    private static void trainOn(String command, Training training) throws IOException {
        Path data = Files.createTempDirectory("parley-cds-training");
        Config config = ConfigFactory.parseString("parley.management.port = 0")
                .withFallback(ParleyServer.Flags.parse("--port", "0").config());
        McpHttpServer server =
                command.equals("demo") ? Launcher.startDemo(0, data, config) : Launcher.startFixtures(0, data, config);
        try {
            training.train(new CdsTraining(URI.create("http://127.0.0.1:" + server.port() + "/mcp")));
            get(URI.create("http://127.0.0.1:" + server.managementPort() + "/ready"));
        } finally {
            server.close();
            try (Stream<Path> files = Files.walk(data)) {
                files.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
        }
    }

    private interface Training {
        void train(CdsTraining client) throws IOException;
    }

    private static void trainDemo(CdsTraining client) throws IOException {
        client.train();
    }

    /** What the conformance suite and the load generators start with: discovery, a one-round call, MRTR. */
    private static void trainFixtures(CdsTraining client) throws IOException {
        client.send("server/discover", null, Json.object());
        client.send("tools/list", null, Json.object());
        client.send("tools/call", "test_simple_text", Json.object().put("name", "test_simple_text"));
        ObjectNode call = Json.object().put("name", "test_input_required_result_elicitation");
        JsonNode asked = client.send("tools/call", call.get("name").asText(), call.deepCopy());
        ObjectNode retry = call.put(
                "requestState", asked.path("result").path("requestState").asText());
        retry.putObject("inputResponses")
                .putObject("user_name")
                .put("action", "accept")
                .putObject("content")
                .put("name", "Ada");
        expectComplete(client.send("tools/call", call.get("name").asText(), retry));
    }

    private void train() throws IOException {
        send("server/discover", null, Json.object());
        send("tools/list", null, Json.object());
        ObjectNode oneRound = Json.object().put("name", "check_availability");
        oneRound.putObject("arguments").put("date", "2026-12-24");
        send("tools/call", "check_availability", oneRound);

        ObjectNode call = Json.object().put("name", "schedule_release");
        call.putObject("arguments").put("service", "billing");
        JsonNode asked = send("tools/call", "schedule_release", call.deepCopy());
        ObjectNode retry = call.put(
                "requestState", asked.path("result").path("requestState").asText());
        retry.putObject("inputResponses")
                .putObject("window")
                .put("action", "accept")
                .putObject("content")
                .put("window", "2026-12-01T10:00:00Z");
        expectComplete(send("tools/call", "schedule_release", retry));

        ObjectNode initialize = Json.object().put("protocolVersion", "2025-11-25");
        initialize.putObject("capabilities");
        initialize.putObject("clientInfo").put("name", "parley-cds-training").put("version", "1");
        post(message("initialize", initialize), "2025-11-25", "initialize", null);
    }

    /** A 2026-07-28 request: the version and capabilities ride in {@code _meta}. */
    private JsonNode send(String method, String name, ObjectNode params) throws IOException {
        ObjectNode meta = params.putObject("_meta").put(META_VERSION, "2026-07-28");
        meta.putObject(META_CAPABILITIES).putObject("elicitation").putObject("form");
        return Json.parse(post(message(method, params), "2026-07-28", method, name));
    }

    private ObjectNode message(String method, ObjectNode params) {
        ObjectNode message =
                Json.object().put("jsonrpc", "2.0").put("id", nextId++).put("method", method);
        message.set("params", params);
        return message;
    }

    private String post(ObjectNode message, String version, String method, String name) throws IOException {
        HttpURLConnection request = (HttpURLConnection) endpoint.toURL().openConnection();
        request.setRequestMethod("POST");
        request.setRequestProperty("Content-Type", "application/json");
        request.setRequestProperty("Accept", "application/json, text/event-stream");
        request.setRequestProperty("MCP-Protocol-Version", version);
        request.setRequestProperty("Mcp-Method", method);
        if (name != null) {
            request.setRequestProperty("Mcp-Name", name);
        }
        request.setDoOutput(true);
        try (OutputStream body = request.getOutputStream()) {
            body.write(Json.write(message).getBytes(StandardCharsets.UTF_8));
        }
        int status = request.getResponseCode();
        try (InputStream reply = status == 200 ? request.getInputStream() : request.getErrorStream()) {
            String text = reply == null ? "" : new String(reply.readAllBytes(), StandardCharsets.UTF_8);
            if (status != 200) {
                throw new IllegalStateException(method + " answered " + status + ": " + text);
            }
            return text;
        }
    }

    private static void get(URI uri) throws IOException {
        HttpURLConnection request = (HttpURLConnection) uri.toURL().openConnection();
        request.getResponseCode();
        request.disconnect();
    }

    private static void expectComplete(JsonNode reply) {
        if (!"complete".equals(reply.path("result").path("resultType").asText())) {
            throw new IllegalStateException("the two-round call did not complete: " + reply);
        }
    }
}
