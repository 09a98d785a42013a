package dev.parley.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server the tasks tests talk to ({@code io.modelcontextprotocol/tasks}): one tool for each
 * way a task can go. Each task-capable handler marks where its task begins with
 * {@code ctx.becomeTask()}; the server decides, per request, whether it becomes one.
 */
final class TaskTools {
    static final String EXTENSION = "io.modelcontextprotocol/tasks";
    /** Every kind of elicitation, and the tasks extension. */
    static final String WITH_TASKS = McpTestClient.WITH_TASKS;
    /** The same client without the extension. */
    static final String WITHOUT_TASKS = McpTestClient.ALL_ELICITATION;
    /** Listen streams send a keep-alive comment every 200 ms when idle. */
    static final String CONFIG = "parley.http.keep-alive = 200ms";
    /** An application error code (outside the range JSON-RPC reserves). */
    static final int LEDGER_UNAVAILABLE = 1001;
    /** How long {@code watch_feed} runs when nobody stops it: bounded, so a lost cancel never hangs a pool thread. */
    static final Duration LONGEST_RUN = Duration.ofSeconds(30);

    /** How often {@code watch_feed}'s handler ran. */
    final AtomicInteger watchRuns = new AtomicInteger();
    /** Per feed: counted down when {@code watch_feed} starts, and when its run stopped before {@link #LONGEST_RUN}. */
    private final Map<String, CountDownLatch> watchStarted = new ConcurrentHashMap<>();

    private final Map<String, CountDownLatch> watchStopped = new ConcurrentHashMap<>();

    CountDownLatch started(String feed) {
        return watchStarted.computeIfAbsent(feed, key -> new CountDownLatch(1));
    }

    CountDownLatch stopped(String feed) {
        return watchStopped.computeIfAbsent(feed, key -> new CountDownLatch(1));
    }

    record TextArgs(@Description("Some words") String text) {}

    record OrderArgs(@Description("Order number") String order) {}

    record FeedArgs(@Description("Feed name") String feed) {}

    record TripArgs(@Description("Where to") String city) {}

    McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-task-tests", "0.0.1")
                .tool(echo())
                .tool(countWords())
                .tool(approveOrder())
                .tool(checkStock())
                .tool(postLedger())
                .tool(watchFeed())
                .tool(bookTrip())
                .build();
    }

    /** Boots a server on a free loopback port; {@code extraConfig} is added to {@link #CONFIG}. */
    static McpHttpServer start(TaskTools tools, Path dataDirectory, String extraConfig) {
        return McpHttpServer.builder(tools.definition())
                .dataDirectory(dataDirectory)
                .port(0)
                .principals(TestTools.PRINCIPALS)
                .config(ConfigFactory.parseString(CONFIG + "\n" + extraConfig))
                .start();
    }

    /** Never a task. */
    private static ToolDefinition<TextArgs> echo() {
        return ToolDefinition.tool("echo", TextArgs.class)
                .description("Echoes its input; never a task.")
                .handler((args, ctx) -> ToolResult.text("echo: " + args.text()));
    }

    /** A task when the client supports tasks; otherwise it simply answers. */
    private static ToolDefinition<TextArgs> countWords() {
        return ToolDefinition.tool("count_words", TextArgs.class)
                .description("Counts words, as a task when it can.")
                .taskSupport(TaskSupport.OPTIONAL)
                .handler((args, ctx) -> {
                    ctx.becomeTask();
                    int words = args.text().isBlank() ? 0 : args.text().trim().split("\\s+").length;
                    return ToolResult.text(words + " words" + (ctx.isTask() ? " (task)" : ""));
                });
    }

    /** Two questions at once, asked inside the task: it parks {@code input_required}. */
    private static ToolDefinition<OrderArgs> approveOrder() {
        return ToolDefinition.tool("approve_order", OrderArgs.class)
                .description("Asks who approves and whether to ship, then ships.")
                .taskSupport(TaskSupport.OPTIONAL)
                .handler((args, ctx) -> {
                    ctx.becomeTask();
                    Map<String, Elicitation> questions = new LinkedHashMap<>();
                    questions.put(
                            "approver",
                            Elicitation.form("Who approves order " + args.order() + "?")
                                    .field("name", FormField.string("Name"))
                                    .build());
                    questions.put(
                            "ship",
                            Elicitation.form("Ship order " + args.order() + " now?")
                                    .field("ok", FormField.bool("Ship it"))
                                    .build());
                    Map<String, ElicitAnswer> answers = ctx.elicitAll(questions);
                    String approver =
                            answers.get("approver") instanceof ElicitAnswer.Accepted a ? a.string("name") : "nobody";
                    boolean ship = answers.get("ship") instanceof ElicitAnswer.Accepted s && s.bool("ok");
                    return ToolResult.text(
                            "Order " + args.order() + (ship ? " shipped" : " held") + ", approved by " + approver);
                });
    }

    /** Runs, then reports a tool error: an {@code isError} result, which ends the task completed. */
    private static ToolDefinition<OrderArgs> checkStock() {
        return ToolDefinition.tool("check_stock", OrderArgs.class)
                .description("Checks stock for an order; always out of stock.")
                .taskSupport(TaskSupport.OPTIONAL)
                .handler((args, ctx) -> {
                    ctx.becomeTask();
                    return ToolResult.error("Order " + args.order() + ": out of stock");
                });
    }

    /** Ends with a JSON-RPC error: the task ends failed. */
    private static ToolDefinition<OrderArgs> postLedger() {
        return ToolDefinition.tool("post_ledger", OrderArgs.class)
                .description("Posts an order to the ledger; the ledger is always down.")
                .taskSupport(TaskSupport.OPTIONAL)
                .handler((args, ctx) -> {
                    ctx.becomeTask();
                    throw new McpException(
                            LEDGER_UNAVAILABLE,
                            "Ledger unavailable for order " + args.order(),
                            Json.object().put("order", args.order()));
                });
    }

    /**
     * Only as a task; reports what it watches (the task's status message), then works until
     * cancelled (or interrupted), at most {@link #LONGEST_RUN}.
     */
    private ToolDefinition<FeedArgs> watchFeed() {
        return ToolDefinition.tool("watch_feed", FeedArgs.class)
                .description("Watches a feed until cancelled.")
                .taskSupport(TaskSupport.REQUIRED)
                .handler((args, ctx) -> {
                    watchRuns.incrementAndGet();
                    ctx.becomeTask();
                    ctx.progress(0, null, "Watching " + args.feed());
                    started(args.feed()).countDown();
                    long deadline = System.nanoTime() + LONGEST_RUN.toNanos();
                    try {
                        while (!ctx.isCancelled() && System.nanoTime() < deadline) {
                            Thread.sleep(10);
                        }
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    if (System.nanoTime() < deadline) {
                        stopped(args.feed()).countDown();
                    }
                    return ToolResult.text("Stopped watching " + args.feed());
                });
    }

    /** One synchronous MRTR round (who travels), then the booking runs as a task. */
    private static ToolDefinition<TripArgs> bookTrip() {
        return ToolDefinition.tool("book_trip", TripArgs.class)
                .description("Asks who travels, then books as a task.")
                .taskSupport(TaskSupport.REQUIRED)
                .handler((args, ctx) -> {
                    ElicitAnswer who = ctx.elicit(
                            "traveller",
                            Elicitation.form("Who travels to " + args.city() + "?")
                                    .field("name", FormField.string("Name"))
                                    .build());
                    String name = who instanceof ElicitAnswer.Accepted accepted ? accepted.string("name") : "nobody";
                    ctx.becomeTask();
                    return ToolResult.text("Booked " + args.city() + " for " + name + (ctx.isTask() ? " (task)" : ""));
                });
    }

    /** Arguments as JSON. */
    static ObjectNode args(String name, String value) {
        return Json.object().put(name, value);
    }
}
