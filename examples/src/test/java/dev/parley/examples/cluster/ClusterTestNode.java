package dev.parley.examples.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * One node of the multi-JVM cluster tests, started by {@link ClusterIT} in its own JVM with the
 * test classpath: {@code ClusterTestNode NAME HTTP_PORT ARTERY_PORT SEED_PORT,SEED_PORT EFFECTS DATA}.
 * It loads the real {@code cluster.conf} (PostgreSQL from PG_*, the shared key from
 * PARLEY_STATE_KEY*, split-brain resolver) with this node's ports on top, and serves a test-only
 * server whose tools append every side effect to one file shared by all nodes, as
 * {@code <epoch ms> <node> <kind> <id> [detail]}:
 * <ul>
 *   <li>{@code two_step} asks two questions (two durable rounds); the step between them records
 *       the node that ran round 2 ({@code call-where}), the last step the answers ({@code call-effect});</li>
 *   <li>{@code work} becomes a task and works {@code steps} journaled steps of {@code stepMillis}
 *       each ({@code task-step}); every run of it, first or resumed, logs {@code task-run} (not a step);</li>
 *   <li>{@code ask_task} becomes a task, runs a step, asks a question (the task's input round), then
 *       runs another step;</li>
 *   <li>{@code add_tool} adds a tool on this node at runtime (tools list changed);</li>
 *   <li>{@code cluster_status} reports this node's name and how many members are Up.</li>
 * </ul>
 * The node halts when its standard input closes, so it never outlives the test JVM.
 */
public final class ClusterTestNode {
    private ClusterTestNode() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: ClusterTestNode NAME HTTP_PORT ARTERY_PORT SEED_PORTS EFFECTS_FILE DATA_DIR");
            System.exit(2);
        }
        String name = args[0];
        int httpPort = Integer.parseInt(args[1]);
        int arteryPort = Integer.parseInt(args[2]);
        String[] seeds = args[3].split(",");
        Path effects = Path.of(args[4]);
        Path data = Path.of(args[5]);
        watchParent();

        Map<String, Object> node = new HashMap<>();
        node.put("pekko.remote.artery.canonical.hostname", "127.0.0.1");
        node.put("pekko.remote.artery.canonical.port", arteryPort);
        java.util.List<String> seedNodes = new java.util.ArrayList<>();
        for (String seed : seeds) {
            seedNodes.add("pekko://parley@127.0.0.1:" + seed.trim());
        }
        node.put("pekko.cluster.seed-nodes", seedNodes);
        // The real cluster profile underneath: journal, shared key, split-brain resolver.
        Config config = ConfigFactory.parseMap(node).withFallback(ConfigFactory.parseResourcesAnySyntax("cluster"));
        // ClusterAuthIT: a parley.auth block (HOCON) on top, so every node is an OAuth resource server.
        String auth = System.getenv("PARLEY_AUTH_CONFIG");
        if (auth != null && !auth.isBlank()) {
            config = ConfigFactory.parseString(auth).withFallback(config);
        }

        AtomicReference<ActorSystem<?>> system = new AtomicReference<>();
        Tools tools = new Tools(name, effects, system);
        long started = System.nanoTime();
        McpHttpServer server;
        try {
            server = McpHttpServer.builder(tools.definition())
                    .config(config)
                    .dataDirectory(data)
                    .port(httpPort)
                    .start();
        } catch (RuntimeException | Error e) {
            e.printStackTrace();
            System.out.println("NODE " + name + " FAILED: " + e);
            System.out.flush();
            Runtime.getRuntime().halt(1); // the actor system's threads would keep a failed node alive
            return;
        }
        system.set(server.node().system());
        System.out.printf(
                "NODE %s READY http=%d artery=%d in %d ms%n",
                name, server.port(), arteryPort, (System.nanoTime() - started) / 1_000_000);
        System.out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.close();
                            stopped.countDown();
                        },
                        "node-shutdown"));
        stopped.await();
    }

    /** Standard input is a pipe from the test JVM: end of input means it is gone. */
    private static void watchParent() {
        Thread watcher = new Thread(
                () -> {
                    try {
                        while (System.in.read() >= 0) {
                            // nothing is ever sent
                        }
                    } catch (IOException ignored) {
                        // the pipe broke: same as end of input
                    }
                    Runtime.getRuntime().halt(3);
                },
                "parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    public record TwoStep(@Description("Call id") String id) {}

    public record Work(
            @Description("Task id for the effects file") String id,
            @Description("Number of journaled steps") int steps,
            @Description("Milliseconds each step works") int stepMillis) {}

    public record AskTask(
            @Description("Task id for the effects file") String id) {}

    public record AddTool(
            @Description("Name of the tool to add") String name) {}

    public record NoArguments() {}

    static final class Tools {
        private final String node;
        private final Path effects;
        private final AtomicReference<ActorSystem<?>> system;
        private final AtomicReference<McpServerDefinition> definition = new AtomicReference<>();

        Tools(String node, Path effects, AtomicReference<ActorSystem<?>> system) {
            this.node = node;
            this.effects = effects;
            this.system = system;
        }

        McpServerDefinition definition() {
            McpServerDefinition built = McpServerDefinition.builder("parley-cluster-test", "0.1.0")
                    .tool(ToolDefinition.tool("two_step", TwoStep.class)
                            .description("Asks two questions; records where round 2 ran, then the answers")
                            .handler(this::twoStep))
                    .tool(ToolDefinition.tool("work", Work.class)
                            .description("A task of journaled steps")
                            .taskSupport(TaskSupport.OPTIONAL)
                            .handler(this::work))
                    .tool(ToolDefinition.tool("ask_task", AskTask.class)
                            .description("A task with an input round")
                            .taskSupport(TaskSupport.OPTIONAL)
                            .handler(this::askTask))
                    .tool(ToolDefinition.tool("add_tool", AddTool.class)
                            .description("Adds a tool on this node")
                            .handler((args, ctx) -> {
                                definition
                                        .get()
                                        .addTool(ToolDefinition.tool(args.name(), AddTool.class)
                                                .description("Added at runtime on " + node)
                                                .handler((ignored, c) -> ToolResult.text("hello from " + node)));
                                return ToolResult.text("added " + args.name() + " on " + node);
                            }))
                    .tool(ToolDefinition.tool("cluster_status", NoArguments.class)
                            .description("This node's name and the number of Up members")
                            .handler((args, ctx) -> ToolResult.text(node + " up=" + upMembers())))
                    .build();
            definition.set(built);
            return built;
        }

        private int upMembers() {
            ActorSystem<?> actorSystem = system.get();
            if (actorSystem == null) {
                return 0;
            }
            int up = 0;
            for (Member member : Cluster.get(actorSystem).state().getMembers()) {
                if (member.status().equals(MemberStatus.up())) {
                    up++;
                }
            }
            return up;
        }

        private ToolResult twoStep(TwoStep args, CallContext ctx) {
            String first = answer(ctx.elicit(
                    "first",
                    Elicitation.form("First value for " + args.id() + "?")
                            .field("value", FormField.string("Value"))
                            .build()));
            String where = ctx.step("where", String.class, () -> {
                append("call-where", args.id(), "");
                return node;
            });
            String second = answer(ctx.elicit(
                    "second",
                    Elicitation.form("Second value for " + args.id() + "?")
                            .field("value", FormField.string("Value"))
                            .build()));
            String done = ctx.step("effect", String.class, () -> {
                append("call-effect", args.id(), first + " " + second);
                return node;
            });
            return ToolResult.text("call " + args.id() + ": " + first + "+" + second + " (round 2 on " + where
                    + ", effect on " + done + ")");
        }

        private ToolResult work(Work args, CallContext ctx) {
            ctx.becomeTask();
            if (ctx.isTask()) {
                append("task-run", args.id(), ""); // every run, first or resumed: not a step
            }
            int total = 0;
            for (int i = 1; i <= args.steps(); i++) {
                int step = i;
                total += ctx.step("s" + step, Integer.class, () -> {
                    pause(ctx, args.stepMillis());
                    append("task-step", args.id(), String.valueOf(step));
                    return step;
                });
            }
            return ToolResult.text("task " + args.id() + ": " + args.steps() + " steps, sum " + total);
        }

        private ToolResult askTask(AskTask args, CallContext ctx) {
            ctx.becomeTask();
            String before = ctx.step("before", String.class, () -> {
                append("ask-before", args.id(), "");
                return node;
            });
            ElicitAnswer answer = ctx.elicit(
                    "confirm",
                    Elicitation.form("Go on with " + args.id() + "?")
                            .field("go", FormField.bool("Go on"))
                            .build());
            boolean go = answer instanceof ElicitAnswer.Accepted accepted && accepted.bool("go");
            String after = ctx.step("after", String.class, () -> {
                append("ask-after", args.id(), String.valueOf(go));
                return node;
            });
            return ToolResult.text(
                    "task " + args.id() + ": go=" + go + " (before on " + before + ", after on " + after + ")");
        }

        private static String answer(ElicitAnswer answer) {
            return answer instanceof ElicitAnswer.Accepted accepted ? accepted.string("value") : "-";
        }

        /** Works {@code millis}; a cancelled task stops here without recording the step. */
        private static void pause(CallContext ctx, long millis) {
            long deadline = System.nanoTime() + millis * 1_000_000L;
            try {
                while (System.nanoTime() < deadline) {
                    if (ctx.isCancelled()) {
                        throw new CancellationException("cancelled");
                    }
                    Thread.sleep(Math.max(1, Math.min(20, (deadline - System.nanoTime()) / 1_000_000)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted");
            }
        }

        /** One line per effect, appended with one write (O_APPEND), so nodes never interleave. */
        private synchronized void append(String kind, String id, String detail) {
            String line = System.currentTimeMillis() + " " + node + " " + kind + " " + id
                    + (detail.isEmpty() ? "" : " " + detail) + "\n";
            try {
                Files.write(
                        effects,
                        line.getBytes(StandardCharsets.UTF_8),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND,
                        StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
