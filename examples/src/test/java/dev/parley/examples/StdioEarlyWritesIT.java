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
 * cannot answer is the tool's fallback text in both eras. A {@code server/discover} is answered
 * while the node starts.
 */
class StdioEarlyWritesIT {
    @TempDir
    Path data;

    @Test
    @Timeout(180)
    void requestsWrittenBeforeTheNodeIsUpAreAllAnsweredAndTheFirstFirst() throws Exception {
        Process process = start();
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

    /**
     * A {@code server/discover} written at process start is answered from the definition before
     * the node is up, with what the node answers later; one written behind another request waits
     * for the node, in order. Prints how long the first answer took (not asserted: a figure).
     */
    @Test
    @Timeout(180)
    void aDiscoveryWrittenAtStartIsAnsweredBeforeTheNodeIsUpAsTheNodeWouldAnswerIt() throws Exception {
        long started = System.nanoTime();
        Process process = start();
        Path log = data.resolve("stderr.log");
        OutputStream in = process.getOutputStream();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            write(in, discover(1));
            JsonNode early = Json.parse(out.readLine());
            long firstAnswerMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertFalse(Files.readString(log).contains(READY), "answered before the node was up");

            // Behind a request that needs the node, a discovery waits for it too.
            write(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" + META + "}}");
            write(in, discover(3));
            List<JsonNode> answers = new ArrayList<>(List.of(Json.parse(out.readLine()), Json.parse(out.readLine())));
            assertTrue(Files.readString(log).contains(READY), "answered by the node");
            in.close();
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the server exits at the end of its input");
            System.out.printf("stdio: server/discover written at process start answered after %d ms%n", firstAnswerMs);

            assertEquals(1, early.path("id").asInt(), early::toString);
            assertTrue(byId(answers, 2).at("/result/tools").size() > 0, answers::toString);
            assertEquals(early.path("result"), byId(answers, 3).path("result"), "the node's answer is the same");
            assertEquals("complete", early.at("/result/resultType").asText(), early::toString);
        }
    }

    private static final String READY = "Parley demo ready";
    private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

    private static String discover(int id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"server/discover\",\"params\":{" + META + "}}";
    }

    private static void write(OutputStream in, String line) throws java.io.IOException {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** The demo jar with {@code --stdio} in its own JVM, its stderr (logs) in {@code stderr.log}. */
    private Process start() throws java.io.IOException {
        Path jar = Files.isRegularFile(Path.of("target", "parley.jar"))
                ? Path.of("target", "parley.jar")
                : Path.of("..", "examples", "target", "parley.jar");
        return new ProcessBuilder(command(jar))
                .redirectError(data.resolve("stderr.log").toFile())
                .start();
    }

    private static JsonNode byId(List<JsonNode> answers, int id) {
        return answers.stream()
                .filter(answer -> answer.path("id").asInt() == id)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no answer to request " + id + ": " + answers));
    }

    private List<String> command(Path jar) {
        List<String> command = DemoProcess.javaJar(jar, List.of());
        command.addAll(List.of("demo", "--stdio", "--data", data.toString()));
        return command;
    }
}
