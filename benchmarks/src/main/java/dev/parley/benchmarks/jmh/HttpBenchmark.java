package dev.parley.benchmarks.jmh;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.benchmarks.baseline.BaselineServer;
import dev.parley.benchmarks.load.Answers;
import dev.parley.benchmarks.load.LoadOptions;
import dev.parley.benchmarks.load.McpSession;
import dev.parley.benchmarks.load.SocketTransport;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * End to end over HTTP on loopback: a {@link McpHttpServer} (H2 file journal in a temp
 * directory) driven by 16 JMH threads, each with its own keep-alive connection and the load
 * generator's 2026-07-28 client ({@link McpSession}): the MRTR flow (call → input_required →
 * retry → complete) and a one-round call; and, for scale, the same one-round call against the
 * bare pekko-http {@link BaselineServer}.
 */
public class HttpBenchmark extends ParleyBenchmark {

    @State(Scope.Benchmark)
    public static class ParleyServer {
        /** {@code shipped}: the journal settings as shipped; a number: {@code jdbc-journal.parallelism}. */
        @Param("shipped")
        public String journalParallelism;

        Path directory;
        McpHttpServer server;
        URI url;

        @Setup(Level.Trial)
        public void start() {
            initLogging();
            directory = BenchFiles.tempDirectory("parley-bench-http-");
            server = McpHttpServer.builder(BenchTools.server())
                    .config(BenchTools.nodeConfig(journalParallelism))
                    .dataDirectory(directory)
                    .port(0)
                    .start();
            url = URI.create("http://127.0.0.1:" + server.port() + "/mcp");
        }

        @TearDown(Level.Trial)
        public void stop() {
            server.close();
            BenchFiles.delete(directory);
        }
    }

    @State(Scope.Benchmark)
    public static class Baseline {
        BaselineServer server;
        URI url;

        @Setup(Level.Trial)
        public void start() {
            initLogging();
            server = BaselineServer.start("127.0.0.1", 0);
            url = URI.create("http://127.0.0.1:" + server.port() + "/mcp");
        }

        @TearDown(Level.Trial)
        public void stop() {
            server.close();
        }
    }

    /** One connection per JMH thread. */
    public abstract static class Client {
        McpSession session;

        void connect(URI url) {
            session = new McpSession(
                    new SocketTransport(url, Duration.ofSeconds(60)),
                    LoadOptions.Protocol.V2026_07_28,
                    false,
                    Map.of(),
                    (kind, start, end) -> {});
        }

        @TearDown(Level.Trial)
        public void close() {
            session.close();
        }
    }

    @State(Scope.Thread)
    public static class ParleyClient extends Client {
        @Setup(Level.Trial)
        public void connect(ParleyServer server) {
            connect(server.url);
        }
    }

    @State(Scope.Thread)
    public static class BaselineClient extends Client {
        @Setup(Level.Trial)
        public void connect(Baseline baseline) {
            connect(baseline.url);
        }
    }

    private static final ObjectNode CALL_ARGUMENTS = BenchTools.object(BenchTools.CALL_ARGUMENTS);
    private static final ObjectNode INVOICE_ARGUMENTS = BenchTools.object(BenchTools.INVOICE_ARGUMENTS);
    private static final Answers ANSWERS = new Answers((ObjectNode) Json.parse("{\"currency\":\"CHF\"}"), "accept");

    private static ObjectNode call(McpSession session, String kind, ObjectNode params, String tool) {
        try {
            return session.call(kind, "tools/call", params, tool, Map.of());
        } catch (McpSession.Failure failure) {
            throw new IllegalStateException(failure.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static ObjectNode oneRound(McpSession session) {
        return oneRound(session, "check_availability");
    }

    static ObjectNode oneRound(McpSession session, String tool) {
        ObjectNode result = call(session, "call", EntityH2Benchmark.toolsCall(tool, CALL_ARGUMENTS), tool);
        if (!"complete".equals(result.path("resultType").asText())) {
            throw new IllegalStateException("expected complete: " + result);
        }
        return result;
    }

    @Benchmark
    @Threads(CONCURRENT_THREADS)
    public ObjectNode mrtrFlow(ParleyClient client) {
        ObjectNode first = call(
                client.session,
                "call",
                EntityH2Benchmark.toolsCall("create_invoice", INVOICE_ARGUMENTS),
                "create_invoice");
        if (!"input_required".equals(first.path("resultType").asText())) {
            throw new IllegalStateException("expected input_required: " + first);
        }
        ObjectNode retry = EntityH2Benchmark.toolsCall("create_invoice", INVOICE_ARGUMENTS);
        retry.set("requestState", first.get("requestState"));
        retry.set("inputResponses", ANSWERS.respond(first.get("inputRequests")));
        ObjectNode done = call(client.session, "retry", retry, "create_invoice");
        if (!"complete".equals(done.path("resultType").asText())) {
            throw new IllegalStateException("expected complete: " + done);
        }
        return done;
    }

    @Benchmark
    @Threads(CONCURRENT_THREADS)
    public ObjectNode oneRoundCall(ParleyClient client) {
        return oneRound(client.session);
    }

    /** The same call to a tool with a non-blocking handler (no hand-off to the tool executor). */
    @Benchmark
    @Threads(CONCURRENT_THREADS)
    public ObjectNode oneRoundCallAsync(ParleyClient client) {
        return oneRound(client.session, "check_availability_async");
    }

    @Benchmark
    @Threads(CONCURRENT_THREADS)
    public ObjectNode baselineOneRoundCall(BaselineClient client) {
        return oneRound(client.session);
    }
}
