package dev.parley.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

    private final HttpClient http = HttpClient.newHttpClient();
    private final URI endpoint;
    private int nextId = 1;

    private CdsTraining(URI endpoint) {
        this.endpoint = endpoint;
    }

    static void run() throws IOException, InterruptedException {
        Path data = Files.createTempDirectory("parley-cds-training");
        McpHttpServer server = Launcher.startDemo(
                0,
                data,
                ConfigFactory.parseString("parley.management.port = 0")
                        .withFallback(ConfigFactory.parseResourcesAnySyntax("application")));
        try {
            CdsTraining client = new CdsTraining(URI.create("http://127.0.0.1:" + server.port() + "/mcp"));
            client.train();
            client.get(URI.create("http://127.0.0.1:" + server.managementPort() + "/ready"));
        } finally {
            server.close();
            try (Stream<Path> files = Files.walk(data)) {
                files.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
        }
    }

    private void train() throws IOException, InterruptedException {
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
    private JsonNode send(String method, String name, ObjectNode params) throws IOException, InterruptedException {
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

    private String post(ObjectNode message, String version, String method, String name)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", version)
                .header("Mcp-Method", method)
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message)));
        if (name != null) {
            request.header("Mcp-Name", name);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(method + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    private void get(URI uri) throws IOException, InterruptedException {
        http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding());
    }

    private static void expectComplete(JsonNode reply) {
        if (!"complete".equals(reply.path("result").path("resultType").asText())) {
            throw new IllegalStateException("the two-round call did not complete: " + reply);
        }
    }
}
