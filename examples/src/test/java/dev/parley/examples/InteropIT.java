package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import dev.parley.testing.SpecSchema2025;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real MCP clients from npm against the runnable jar: the TypeScript SDK v1 client
 * ({@code @modelcontextprotocol/sdk}, 2025-11-25) and the v2 client
 * ({@code @modelcontextprotocol/client}) in its {@code auto} and {@code legacy} version
 * negotiation, each over HTTP and over stdio. The node driver
 * ({@code src/test/node/interop/drive.mjs}) runs {@code schedule_release}, {@code create_invoice}
 * and {@code book_venue} to completion, answering every question in its {@code elicitation/create}
 * handler (paying on the demo's payment page before accepting the URL question); this test checks
 * the result texts, that the demo ledger holds each effect exactly once, and, for the 2025-11-25
 * clients, every message the server sent them against that revision's JSON Schema.
 */
class InteropIT {
    private static final Path SOURCES = Path.of("src", "test", "node", "interop");
    private static final Path WORK = Path.of("target", "interop");
    private static final long NPM_LIMIT_SECONDS = 300;
    private static final long DRIVER_LIMIT_SECONDS = 120;
    /** The C1 compiler alone: the servers here live for a minute, so they start faster without C2. */
    private static final List<String> QUICK_START = List.of("-XX:TieredStopAtLevel=1");

    @TempDir
    Path data;

    private final List<DemoProcess> processes = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        processes.forEach(DemoProcess::kill);
    }

    /** Installs the pinned clients ({@code npm ci}) into target/interop once per lockfile. */
    @BeforeAll
    static void installClients() throws IOException, InterruptedException {
        Files.createDirectories(WORK);
        for (String file : List.of("package.json", "package-lock.json", "drive.mjs")) {
            Files.copy(SOURCES.resolve(file), WORK.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        // npm ci writes node_modules/.package-lock.json; when it matches the committed lock, the install is current.
        Path installed = WORK.resolve("node_modules").resolve(".interop-lock.json");
        String lock = Files.readString(SOURCES.resolve("package-lock.json"));
        if (Files.isRegularFile(installed) && Files.readString(installed).equals(lock)) {
            return;
        }
        Run npm = run(
                List.of("npm", "ci", "--no-audit", "--no-fund"),
                NPM_LIMIT_SECONDS,
                "npm is needed for the interop test (it installs the MCP TypeScript SDK clients); install Node.js 20+ with npm");
        if (npm.exitCode != 0) {
            fail("npm ci in " + WORK + " failed with " + npm.exitCode + ":\n" + npm.output);
        }
        Files.writeString(installed, lock);
    }

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({
        "v1, http, 2025-11-25",
        "v2-auto, http, 2026-07-28",
        "v2-legacy, http, 2025-11-25",
        "v1, stdio, 2025-11-25",
        "v2-auto, stdio, 2026-07-28",
        "v2-legacy, stdio, 2025-11-25",
    })
    void aRealClientRunsTheAskingToolsToCompletionAndNoEffectRepeats(String client, String transport, String era)
            throws IOException, InterruptedException {
        Run driver = drive(client, transport, Map.of());
        String label = "interop " + client + " " + transport;
        assertEquals(0, driver.exitCode, () -> label + ": the driver failed:\n" + driver.output);

        Map<String, JsonNode> results = results(label, driver, era);
        assertEquals(
                List.of("book_venue", "create_invoice", "schedule_release"),
                List.copyOf(results.keySet()),
                () -> label + ":\n" + driver.output);
        results.values().forEach(result -> assertTrue(!result.get("isError").asBoolean(), () -> label + ": " + result));

        assertText(
                label,
                results.get("schedule_release"),
                "Release (REL-[0-9a-f]+) of billing scheduled for 2026-12-01T10:00:00Z\\.",
                List.of("form"));
        assertText(
                label,
                results.get("create_invoice"),
                "Invoice (INV-[0-9a-f]{8}) for ACME: 120\\.5 CHF\\.",
                List.of("form"));
        String booking = assertText(
                label,
                results.get("book_venue"),
                "Booked 2026-12-27 for 40 guests \\((BKG-[0-9a-f]{8})\\); contract written, deposit received\\.",
                List.of("form", "url"));

        // Every message the server sent a 2025-11-25 client fits that revision's JSON Schema.
        List<JsonNode> received = new ArrayList<>();
        Matcher receivedLine = Pattern.compile("(?m)^received (.+)$").matcher(driver.output);
        while (receivedLine.find()) {
            received.add(Json.parse(receivedLine.group(1)));
        }
        assertTrue(received.size() >= 4, () -> label + ": the driver recorded what it received:\n" + driver.output);
        if (era.equals("2025-11-25")) {
            for (JsonNode message : received) {
                JsonNode answering = message.get("answering");
                SpecSchema2025.assertValidServerMessage(
                        message.get("message"), answering.isTextual() ? answering.asText() : null);
            }
        }

        // One line per effect: a step that ran twice (a replay that repeated it) would show here.
        List<String> ledger = new DemoLedger(data).lines();
        assertEquals(7, ledger.size(), () -> label + ": ledger " + ledger);
        assertEquals(ledger.size(), ledger.stream().distinct().count(), () -> label + ": ledger " + ledger);
        assertEquals(1, count(ledger, "release REL-.* billing 2026-12-01T10:00:00Z"), () -> label + ": " + ledger);
        assertEquals(1, count(ledger, "invoice INV-.* ACME 120\\.5 CHF"), () -> label + ": " + ledger);
        assertEquals(1, count(ledger, "deposit .*"), () -> label + ": " + ledger);
        assertEquals(3, count(ledger, "contract " + booking + " part [123] of 3"), () -> label + ": " + ledger);
        assertEquals(1, count(ledger, "booking " + booking + " 2026-12-27 40"), () -> label + ": " + ledger);
        System.out.println(label + ": " + results.size() + " passed (" + era + ")");
    }

    /**
     * A real client that declared no elicitation (as many agent frameworks do), in each era and
     * over stdio: it sees the tools' fallback texts as normal results, and nothing is written.
     */
    @ParameterizedTest(name = "{0} over {1}, no elicitation")
    @CsvSource({
        "v1, http, 2025-11-25",
        "v2-auto, http, 2026-07-28",
        "v1, stdio, 2025-11-25",
        "v2-auto, stdio, 2026-07-28",
    })
    void aRealClientWithoutElicitationSeesTheFallbackTexts(String client, String transport, String era)
            throws IOException, InterruptedException {
        Run driver = drive(client, transport, Map.of("PARLEY_NO_ELICITATION", "1"));
        String label = "interop " + client + " " + transport + " without elicitation";
        assertEquals(0, driver.exitCode, () -> label + ": the driver failed:\n" + driver.output);
        Map<String, JsonNode> results = results(label, driver, era);
        assertEquals(
                "No release scheduled for billing: this client cannot show a form. Call schedule_release again with "
                        + "a window argument, e.g. \"window\": \"2026-12-01T09:00:00Z\".",
                results.get("schedule_release").get("text").asText(),
                () -> label + ":\n" + driver.output);
        assertEquals(
                "Nothing booked: 2026-12-24 is taken and this client cannot show a form. The next free dates are "
                        + "2026-12-25, 2026-12-26, 2026-12-27; call book_venue again with one of them.",
                results.get("book_venue").get("text").asText(),
                () -> label + ":\n" + driver.output);
        results.values().forEach(result -> assertTrue(!result.get("isError").asBoolean(), () -> label + ": " + result));
        assertEquals(List.of(), new DemoLedger(data).lines(), label);
        System.out.println(label + ": fallbacks seen (" + era + ")");
    }

    /** Runs the driver with {@code client} against a demo server over {@code transport}. */
    private Run drive(String client, String transport, Map<String, String> environment)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("node", "drive.mjs", client, transport));
        if (transport.equals("http")) {
            DemoProcess demo = DemoProcess.start(data, QUICK_START);
            processes.add(demo);
            command.add("http://127.0.0.1:" + demo.port() + "/mcp");
        } else {
            command.addAll(List.of(
                    DemoProcess.java(),
                    DemoProcess.jar().toAbsolutePath().toString(),
                    data.toAbsolutePath().toString()));
        }
        return run(command, environment, DRIVER_LIMIT_SECONDS, "node is needed for the interop test");
    }

    /** The driver's results by tool, after checking the version it negotiated. */
    private static Map<String, JsonNode> results(String label, Run driver, String era) {
        Matcher negotiated = Pattern.compile("(?m)^negotiated (\\S+)").matcher(driver.output);
        assertTrue(negotiated.find(), () -> label + ": no negotiated line:\n" + driver.output);
        assertEquals(era, negotiated.group(1), () -> label + ": protocol version\n" + driver.output);
        Map<String, JsonNode> results = new TreeMap<>();
        Matcher line = Pattern.compile("(?m)^result (.+)$").matcher(driver.output);
        while (line.find()) {
            JsonNode result = Json.parse(line.group(1));
            results.put(result.get("tool").asText(), result);
        }
        return results;
    }

    /** Checks the text against the pattern and the questions asked (by mode); returns the pattern's group. */
    private static String assertText(String label, JsonNode result, String pattern, List<String> modes) {
        Matcher text = Pattern.compile(pattern).matcher(result.get("text").asText());
        assertTrue(text.matches(), () -> label + ": " + result);
        List<String> asked = new ArrayList<>();
        result.get("asked").forEach(question -> asked.add(question.get("mode").asText()));
        assertEquals(modes, asked, () -> label + ": questions asked in " + result);
        return text.group(1);
    }

    private static long count(List<String> lines, String regex) {
        return lines.stream().filter(line -> line.matches(regex)).count();
    }

    private record Run(int exitCode, String output) {}

    /** Runs a command in target/interop, output and errors together, killed after the limit. */
    private static Run run(List<String> command, long limitSeconds, String whenMissing)
            throws IOException, InterruptedException {
        return run(command, Map.of(), limitSeconds, whenMissing);
    }

    private static Run run(List<String> command, Map<String, String> environment, long limitSeconds, String whenMissing)
            throws IOException, InterruptedException {
        Path log = Files.createTempFile("interop", ".log");
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().putAll(environment);
            process = builder.directory(WORK.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(whenMissing + " (" + command.get(0) + ": " + e.getMessage() + ")", e);
        }
        try {
            if (!process.waitFor(limitSeconds, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
                fail(String.join(" ", command) + " took longer than " + limitSeconds + " s:\n" + read(log));
            }
            return new Run(process.exitValue(), read(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
