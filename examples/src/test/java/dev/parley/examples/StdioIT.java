package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.SpecSchema2025;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar parley.jar demo --stdio} as a desktop host runs it: JSON-RPC lines on stdin,
 * only JSON-RPC lines on stdout, logs on stderr; a 2026-07-28 MRTR call, then a 2025-11-25
 * session whose question is a server→client request answered on stdin; exit at end of input.
 * Every line written to the 2025-11-25 session is checked against that revision's JSON Schema.
 */
class StdioIT {
    private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}";

    @TempDir
    Path data;

    @Test
    @Timeout(180)
    void bothErasTalkOverStdioAndTheProcessEndsWithItsInput() throws Exception {
        Path jar = Files.isRegularFile(Path.of("target", "parley.jar"))
                ? Path.of("target", "parley.jar")
                : Path.of("..", "examples", "target", "parley.jar");
        Process process = new ProcessBuilder(command(jar))
                .redirectError(data.resolve("stderr.log").toFile())
                .start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        OutputStream in = process.getOutputStream();
        try {
            // 2026-07-28: one MRTR call, stateless, with requestState.
            send(
                    in,
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_invoice\","
                            + "\"arguments\":{\"client\":\"ACME\",\"amount\":12}," + META + "}}");
            JsonNode asked = next(lines);
            assertEquals(1, asked.path("id").asInt(), asked::toString);
            assertEquals("input_required", asked.at("/result/resultType").asText(), asked::toString);
            send(
                    in,
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"create_invoice\","
                            + "\"arguments\":{\"client\":\"ACME\",\"amount\":12},\"requestState\":\""
                            + asked.at("/result/requestState").asText()
                            + "\",\"inputResponses\":{\"currency\":{\"action\":\"accept\",\"content\":{\"currency\":\"CHF\"}}},"
                            + META + "}}");
            JsonNode done = next(lines);
            assertEquals("complete", done.at("/result/resultType").asText(), done::toString);
            assertTrue(done.at("/result/content/0/text").asText().contains("CHF"), done::toString);

            // 2025-11-25: initialize, then the same tool; its question comes as a request on stdout.
            send(
                    in,
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                            + "\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"stdio-it\",\"version\":\"1\"}}}");
            JsonNode initialized = next2025(lines, "initialize");
            assertEquals("2025-11-25", initialized.at("/result/protocolVersion").asText(), initialized::toString);
            send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            send(
                    in,
                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"create_invoice\","
                            + "\"arguments\":{\"client\":\"Initech\",\"amount\":7}}}");
            JsonNode question = next2025(lines, "tools/call");
            assertEquals("elicitation/create", question.path("method").asText(), question::toString);
            ObjectNode answer = Json.object().put("jsonrpc", "2.0");
            answer.set("id", question.path("id"));
            answer.set("result", Json.parse("{\"action\":\"accept\",\"content\":{\"currency\":\"EUR\"}}"));
            send(in, Json.write(answer));
            JsonNode result = next2025(lines, "tools/call");
            assertEquals(4, result.path("id").asInt(), result::toString);
            assertTrue(result.at("/result/content/0/text").asText().contains("EUR"), result::toString);
            assertTrue(
                    result.path("result").path("resultType").isMissingNode(),
                    "no 2026-only members for a 2025 session");
        } finally {
            in.close(); // end of input: the server must exit by itself
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the server exits at the end of its input");
        List<String> rest = new ArrayList<>();
        lines.drainTo(rest);
        rest.forEach(line -> {
            assertTrue(line.startsWith("{\"jsonrpc\":\"2.0\""), "stdout holds only JSON-RPC: " + line);
            SpecSchema2025.assertValidServerMessage(Json.parse(line), "tools/call");
        });
        assertTrue(Files.readString(data.resolve("stderr.log")).contains("ready"), "the ready line went to stderr");
    }

    private static void send(OutputStream in, String line) throws IOException {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** The next line, written to the 2025-11-25 session: valid against that revision's schema. */
    private static JsonNode next2025(BlockingQueue<String> lines, String requestMethod) throws InterruptedException {
        JsonNode message = next(lines);
        SpecSchema2025.assertValidServerMessage(message, requestMethod);
        return message;
    }

    private static JsonNode next(BlockingQueue<String> lines) throws InterruptedException {
        String line = lines.poll(60, TimeUnit.SECONDS);
        assertNotNull(line, "a line on stdout within 60 s");
        assertTrue(line.startsWith("{\"jsonrpc\":\"2.0\""), "stdout holds only JSON-RPC: " + line);
        return Json.parse(line);
    }

    private List<String> command(Path jar) {
        List<String> command = DemoProcess.javaJar(jar, List.of());
        command.addAll(List.of("demo", "--stdio", "--data", data.toString()));
        return command;
    }
}
