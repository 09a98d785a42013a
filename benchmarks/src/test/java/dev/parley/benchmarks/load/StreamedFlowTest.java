package dev.parley.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.parley.http.McpHttpServer;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 2025-11-25 elicitation flow ({@code --protocol 2025-11-25 --flow mrtr}) against a real
 * Parley node, with more workers than a handful: each worker holds its call's SSE stream open
 * while it POSTs the answer on a second connection, and every flow must still complete. Bounded
 * by a flow count and a timeout; nothing here measures speed.
 */
class StreamedFlowTest {
    private static final int WORKERS = 8;
    private static final int FLOWS = 40;

    public record NoArgs() {}

    @Test
    @Timeout(120)
    void everyElicitationFlowCompletesWithEightWorkers(@TempDir Path data) throws Exception {
        AtomicInteger issued = new AtomicInteger();
        McpServerDefinition definition = McpServerDefinition.builder("parley-streamed-flow-test", "0.0.1")
                .tool(ToolDefinition.tool("ask_currency", NoArgs.class)
                        .description("Asks for a currency, then records one journaled step.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "currency",
                                    Elicitation.form("Which currency?")
                                            .field("currency", FormField.string("Currency"))
                                            .build());
                            String currency = answer instanceof ElicitAnswer.Accepted accepted
                                    ? accepted.string("currency")
                                    : "-";
                            int number = ctx.step("issue", Integer.class, issued::incrementAndGet);
                            return ToolResult.text("invoice " + number + " in " + currency);
                        }))
                .build();
        try (McpHttpServer server =
                McpHttpServer.builder(definition).dataDirectory(data).port(0).start()) {
            LoadOptions options = LoadOptions.parse(
                    "--url",
                    "http://127.0.0.1:" + server.port() + "/mcp",
                    "--protocol",
                    "2025-11-25",
                    "--flow",
                    "mrtr",
                    "--tool",
                    "ask_currency",
                    "--args",
                    "{}",
                    "--answers",
                    "{\"currency\":\"CHF\"}",
                    "--concurrency",
                    String.valueOf(WORKERS),
                    "--requests",
                    String.valueOf(FLOWS),
                    "--warmup",
                    "0s",
                    "--flow-timeout",
                    "30s",
                    "--no-progress");
            List<LevelResult> levels =
                    new LoadGenerator(options, new PrintStream(new ByteArrayOutputStream()), null).run();
            LevelStats stats = levels.get(0).stats();
            assertEquals(0, stats.errorCount(), () -> stats.errors().toString());
            assertEquals(FLOWS, stats.flows());
            assertEquals(FLOWS, stats.kinds().get("answer").count(), "one answer per flow");
        }
    }
}
