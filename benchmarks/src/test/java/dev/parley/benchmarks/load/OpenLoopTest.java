package dev.parley.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.parley.runtime.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The open loop against a real HTTP server that answers one request at a time, each after
 * {@link #SERVICE_MILLIS}: offered more than it can serve, the server falls behind, and the
 * flows' latency (from when each was due) shows the queue that a closed loop would hide.
 */
class OpenLoopTest {
    private static final int SERVICE_MILLIS = 40;

    private HttpServer server;
    private final AtomicInteger calls = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newSingleThreadExecutor()); // one request at a time
        server.createContext("/mcp", exchange -> {
            JsonNode request = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
            ObjectNode result = Json.object();
            if (request.path("method").asText().equals("tools/call")) {
                calls.incrementAndGet();
                try {
                    Thread.sleep(SERVICE_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                result.put("resultType", "complete")
                        .putArray("content")
                        .addObject()
                        .put("type", "text")
                        .put("text", "ok");
            } else {
                result.putArray("tools")
                        .addObject()
                        .put("name", "slow")
                        .putObject("inputSchema")
                        .put("type", "object");
            }
            ObjectNode response = Json.object().put("jsonrpc", "2.0");
            response.set("id", request.get("id"));
            response.set("result", result);
            byte[] body = Json.MAPPER.writeValueAsBytes(response);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    @Test
    void latencyCountsFromWhenEachFlowWasDue(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp";
        // 100 flows/s for 1 s against a server that serves at most 25/s: the last flows are due
        // long before the server gets to them.
        LoadOptions options = LoadOptions.parse(
                "--url",
                url,
                "--tool",
                "slow",
                "--args",
                "{}",
                "--rate",
                "100/s",
                "--concurrency",
                "4",
                "--duration",
                "1s",
                "--warmup",
                "0s",
                "--no-progress",
                "--html",
                dir.resolve("run.html").toString());
        assertTrue(options.openLoop());
        List<LevelResult> levels = new LoadGenerator(options, new PrintStream(new ByteArrayOutputStream()), null).run();
        assertEquals(1, levels.size());
        LevelResult level = levels.get(0);
        assertEquals(100.0, level.offeredRate());
        assertEquals(0, level.stats().errorCount(), () -> level.stats().errors().toString());
        // Every flow due within the second ran (late ones too), and no more than were due.
        assertEquals(100, level.stats().flows());
        assertEquals(100, calls.get());
        LatencyHistogram flow = level.stats().kinds().get(LevelStats.FLOW);
        LatencyHistogram call = level.stats().kinds().get("call");
        // Serving 100 one at a time takes at least 4 s, so the last one waited at least 3 s after it was due,
        // while no single request took that long to be answered.
        assertTrue(flow.max() >= 2_500_000_000L, () -> "flow max " + flow.max() / 1e6 + " ms");
        assertTrue(
                flow.percentile(99) > call.max(),
                () -> "flow p99 " + flow.percentile(99) / 1e6 + " ms, call max " + call.max() / 1e6 + " ms");
        new Report(options, levels, java.time.Instant.now()).writeHtml(dir.resolve("run.html"));
        String html = Files.readString(dir.resolve("run.html"), StandardCharsets.UTF_8);
        assertTrue(html.contains("offered flows/s"), html);
    }

    @Test
    void theServersCpuIsReportedPerFlowAndPerRequestKind() throws Exception {
        // The server here is this JVM: a real process whose CPU time /proc reports.
        long pid = ProcessHandle.current().pid();
        org.junit.jupiter.api.Assumptions.assumeTrue(CpuSampler.processCpuNanos(pid) >= 0, "needs Linux /proc");
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp";
        LoadOptions options = LoadOptions.parse(
                "--url",
                url,
                "--tool",
                "slow",
                "--args",
                "{}",
                "--concurrency",
                "2",
                "--requests",
                "20",
                "--warmup",
                "0s",
                "--no-progress",
                "--server-pid",
                Long.toString(pid));
        LevelResult level = new LoadGenerator(options, new PrintStream(new ByteArrayOutputStream()), null)
                .run()
                .get(0);
        assertEquals(20, level.stats().flows());
        assertTrue(level.cpu().serverCores() >= 0);
        java.util.Map<String, Double> perKind = level.serverCpuMillis();
        assertEquals(java.util.Set.of("flow", "request", "call"), perKind.keySet());
        assertEquals(perKind.get("call"), perKind.get("request"), 1e-9, "one kind of request: its share is all of it");
        assertTrue(level.toJson().has("serverCpuMsPerKind"));
        // a pid that is not there is refused up front
        assertThrowsUsage("--server-pid", Long.toString(Integer.MAX_VALUE + 1L));
    }

    @Test
    void rateOptionsAreChecked() {
        assertEquals(
                List.of(500.0, 1000.0, 2000.0),
                LoadOptions.parse("--url", "http://127.0.0.1:1/mcp", "--rate", "500,1000,2000/s", "--duration", "1s")
                        .rates());
        assertEquals(
                256,
                LoadOptions.parse("--url", "http://127.0.0.1:1/mcp", "--rate", "10", "--duration", "1s")
                        .concurrency()
                        .get(0));
        for (String bad : new String[] {"0", "-5/s", "fast", "2000000"}) {
            assertThrowsUsage("--rate", bad);
        }
        assertThrowsUsage("--concurrency", "1,8", "--rate", "10");
    }

    private static void assertThrowsUsage(String... args) {
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--url";
        all[args.length + 1] = "http://127.0.0.1:1/mcp";
        all[args.length + 2] = "--duration";
        all[args.length + 3] = "1s";
        org.junit.jupiter.api.Assertions.assertThrows(LoadOptions.UsageException.class, () -> LoadOptions.parse(all));
    }
}
