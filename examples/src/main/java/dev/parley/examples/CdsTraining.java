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
 * a class-data-sharing archive. It starts the demo, then the fixture server, each as its command
 * starts it, on free ports in a temporary directory; sends each what a client's first minute brings
 * (discovery, the tool list, a one-round call, a two-round call, for the demo a 2025-11-25 {@code
 * initialize}, a readiness probe); stops each and exits; the JVM then writes every class it loaded
 * into the archive. A JVM started with {@code -XX:SharedArchiveFile=parley.jsa} maps those classes
 * instead of reading and verifying them again, which halves the node's start. The build makes
 * {@code examples/target/parley.jsa} this way ({@code -XX:AOTCacheOutput} on JDK 25 and later, an
 * AOT cache); an archive holds for the jar and the JVM it was made with (any other JVM or jar
 * ignores it with a warning).
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
        trainOn(Launcher::startDemo, CdsTraining::trainDemo);
        trainOn(Launcher::startFixtures, CdsTraining::trainFixtures);
    }

    /** Starts a server as its command does with {@code --port 0}, and trains it. */
    private static void trainOn(ServerStart start, Training training) throws IOException {
        Path data = Files.createTempDirectory("parley-cds-training");
        Config config = ConfigFactory.parseString("parley.management.port = 0")
                .withFallback(ParleyServer.Flags.parse("--port", "0").config());
        McpHttpServer server = start.start(0, data, config);
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

    private interface ServerStart {
        McpHttpServer start(int port, Path data, Config config);
    }

    private interface Training {
        void train(CdsTraining client) throws IOException;
    }

    private void trainDemo() throws IOException {
        send("server/discover", null, Json.object());
        send("tools/list", null, Json.object());
        ObjectNode oneRound = Json.object().put("name", "check_availability");
        oneRound.putObject("arguments").put("date", "2026-12-24");
        send("tools/call", "check_availability", oneRound);
        ObjectNode arguments = Json.object().put("service", "billing");
        twoRounds("schedule_release", arguments, "window", "window", "2026-12-01T10:00:00Z");

        ObjectNode initialize = Json.object().put("protocolVersion", "2025-11-25");
        initialize.putObject("capabilities");
        initialize.putObject("clientInfo").put("name", "parley-cds-training").put("version", "1");
        post(message("initialize", initialize), "2025-11-25", "initialize", null);
    }

    /** What the conformance suite and the load generators start with: discovery, a one-round call, MRTR. */
    private void trainFixtures() throws IOException {
        send("server/discover", null, Json.object());
        send("tools/list", null, Json.object());
        send("tools/call", "test_simple_text", Json.object().put("name", "test_simple_text"));
        twoRounds("test_input_required_result_elicitation", Json.object(), "user_name", "name", "Ada");
    }

    /** Calls {@code tool}, then retries with {@code field = value} accepted for its question {@code key}. */
    private void twoRounds(String tool, ObjectNode arguments, String key, String field, String value)
            throws IOException {
        ObjectNode call = Json.object().put("name", tool);
        call.set("arguments", arguments);
        JsonNode asked = send("tools/call", tool, call.deepCopy());
        ObjectNode retry = call.put(
                "requestState", asked.path("result").path("requestState").asText());
        retry.putObject("inputResponses")
                .putObject(key)
                .put("action", "accept")
                .putObject("content")
                .put(field, value);
        JsonNode reply = send("tools/call", tool, retry);
        if (!"complete".equals(reply.path("result").path("resultType").asText())) {
            throw new IllegalStateException("the two-round call of " + tool + " did not complete: " + reply);
        }
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
}
