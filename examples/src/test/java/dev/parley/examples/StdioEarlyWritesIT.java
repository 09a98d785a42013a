package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host that writes its requests the moment it started the server process, long before the node
 * is up, and a client without elicitation: every request is answered, the first one first, the
 * session's requests by the session its {@code initialize} opened, and a question the client
 * cannot answer is the tool's fallback text in both eras.
 */
class StdioEarlyWritesIT {
    @TempDir
    Path data;

    @Test
    @Timeout(180)
    void requestsWrittenBeforeTheNodeIsUpAreAllAnsweredAndTheFirstFirst() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path jar = Files.isRegularFile(Path.of("target", "parley.jar"))
                ? Path.of("target", "parley.jar")
                : Path.of("..", "examples", "target", "parley.jar");
        Process process = new ProcessBuilder(
                        java, "-Xmx512m", "-jar", jar.toString(), "demo", "--stdio", "--data", data.toString())
                .redirectError(data.resolve("stderr.log").toFile())
                .start();
        // All at once, before the JVM has even loaded the server: only the pipe holds them.
        String requests = String.join(
                "\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"early\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"schedule_release\","
                        + "\"arguments\":{\"service\":\"billing\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"schedule_release\","
                        + "\"arguments\":{\"service\":\"search\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                        + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
                "");
        OutputStream in = process.getOutputStream();
        in.write(requests.getBytes(StandardCharsets.UTF_8));
        in.flush();

        List<JsonNode> answers = new ArrayList<>();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            while (answers.size() < 4) {
                String line = out.readLine();
                assertTrue(line != null, "the server answered only " + answers);
                answers.add(Json.parse(line));
            }
            in.close(); // end of input: the server exits by itself
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the server exits at the end of its input");
        }

        assertEquals(1, answers.get(0).path("id").asInt(), "the first request is answered first: " + answers);
        assertEquals("2025-11-25", answers.get(0).at("/result/protocolVersion").asText());
        JsonNode list = byId(answers, 2);
        assertTrue(list.at("/result/tools").size() > 0, list::toString);
        String fallback = "No release scheduled for %s: this client cannot show a form. Call schedule_release again "
                + "with a window argument, e.g. \"window\": \"2026-12-01T09:00:00Z\".";
        JsonNode legacy = byId(answers, 3);
        assertEquals(
                String.format(fallback, "billing"),
                legacy.at("/result/content/0/text").asText(),
                legacy::toString);
        assertFalse(legacy.path("result").has("resultType"), "no 2026-only members for a 2025 session");
        JsonNode modern = byId(answers, 4);
        assertEquals(
                String.format(fallback, "search"),
                modern.at("/result/content/0/text").asText(),
                modern::toString);
        assertEquals("complete", modern.at("/result/resultType").asText());
    }

    private static JsonNode byId(List<JsonNode> answers, int id) {
        return answers.stream()
                .filter(answer -> answer.path("id").asInt() == id)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no answer to request " + id + ": " + answers));
    }
}
