package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Blocking tools for {@link TaskEntityTest}, one per way a task's background run can go. The
 * counters count handler runs and the real runs of journaled steps; the latches let a test hold
 * a run at a known point (every wait is bounded, so a forgotten latch never hangs the build).
 */
final class TaskTestTools {
    /** How often the {@code prepare} step's action really ran (must be once per task). */
    static final AtomicInteger PREPARATIONS = new AtomicInteger();

    static final AtomicInteger REPORT_RUNS = new AtomicInteger();
    static final AtomicInteger APPROVAL_RUNS = new AtomicInteger();
    static final AtomicInteger MEETING_RUNS = new AtomicInteger();
    static final AtomicInteger WATCH_RUNS = new AtomicInteger();
    static final AtomicInteger RECONSIDER_RUNS = new AtomicInteger();
    static final AtomicInteger PUBLISH_RUNS = new AtomicInteger();
    /** How often the {@code publish} step's action really ran (must be once per task). */
    static final AtomicInteger PUBLICATIONS = new AtomicInteger();

    /** prepare_report waits here after its step; open unless a test closes it. */
    private static volatile CountDownLatch gate = new CountDownLatch(0);
    /** watch_queue counts these down when it starts, and when it saw its cancellation. */
    static volatile CountDownLatch watchStarted = new CountDownLatch(1);

    static volatile CountDownLatch watchSawCancellation = new CountDownLatch(1);

    /** An application error code (JSON-RPC's server-defined range). */
    static final int NOT_ALLOWED = -32001;

    record Report(String topic) {}

    record Expense(String item) {}

    record Meeting(String subject) {}

    record Account(String id) {}

    record Lookup(String id) {}

    record Queue(String name) {}

    record Rename(String file) {}

    static final String REPORT_ARGS = "{\"topic\":\"sales\"}";
    static final String EXPENSE_ARGS = "{\"item\":\"train ticket\"}";
    static final String MEETING_ARGS = "{\"subject\":\"planning\"}";
    static final String ACCOUNT_ARGS = "{\"id\":\"acct-1\"}";
    static final String LOOKUP_ARGS = "{\"id\":\"rec-404\"}";
    static final String QUEUE_ARGS = "{\"name\":\"inbox\"}";
    static final String RENAME_ARGS = "{\"file\":\"report.txt\"}";

    /**
     * Reports progress, runs one journaled step, waits at the gate, then completes. It also marks
     * where a task would begin ({@code becomeTask()}, a no-op in a task's own run) and says in its
     * result whether it ran as a task.
     */
    static final ToolDefinition<Report> PREPARE_REPORT = ToolDefinition.tool("prepare_report", Report.class)
            .taskSupport(TaskSupport.OPTIONAL)
            .handler((args, ctx) -> {
                REPORT_RUNS.incrementAndGet();
                ctx.becomeTask();
                ctx.progress(0, 1.0, "Drafting the " + args.topic() + " report");
                String draft = ctx.step("prepare", String.class, () -> "draft-" + PREPARATIONS.incrementAndGet());
                if (!gate.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
                return ToolResult.text(
                        "Report on " + args.topic() + " from " + draft + (ctx.isTask() ? " (task)" : ""));
            });

    /** Waits at the gate first, then runs one journaled step and completes. */
    static final ToolDefinition<Report> PUBLISH_REPORT = ToolDefinition.tool("publish_report", Report.class)
            .taskSupport(TaskSupport.OPTIONAL)
            .handler((args, ctx) -> {
                PUBLISH_RUNS.incrementAndGet();
                if (!gate.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
                String id = ctx.step("publish", String.class, () -> "publication-" + PUBLICATIONS.incrementAndGet());
                return ToolResult.text("Published " + args.topic() + " as " + id);
            });

    static final Elicitation.Form APPROVAL = Elicitation.form("Approve the expense?")
            .field("ok", FormField.bool("Approve"))
            .build();

    /** One question, then it completes. */
    static final ToolDefinition<Expense> APPROVE_EXPENSE = ToolDefinition.tool("approve_expense", Expense.class)
            .taskSupport(TaskSupport.REQUIRED)
            .handler((args, ctx) -> {
                APPROVAL_RUNS.incrementAndGet();
                ElicitAnswer answer = ctx.elicit("approval", APPROVAL);
                boolean approved = answer instanceof ElicitAnswer.Accepted accepted && accepted.bool("ok");
                return ToolResult.text((approved ? "Approved " : "Not approved: ") + args.item());
            });

    /** Two questions in one round. */
    static final ToolDefinition<Meeting> PLAN_MEETING = ToolDefinition.tool("plan_meeting", Meeting.class)
            .taskSupport(TaskSupport.OPTIONAL)
            .handler((args, ctx) -> {
                MEETING_RUNS.incrementAndGet();
                Map<String, Elicitation> questions = new LinkedHashMap<>();
                questions.put(
                        "date",
                        Elicitation.form("Which day?")
                                .field("date", FormField.string("Date", "date"))
                                .build());
                questions.put(
                        "attendees",
                        Elicitation.form("How many attend?")
                                .field("count", FormField.integer("Attendees").minimum(1))
                                .build());
                Map<String, ElicitAnswer> answers = ctx.elicitAll(questions);
                if (answers.get("date") instanceof ElicitAnswer.Accepted date
                        && answers.get("attendees") instanceof ElicitAnswer.Accepted attendees) {
                    return ToolResult.text(
                            args.subject() + " on " + date.string("date") + " for " + attendees.integer("count"));
                }
                return ToolResult.text("No " + args.subject() + " meeting");
            });

    /** Ends with a JSON-RPC error. */
    static final ToolDefinition<Account> DELETE_ACCOUNT = ToolDefinition.tool("delete_account", Account.class)
            .taskSupport(TaskSupport.OPTIONAL)
            .handler((args, ctx) -> {
                throw new McpException(NOT_ALLOWED, "Account " + args.id() + " cannot be deleted here");
            });

    /** Ends with a tool error: an {@code isError} result, which is a normal ending. */
    static final ToolDefinition<Lookup> LOOKUP_RECORD = ToolDefinition.tool("lookup_record", Lookup.class)
            .taskSupport(TaskSupport.OPTIONAL)
            .handler((args, ctx) -> ToolResult.error("No record " + args.id()));

    /** Works until it is cancelled (or interrupted); bounded, so a lost cancel cannot hang the build. */
    static final ToolDefinition<Queue> WATCH_QUEUE = ToolDefinition.tool("watch_queue", Queue.class)
            .taskSupport(TaskSupport.REQUIRED)
            .handler((args, ctx) -> {
                WATCH_RUNS.incrementAndGet();
                watchStarted.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                try {
                    while (!ctx.isCancelled() && System.nanoTime() < deadline) {
                        Thread.sleep(5);
                    }
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
                if (ctx.isCancelled()) {
                    watchSawCancellation.countDown();
                }
                return ToolResult.text("Stopped watching " + args.name());
            });

    /** Asks one key; once it is answered, asks a new key; then completes. */
    static final ToolDefinition<Rename> RENAME_FILE = ToolDefinition.tool("rename_file", Rename.class)
            .taskSupport(TaskSupport.OPTIONAL)
            .handler((args, ctx) -> {
                ElicitAnswer name = ctx.elicit(
                        "name",
                        Elicitation.form("New name for " + args.file() + "?")
                                .field("name", FormField.string("Name"))
                                .build());
                if (!(name instanceof ElicitAnswer.Accepted accepted)) {
                    return ToolResult.text("Kept " + args.file());
                }
                ElicitAnswer confirm = ctx.elicit(
                        "confirm",
                        Elicitation.form("Rename to " + accepted.string("name") + "?")
                                .field("ok", FormField.bool("Rename"))
                                .build());
                boolean ok = confirm instanceof ElicitAnswer.Accepted yes && yes.bool("ok");
                return ToolResult.text(
                        ok ? "Renamed " + args.file() + " to " + accepted.string("name") : "Kept " + args.file());
            });

    /**
     * Not deterministic on purpose: every run asks key {@code choice} with another message, so a
     * re-run after the answer asks the answered key again (with a new fingerprint).
     */
    static final ToolDefinition<ObjectNode> RECONSIDER = ToolDefinition.tool(
                    "reconsider", Json.parse("{\"type\":\"object\"}"))
            .taskSupport(TaskSupport.OPTIONAL)
            .handler((args, ctx) -> {
                ElicitAnswer choice = ctx.elicit(
                        "choice",
                        Elicitation.form("Choose (attempt " + RECONSIDER_RUNS.incrementAndGet() + ")")
                                .field("pick", FormField.string("Pick"))
                                .build());
                return ToolResult.text("Chose " + choice);
            });

    static final McpServerDefinition SERVER = McpServerDefinition.builder("parley-task-test", "0.0.1")
            .tool(PREPARE_REPORT)
            .tool(PUBLISH_REPORT)
            .tool(APPROVE_EXPENSE)
            .tool(PLAN_MEETING)
            .tool(DELETE_ACCOUNT)
            .tool(LOOKUP_RECORD)
            .tool(WATCH_QUEUE)
            .tool(RENAME_FILE)
            .tool(RECONSIDER)
            .build();

    private TaskTestTools() {}

    static void reset() {
        PREPARATIONS.set(0);
        REPORT_RUNS.set(0);
        APPROVAL_RUNS.set(0);
        MEETING_RUNS.set(0);
        WATCH_RUNS.set(0);
        RECONSIDER_RUNS.set(0);
        PUBLISH_RUNS.set(0);
        PUBLICATIONS.set(0);
        gate = new CountDownLatch(0);
        watchStarted = new CountDownLatch(1);
        watchSawCancellation = new CountDownLatch(1);
    }

    /** prepare_report runs stop after their step until {@link #openGate()}. */
    static void closeGate() {
        gate = new CountDownLatch(1);
    }

    static void openGate() {
        gate.countDown();
    }
}
