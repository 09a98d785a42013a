package dev.parley.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.benchmarks.load.LoadOptions.UsageException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadOptionsTest {

    @Test
    void defaultsPointAtTheDemoServersOneRoundTool() {
        LoadOptions options = LoadOptions.parse("--duration", "10s");
        assertEquals("http://127.0.0.1:8080/mcp", options.url().toString());
        assertEquals(LoadOptions.FlowKind.CALL, options.flow());
        assertEquals("check_availability", options.tool());
        assertEquals("2026-12-20", options.arguments().path("date").asText());
        assertEquals(List.of(8), options.concurrency());
        assertEquals(Duration.ofSeconds(10), options.duration());
        assertNull(options.requests());
        assertEquals(Duration.ofSeconds(5), options.warmup());
        assertEquals(LoadOptions.ClientKind.SOCKET, options.client());
        assertEquals(LoadOptions.Protocol.V2026_07_28, options.protocol());
    }

    @Test
    void mrtrFlowDefaultsToCreateInvoice() {
        LoadOptions options =
                LoadOptions.parse("--flow", "mrtr", "--requests", "10k", "--answers", "{\"currency\":\"CHF\"}");
        assertEquals("create_invoice", options.tool());
        assertEquals("x", options.arguments().path("client").asText());
        assertEquals(1, options.arguments().path("amount").asInt());
        assertEquals(10_000L, options.requests());
        assertEquals("CHF", options.answers().path("currency").asText());
    }

    @Test
    void parsesLevelsDurationsAndEqualsForms() {
        LoadOptions options = LoadOptions.parse(
                "--url=http://localhost:9/mcp",
                "-c",
                "1,8,64",
                "-d",
                "1.5m",
                "--warmup",
                "500ms",
                "--timeout",
                "2",
                "--header",
                "Authorization: Bearer t",
                "--client",
                "jdk",
                "--json",
                "out.json",
                "--html",
                "out.html",
                "--no-progress");
        assertEquals(List.of(1, 8, 64), options.concurrency());
        assertEquals(Duration.ofSeconds(90), options.duration());
        assertEquals(Duration.ofMillis(500), options.warmup());
        assertEquals(Duration.ofSeconds(2), options.timeout());
        assertEquals("Bearer t", options.headers().get("Authorization"));
        assertEquals(LoadOptions.ClientKind.JDK, options.client());
        assertTrue(!options.progress());
    }

    @Test
    void refusesToRunUnbounded() {
        UsageException e =
                assertThrows(UsageException.class, () -> LoadOptions.parse("--url", "http://127.0.0.1:1/mcp"));
        assertTrue(e.getMessage().contains("--duration or --requests"), e.getMessage());
    }

    @Test
    void capsDurationCountWarmupAndConcurrency() {
        assertThrows(UsageException.class, () -> LoadOptions.parse("--duration", "2h"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("--duration", "0s"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("--requests", "20m"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("--requests", "0"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--warmup", "11m"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "-c", "5000"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "-c", "0"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--max-rounds", "1000"));
    }

    @Test
    void rejectsMalformedValues() {
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "soon"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--flow", "stream"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--args", "[1]"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--args", "{nope"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--url", "ftp://127.0.0.1/x"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--protocol", "2024-11-05"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--bogus", "1"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d"));
        assertThrows(UsageException.class, () -> LoadOptions.parse("-d", "1s", "--flow", "task"));
    }

    @Test
    void oldProtocolIsForOneRoundCallsOnly() {
        assertDoesNotThrow(() -> LoadOptions.parse("-d", "1s", "--protocol", "2025-11-25"));
        assertDoesNotThrow(() -> LoadOptions.parse("-d", "1s", "--protocol", "2025-11-25", "--flow", "mrtr"));
        assertThrows(
                UsageException.class,
                () -> LoadOptions.parse("-d", "1s", "--protocol", "2025-11-25", "--flow", "task"));
    }

    @Test
    void onlyLoopbackOrNamedHostsAreTargets() {
        assertDoesNotThrow(() -> LoadOptions.parse("-d", "1s", "--url", "http://127.0.0.1:8080/mcp")
                .checkTargetAllowed());
        assertDoesNotThrow(() -> LoadOptions.parse("-d", "1s", "--url", "http://127.3.4.5:8080/mcp")
                .checkTargetAllowed());
        assertDoesNotThrow(() -> LoadOptions.parse("-d", "1s", "--url", "http://localhost:8080/mcp")
                .checkTargetAllowed());
        assertDoesNotThrow(() ->
                LoadOptions.parse("-d", "1s", "--url", "http://[::1]:8080/mcp").checkTargetAllowed());
        assertThrows(
                UsageException.class,
                () -> LoadOptions.parse("-d", "1s", "--url", "http://10.0.0.5:8080/mcp")
                        .checkTargetAllowed());
        assertThrows(
                UsageException.class,
                () -> LoadOptions.parse("-d", "1s", "--url", "http://192.168.1.2/mcp")
                        .checkTargetAllowed());
        assertDoesNotThrow(
                () -> LoadOptions.parse("-d", "1s", "--url", "http://10.0.0.5:8080/mcp", "--allow-host", "10.0.0.5")
                        .checkTargetAllowed());
        assertDoesNotThrow(() -> LoadOptions.parse(
                        "-d",
                        "1s",
                        "--url",
                        "https://mcp.example.test/mcp",
                        "--allow-host",
                        "other.test,MCP.example.test")
                .checkTargetAllowed());
    }
}
