package dev.parley.http.internal.ops;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node stopped (its CoordinatedShutdown) while clients run two-round calls: every response
 * is a JSON-RPC answer or a clean 503 with Retry-After, /ready turns false before the MCP port
 * closes, and every call that was acknowledged completes after the restart with its step run
 * exactly once.
 */
class ShutdownUnderLoadTest {
    private static final int CLIENTS = 4;
    private static final long LOAD_MILLIS = 500;
    private static final Config CONFIG = ConfigFactory.parseString("""
      parley.management.port = 0
      parley.lifecycle.readiness-delay = 1s
      """);

    @TempDir
    Path data;

    /** How often each call's journaled step really ran, by the caller's name. */
    private final Map<String, AtomicLong> stepRuns = new ConcurrentHashMap<>();

    record NameArgs(@Description("Who calls") String caller) {}

    private McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-shutdown-tests", "0.0.1")
                .tool(ToolDefinition.tool("slow_ask", NameArgs.class)
                        .description("Asks for a yes, then works 200 ms in a journaled step.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "go",
                                    Elicitation.form("Go?")
                                            .field("ok", FormField.bool("Go"))
                                            .build());
                            if (!(answer instanceof ElicitAnswer.Accepted)) {
                                return ToolResult.text("not done");
                            }
                            long runs = ctx.step("work", Long.class, () -> {
                                sleep(200);
                                return stepRuns.computeIfAbsent(args.caller(), key -> new AtomicLong())
                                        .incrementAndGet();
                            });
                            return ToolResult.text("done " + args.caller() + " " + runs);
                        }))
                .build();
    }

    private McpHttpServer start() {
        return McpHttpServer.builder(definition())
                .dataDirectory(data)
                .port(0)
                .config(CONFIG)
                .start();
    }

    /** An acknowledged call: its first round answered input_required with this state. */
    record Pending(ObjectNode request, String requestState) {}

    @Test
    void aDrainingNodeLosesNoCallAndAnswersNo5xxButClean503s() throws Exception {
        McpHttpServer server = start();
        int mcpPort = server.port();
        int managementPort = server.managementPort();
        McpTestClient client = new McpTestClient(mcpPort);

        Map<String, Pending> pending = new ConcurrentHashMap<>();
        Set<String> completed = ConcurrentHashMap.newKeySet();
        List<String> badResponses = new CopyOnWriteArrayList<>();
        List<String> failures = new CopyOnWriteArrayList<>();
        AtomicLong refusedWhileDraining = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong notReadyAt = new AtomicLong();
        AtomicLong portClosedAt = new AtomicLong();

        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int clientNumber = c;
            threads.add(started(() -> {
                for (int i = 0; !stop.get(); i++) {
                    String caller = "c" + clientNumber + "-" + i;
                    ObjectNode first = client.toolCall("slow_ask", Json.object().put("caller", caller));
                    try {
                        Reply reply = client.send(first);
                        if (!judge(reply, badResponses, refusedWhileDraining)) {
                            continue;
                        }
                        pending.put(caller, new Pending(first, reply.requestState()));
                        Reply done = client.send(client.retry(
                                first,
                                reply.requestState(),
                                accept("go", Json.object().put("ok", true))));
                        if (judge(done, badResponses, refusedWhileDraining)) {
                            pending.remove(caller);
                            completed.add(caller);
                        }
                    } catch (IllegalStateException transport) {
                        failures.add(transport.toString());
                        return; // the node is gone: connection refused or closed
                    }
                }
            }));
        }
        Thread readiness = started(() -> {
            while (!stop.get() && notReadyAt.get() == 0) {
                try {
                    if (Prometheus.status(managementPort, "/ready") != 200) {
                        notReadyAt.set(System.nanoTime());
                    }
                } catch (RuntimeException e) {
                    notReadyAt.set(System.nanoTime());
                }
                sleep(10);
            }
        });
        Thread port = started(() -> {
            while (!stop.get() && portClosedAt.get() == 0) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", mcpPort), 500);
                } catch (IOException refused) {
                    portClosedAt.set(System.nanoTime());
                }
                sleep(10);
            }
        });

        // Load until some calls completed (bounded), then stop the node under that load.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (completed.size() < CLIENTS * 3 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        Thread.sleep(LOAD_MILLIS);
        assertTrue(completed.size() > 0, () -> "the load ran before the shutdown; " + badResponses + " " + failures);
        server.close(); // CoordinatedShutdown, as on SIGTERM
        stop.set(true);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        readiness.join(5_000);
        port.join(5_000);

        assertEquals(List.of(), badResponses, "only JSON-RPC answers and clean 503s");
        assertTrue(refusedWhileDraining.get() > 0, "requests that came during the drain were refused with 503");
        assertTrue(
                notReadyAt.get() != 0 && portClosedAt.get() != 0,
                "both the readiness change and the port close were seen");
        assertTrue(notReadyAt.get() < portClosedAt.get(), "/ready turned false before the MCP port closed");

        // The restarted node finishes every acknowledged call; no step runs twice.
        McpHttpServer restarted = start();
        try {
            McpTestClient again = new McpTestClient(restarted.port());
            for (Map.Entry<String, Pending> call : pending.entrySet()) {
                ObjectNode retry = again.retry(
                        call.getValue().request(),
                        call.getValue().requestState(),
                        accept("go", Json.object().put("ok", true)));
                assertCompleted(again.send(retry), retry);
                completed.add(call.getKey());
            }
        } finally {
            restarted.close();
        }
        for (String caller : completed) {
            assertEquals(1, stepRuns.get(caller).get(), () -> "the step of " + caller + " ran once");
        }
        assertEquals(completed.size(), stepRuns.size());
    }

    /** True for a 200 JSON-RPC result; a 503 must carry Retry-After; anything else is recorded as bad. */
    private static boolean judge(Reply reply, List<String> bad, AtomicLong refused) {
        if (reply.status() == 200 && reply.json().has("result")) {
            return true;
        }
        if (reply.status() == 503
                && reply.headers().firstValue("retry-after").isPresent()
                && reply.json().has("error")) {
            refused.incrementAndGet();
            return false;
        }
        bad.add(reply.status() + " " + reply.body());
        return false;
    }

    private static Thread started(Runnable work) {
        Thread thread = new Thread(work);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
