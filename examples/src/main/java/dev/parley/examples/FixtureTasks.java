package dev.parley.examples;

import static dev.parley.examples.FixtureServer.noArgumentsSchema;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.McpException;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tasks-extension fixtures of the conformance suite ({@code io.modelcontextprotocol/tasks},
 * CONFORMANCE.md §6.6). The server decides what becomes a task: each task-capable handler calls
 * {@code ctx.becomeTask()} where its long part begins; a request that declared the extension
 * gets a task handle there, any other request runs on synchronously (or, for a tool that
 * requires tasks, gets -32021 before the handler runs).
 */
final class FixtureTasks {
    /** How often a long run looks at {@code ctx.isCancelled()}. */
    private static final Duration SLICE = Duration.ofMillis(50);

    private FixtureTasks() {}

    record GreetArgs(@Description("Who to greet") String name) {}

    record ComputeArgs(
            @Description("How long the computation takes, in seconds")
            int seconds,

            @Description("A label echoed in the result") String label) {}

    record DeleteArgs(@Description("The file to delete") String filename) {}

    static List<ToolDefinition<?>> tools() {
        return List.of(
                ToolDefinition.tool("greet", GreetArgs.class)
                        .description("Greets by name; never a task")
                        .handler((args, ctx) -> ToolResult.text("Hello, " + args.name() + "!")),
                ToolDefinition.tool("slow_compute", ComputeArgs.class)
                        .description("Computes for the given number of seconds; a task when the client supports tasks")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler(FixtureTasks::slowCompute),
                ToolDefinition.tool("failing_job", noArgumentsSchema())
                        .description("A task that fails as a tool (isError result) after about a second; needs tasks")
                        .taskSupport(TaskSupport.REQUIRED)
                        .handler((args, ctx) -> {
                            ctx.becomeTask();
                            if (!work(ctx, Duration.ofSeconds(1))) {
                                return ToolResult.text("Cancelled");
                            }
                            return ToolResult.error("The job failed: nothing to process");
                        }),
                ToolDefinition.tool("protocol_error_job", noArgumentsSchema())
                        .description("A task that ends failed with a JSON-RPC error")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((args, ctx) -> {
                            ctx.becomeTask();
                            throw new McpException(
                                    ErrorCodes.INTERNAL_ERROR, "protocol_error_job failed: the job crashed");
                        }),
                ToolDefinition.tool("confirm_delete", DeleteArgs.class)
                        .description("Asks to confirm, then deletes the file (nothing is really deleted)")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler(FixtureTasks::confirmDelete),
                ToolDefinition.tool("multi_input", noArgumentsSchema())
                        .description("Asks two questions at once, then reports both answers")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler(FixtureTasks::multiInput),
                ToolDefinition.tool("test_tool_with_task", noArgumentsSchema())
                        .description("Asks for a name synchronously (MRTR), then greets as a task; needs tasks")
                        .taskSupport(TaskSupport.REQUIRED)
                        .handler(FixtureTasks::nameThenTask));
    }

    /** Becomes a task at once; a cancelled run stops within one slice. */
    private static ToolResult slowCompute(ComputeArgs args, CallContext ctx) {
        ctx.becomeTask();
        if (!work(ctx, Duration.ofSeconds(Math.max(0, args.seconds())))) {
            return ToolResult.text(args.label() + ": cancelled");
        }
        return ToolResult.text(args.label() + ": computed in " + args.seconds() + " s");
    }

    private static ToolResult confirmDelete(DeleteArgs args, CallContext ctx) {
        ctx.becomeTask();
        ElicitAnswer answer = ctx.elicit(
                "confirm",
                Elicitation.form("Delete " + args.filename() + "?")
                        .field("confirm", FormField.bool("Delete it"))
                        .build());
        boolean confirmed = answer instanceof ElicitAnswer.Accepted accepted && accepted.bool("confirm");
        return ToolResult.text(confirmed ? "Deleted " + args.filename() : "Kept " + args.filename());
    }

    /** Both questions in one round, so both are outstanding together and may be answered apart. */
    private static ToolResult multiInput(ObjectNode args, CallContext ctx) {
        ctx.becomeTask();
        Map<String, Elicitation> questions = new LinkedHashMap<>();
        questions.put(
                "name",
                Elicitation.form("What is your name?")
                        .field("name", FormField.string("Name"))
                        .build());
        questions.put(
                "confirm",
                Elicitation.form("Proceed?")
                        .field("confirm", FormField.bool("Proceed"))
                        .build());
        Map<String, ElicitAnswer> answers = ctx.elicitAll(questions);
        String name = answers.get("name") instanceof ElicitAnswer.Accepted accepted ? accepted.string("name") : "?";
        boolean proceed = answers.get("confirm") instanceof ElicitAnswer.Accepted accepted && accepted.bool("confirm");
        return ToolResult.text("Name: " + name + "; proceed: " + proceed);
    }

    /** The question is asked before the task begins: it is a synchronous MRTR round. */
    private static ToolResult nameThenTask(ObjectNode args, CallContext ctx) {
        ElicitAnswer answer = ctx.elicit(
                "user_name",
                Elicitation.form("What is your name?")
                        .field("name", FormField.string("Name"))
                        .build());
        String name = answer instanceof ElicitAnswer.Accepted accepted ? accepted.string("name") : "stranger";
        ctx.becomeTask();
        return ToolResult.text("Hello, " + name + "!");
    }

    /** Works for {@code length} in slices; false when the call was cancelled first. */
    private static boolean work(CallContext ctx, Duration length) {
        long deadline = System.nanoTime() + length.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (ctx.isCancelled()) {
                    return false;
                }
                Thread.sleep(Math.min(SLICE.toMillis(), Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return !ctx.isCancelled();
    }
}
