package dev.parley.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.Content;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.InputAnswer;
import dev.parley.runtime.InputQuestion;
import dev.parley.runtime.Json;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.PromptDefinition.Message;
import dev.parley.runtime.ResourceContents;
import dev.parley.runtime.ResourceDefinition;
import dev.parley.runtime.RootsAnswer;
import dev.parley.runtime.RootsRequest;
import dev.parley.runtime.SamplingAnswer;
import dev.parley.runtime.SamplingRequest;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The server the streaming, subscription, prompt, resource and deprecated-input tests talk to:
 * tools that report progress, log, wait to be cancelled and ask for sampling and roots; four
 * prompts and three fixed resources (two pages each at page size 2); three resource templates.
 * The test keeps {@link #definition()} to change the server at runtime.
 */
@SuppressWarnings("deprecation") // sampling, roots and logging are deprecated, and under test
final class FeatureTools {
    /** Page size 2; listen streams send a keep-alive comment every 200 ms when idle. */
    static final String CONFIG = "parley.lists.page-size = 2\nparley.http.keep-alive = 200ms";
    /** How long a waiting tool waits before it gives up on being cancelled (it never hangs a pool thread for ever). */
    static final Duration LONGEST_WAIT = Duration.ofSeconds(30);

    static final List<String> PROMPTS = List.of("greeting", "confirm_tone", "big_choice", "route");
    static final List<String> FIXED_RESOURCES = List.of("test://fixed/a", "test://fixed/b", "test://fixed/c");
    static final List<String> TEMPLATES =
            List.of("test://items/{id}/detail", "test://vault/{name}", "test://users/{user}/files/{file}");
    static final List<String> CITIES = List.of("Berlin", "Bern", "Bordeaux", "Lisbon", "London");

    /**
     * What a test and a waiting tool share: the tool counts {@link #started} down when it waits,
     * {@link #cancelled} when it saw its cancellation ({@link #how}: "flag" for
     * {@code ctx.isCancelled()}, "interrupt" for an {@link InterruptedException}); the test counts
     * {@link #release} down to let it finish normally.
     */
    static final class Signal {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch cancelled = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<String> how = new AtomicReference<>();
        final AtomicInteger runs = new AtomicInteger();
    }

    private final Map<String, Signal> signals = new ConcurrentHashMap<>();
    private McpServerDefinition definition;

    /** A fresh signal a waiting tool finds by {@code name} (its {@code signal} argument). */
    Signal signal(String name) {
        Signal signal = new Signal();
        signals.put(name, signal);
        return signal;
    }

    McpServerDefinition definition() {
        if (definition == null) {
            McpServerDefinition.Builder builder = McpServerDefinition.builder("parley-feature-tests", "0.0.1")
                    .tool(countUp())
                    .tool(waitForCancel())
                    .tool(askThenWait())
                    .tool(logLevels())
                    .tool(summarize())
                    .tool(whereAmI())
                    .tool(research())
                    .prompt(greetingPrompt())
                    .prompt(confirmTonePrompt())
                    .prompt(bigChoicePrompt())
                    .prompt(routePrompt());
            FIXED_RESOURCES.forEach(uri -> builder.resource(fixed(uri)));
            builder.resource(itemTemplate()).resource(vaultTemplate()).resource(userFilesTemplate());
            definition = builder.build();
        }
        return definition;
    }

    /** Boots a server for {@code tools} on a free loopback port. */
    static McpHttpServer start(FeatureTools tools, Path dataDirectory) {
        return McpHttpServer.builder(tools.definition())
                .dataDirectory(dataDirectory)
                .port(0)
                .config(ConfigFactory.parseString(CONFIG))
                .start();
    }

    // --- tools -------------------------------------------------------------------------------

    record CountArgs(@Description("How many steps") int steps) {}

    record WaitArgs(
            @Description("Name of the test's signal") String signal,
            @Description("Report progress while waiting") boolean heartbeat) {}

    record TextArgs(@Description("Some text") String text) {}

    record NoArgs() {}

    /** Reports progress {@code 1..steps} of {@code steps}, then answers. */
    private static ToolDefinition<CountArgs> countUp() {
        return ToolDefinition.tool("count_up", CountArgs.class)
                .description("Counts to steps, reporting progress.")
                .handler((args, ctx) -> {
                    for (int i = 1; i <= args.steps(); i++) {
                        ctx.progress(i, (double) args.steps(), "step " + i);
                    }
                    return ToolResult.text("counted to " + args.steps());
                });
    }

    /** Reports progress once, then waits until it is cancelled (or released, or gives up). */
    private ToolDefinition<WaitArgs> waitForCancel() {
        return ToolDefinition.tool("wait_for_cancel", WaitArgs.class)
                .description("Waits until the client goes away.")
                .handler((args, ctx) -> {
                    ctx.progress(1, null, "waiting");
                    return waitUntilCancelled(signals.get(args.signal()), ctx, args.heartbeat());
                });
    }

    /** Round one asks to go on; round two reports progress and waits like {@code wait_for_cancel}. */
    private ToolDefinition<WaitArgs> askThenWait() {
        return ToolDefinition.tool("ask_then_wait", WaitArgs.class)
                .description("Asks, then waits until the client goes away.")
                .handler((args, ctx) -> {
                    ElicitAnswer go = ctx.elicit(
                            "go",
                            Elicitation.form("Go on?")
                                    .field("ok", FormField.bool("Go on"))
                                    .build());
                    if (!(go instanceof ElicitAnswer.Accepted)) {
                        return ToolResult.text("not started");
                    }
                    ctx.progress(1, null, "round two");
                    return waitUntilCancelled(signals.get(args.signal()), ctx, args.heartbeat());
                });
    }

    private static ToolResult waitUntilCancelled(Signal signal, CallContext ctx, boolean heartbeat) {
        signal.runs.incrementAndGet();
        signal.started.countDown();
        long deadline = System.nanoTime() + LONGEST_WAIT.toNanos();
        int beat = 1;
        try {
            while (System.nanoTime() < deadline) {
                if (ctx.isCancelled()) {
                    signal.how.compareAndSet(null, "flag");
                    signal.cancelled.countDown();
                    return ToolResult.text("cancelled");
                }
                if (signal.release.await(20, TimeUnit.MILLISECONDS)) {
                    return ToolResult.text("released after " + signal.runs.get() + " run(s)");
                }
                if (heartbeat) {
                    ctx.progress(++beat, null, "still waiting");
                }
            }
            return ToolResult.text("gave up waiting");
        } catch (InterruptedException e) {
            signal.how.compareAndSet(null, "interrupt");
            signal.cancelled.countDown();
            Thread.currentThread().interrupt();
            return ToolResult.text("interrupted");
        }
    }

    /** Logs one line at each of debug, info, warning and error. */
    private static ToolDefinition<NoArgs> logLevels() {
        return ToolDefinition.tool("log_levels", NoArgs.class)
                .description("Logs at four levels.")
                .handler((args, ctx) -> {
                    ctx.log(LogLevel.DEBUG, "tests", "debug line");
                    ctx.log(LogLevel.INFO, "tests", "info line");
                    ctx.log(LogLevel.WARNING, "tests", Map.of("detail", "warning line"));
                    ctx.log(LogLevel.ERROR, null, "error line");
                    return ToolResult.text("logged");
                });
    }

    /** Asks the client's model (deprecated sampling). */
    private static ToolDefinition<TextArgs> summarize() {
        return ToolDefinition.tool("summarize", TextArgs.class)
                .description("Summarizes text with the client's model.")
                .handler((args, ctx) -> {
                    SamplingAnswer answer =
                            ctx.sample("summary", SamplingRequest.userText("Summarize: " + args.text(), 50));
                    return ToolResult.text("summary: " + answer.text() + " (by " + answer.model() + ")");
                });
    }

    /** Asks for the client's roots (deprecated). */
    private static ToolDefinition<NoArgs> whereAmI() {
        return ToolDefinition.tool("where_am_i", NoArgs.class)
                .description("Lists the client's roots.")
                .handler((args, ctx) -> {
                    RootsAnswer roots = ctx.listRoots("roots");
                    return ToolResult.text("roots: "
                            + roots.roots().stream().map(RootsAnswer.Root::uri).collect(Collectors.joining(", ")));
                });
    }

    /**
     * One round of several kinds of question: always a topic (elicitation), a draft (sampling)
     * only when the client declared sampling, a workspace (roots) only when it declared roots.
     */
    private static ToolDefinition<NoArgs> research() {
        return ToolDefinition.tool("research", NoArgs.class)
                .description("Asks for a topic, and a draft and the workspace where the client can give them.")
                .handler((args, ctx) -> {
                    Map<String, InputQuestion> questions = new LinkedHashMap<>();
                    questions.put(
                            "topic",
                            Elicitation.form("Which topic?")
                                    .field("topic", FormField.string("Topic"))
                                    .build());
                    if (ctx.clientCapabilities().sampling()) {
                        questions.put("draft", SamplingRequest.userText("Draft an outline", 100));
                    }
                    if (ctx.clientCapabilities().roots()) {
                        questions.put("workspace", new RootsRequest());
                    }
                    Map<String, InputAnswer> answers = ctx.askAll(questions);
                    StringBuilder text = new StringBuilder();
                    if (answers.get("topic") instanceof ElicitAnswer.Accepted topic) {
                        text.append("topic=").append(topic.string("topic"));
                    }
                    if (answers.get("draft") instanceof SamplingAnswer draft) {
                        text.append(" draft=").append(draft.text());
                    }
                    if (answers.get("workspace") instanceof RootsAnswer workspace) {
                        text.append(" roots=").append(workspace.roots().size());
                    }
                    return ToolResult.text(text.toString());
                });
    }

    // --- prompts -------------------------------------------------------------------------------

    private static PromptDefinition greetingPrompt() {
        return PromptDefinition.prompt("greeting")
                .title("Greeting")
                .description("Greets someone in a style.")
                .argument("name", "Who to greet", true)
                .argument("style", "How to greet", false)
                .completion(
                        "style",
                        (prefix, others) -> List.of("formal", "friendly", "funny").stream()
                                .filter(style -> style.startsWith(prefix))
                                .toList())
                .handler((arguments, ctx) -> new PromptDefinition.Result(
                        "A greeting",
                        List.of(Message.user(Content.text("Say hello to " + arguments.get("name") + " in a "
                                + arguments.getOrDefault("style", "plain") + " way.")))));
    }

    /** Asks which tone to use (MRTR on prompts/get). */
    private static PromptDefinition confirmTonePrompt() {
        return PromptDefinition.prompt("confirm_tone")
                .description("Asks for a tone, then writes about a topic.")
                .argument("topic", "What to write about", true)
                .handler((arguments, ctx) -> {
                    ElicitAnswer tone = ctx.elicit(
                            "tone",
                            Elicitation.form("Which tone?")
                                    .field("tone", FormField.choice("Tone", List.of("calm", "urgent")))
                                    .build());
                    String chosen =
                            tone instanceof ElicitAnswer.Accepted accepted ? accepted.string("tone") : "neutral";
                    return PromptDefinition.Result.of(
                            Message.user(Content.text(
                                    "Write about " + arguments.get("topic") + " in a " + chosen + " tone.")),
                            Message.assistant(Content.text("Understood.")));
                });
    }

    /** Its argument has 150 possible values: more than one completion answer may carry. */
    private static PromptDefinition bigChoicePrompt() {
        return PromptDefinition.prompt("big_choice")
                .argument("n", "A number", false)
                .completion(
                        "n",
                        (prefix, others) -> IntStream.rangeClosed(1, 150)
                                .mapToObj(Integer::toString)
                                .filter(n -> n.startsWith(prefix))
                                .toList())
                .handler((arguments, ctx) -> PromptDefinition.Result.of(
                        Message.user(Content.text("You chose " + arguments.getOrDefault("n", "nothing")))));
    }

    /** The completion of {@code to} depends on {@code from} (completion context). */
    private static PromptDefinition routePrompt() {
        return PromptDefinition.prompt("route")
                .argument("from", "Start", true)
                .argument("to", "Destination", true)
                .completion(
                        "to",
                        (prefix, others) -> CITIES.stream()
                                .filter(city -> city.startsWith(prefix) && !city.equals(others.get("from")))
                                .toList())
                .handler((arguments, ctx) -> PromptDefinition.Result.of(Message.user(
                        Content.text("Route from " + arguments.get("from") + " to " + arguments.get("to")))));
    }

    // --- resources -----------------------------------------------------------------------------

    private static ResourceDefinition fixed(String uri) {
        String letter = uri.substring(uri.length() - 1);
        return ResourceDefinition.resource(uri, "fixed-" + letter)
                .title("Fixed " + letter.toUpperCase())
                .description("A fixed resource.")
                .mimeType("text/plain")
                .handler((request, ctx) ->
                        List.of(ResourceContents.text(request.uri(), "text/plain", "contents of " + letter)));
    }

    private static ResourceDefinition itemTemplate() {
        return ResourceDefinition.template("test://items/{id}/detail", "item")
                .description("One item by id.")
                .mimeType("application/json")
                .completion(
                        "id",
                        (prefix, others) -> List.of("41", "42", "43", "50").stream()
                                .filter(id -> id.startsWith(prefix))
                                .toList())
                .handler((request, ctx) -> {
                    ObjectNode item =
                            Json.object().put("id", request.variables().get("id"));
                    return List.of(ResourceContents.text(request.uri(), "application/json", Json.write(item)));
                });
    }

    /** Asks for a passphrase before it reads (MRTR on resources/read). */
    private static ResourceDefinition vaultTemplate() {
        return ResourceDefinition.template("test://vault/{name}", "vault")
                .description("A secret, behind a passphrase.")
                .handler((request, ctx) -> {
                    ElicitAnswer pass = ctx.elicit(
                            "passphrase",
                            Elicitation.form("Passphrase for "
                                            + request.variables().get("name") + "?")
                                    .field(
                                            "passphrase",
                                            FormField.string("Passphrase")
                                                    .notASecret("a fixed test word that opens a test resource"))
                                    .build());
                    String text = pass instanceof ElicitAnswer.Accepted accepted
                                    && "open sesame".equals(accepted.string("passphrase"))
                            ? "secret of " + request.variables().get("name")
                            : "locked";
                    return List.of(ResourceContents.text(request.uri(), "text/plain", text));
                });
    }

    private static ResourceDefinition userFilesTemplate() {
        return ResourceDefinition.template("test://users/{user}/files/{file}", "user-file")
                .handler((request, ctx) -> List.of(ResourceContents.text(
                        request.uri(),
                        "text/plain",
                        "file " + request.variables().get("file") + " of "
                                + request.variables().get("user"))));
    }
}
