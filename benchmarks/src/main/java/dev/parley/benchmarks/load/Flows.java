package dev.parley.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.benchmarks.load.McpSession.Failure;
import dev.parley.runtime.Json;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The three flows. Request kinds, as reported: {@code call} (a tools/call without
 * {@code requestState}), {@code retry} (a tools/call with {@code requestState} and
 * {@code inputResponses}), {@code create} (the tools/call of a task flow), {@code tasks/get},
 * {@code tasks/update}. Every loop is bounded by a round count and by the flow's deadline.
 */
public final class Flows {
    private static final int MAX_POLLS = 100_000;

    private final LoadOptions options;
    private final Answers answers;
    private final Map<String, String> paramHeaders;

    public Flows(LoadOptions options, Map<String, String> paramHeaders) {
        this.options = options;
        this.answers = new Answers(options.answers(), options.action());
        this.paramHeaders = paramHeaders;
    }

    /** How a flow ended when it did not fail: the result of the call. */
    public record Outcome(ObjectNode result, int rounds) {}

    /**
     * Runs one flow; {@code stop} tells a polling task flow that the run is over. Throws the first
     * failure (which ends the flow).
     */
    public Outcome run(McpSession session, long deadlineNanos, BooleanSupplier stop)
            throws Failure, InterruptedException {
        return switch (options.flow()) {
            case CALL -> call(session);
            case MRTR ->
                options.protocol() == LoadOptions.Protocol.V2025_11_25
                        ? streamed(session, deadlineNanos)
                        : mrtr(session, "call", deadlineNanos);
            case TASK -> task(session, deadlineNanos, stop);
        };
    }

    private ObjectNode callParams() {
        ObjectNode params = Json.object().put("name", options.tool());
        params.set("arguments", options.arguments());
        return params;
    }

    private Outcome call(McpSession session) throws Failure, InterruptedException {
        ObjectNode result = session.call("call", "tools/call", callParams(), options.tool(), paramHeaders);
        String type = result.path("resultType").asText("complete");
        if (!type.equals("complete")) {
            throw new Failure(
                    "call",
                    "unexpected resultType " + type + (type.equals("input_required") ? " (use --flow mrtr)" : ""),
                    false);
        }
        checkToolResult("call", result);
        return new Outcome(result, 1);
    }

    /**
     * The same flow as a 2025-11-25 client: the call's SSE stream carries each question as an
     * {@code elicitation/create} request, answered by a POST, and then the result.
     */
    private Outcome streamed(McpSession session, long deadlineNanos) throws Failure, InterruptedException {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        ObjectNode result = session.streamedCall(
                "call",
                options.url(),
                callParams(),
                request -> answers.respondTo(request),
                asked,
                java.time.Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())));
        checkToolResult("call", result);
        return new Outcome(result, asked.get() + 1);
    }

    /** tools/call, then one retry per input_required, until complete (or a task, in a task flow). */
    private Outcome mrtr(McpSession session, String firstKind, long deadlineNanos)
            throws Failure, InterruptedException {
        ObjectNode result = session.call(firstKind, "tools/call", callParams(), options.tool(), paramHeaders);
        int rounds = 1;
        while ("input_required".equals(result.path("resultType").asText())) {
            if (rounds >= options.maxRounds()) {
                throw new Failure("retry", "more than " + options.maxRounds() + " rounds", false);
            }
            if (System.nanoTime() > deadlineNanos) {
                throw new Failure("retry", "flow timeout", false);
            }
            ObjectNode params = callParams();
            JsonNode inputRequests = result.path("inputRequests");
            params.set("inputResponses", inputRequests.isObject() ? answers.respond(inputRequests) : Json.object());
            if (result.hasNonNull("requestState")) {
                params.set("requestState", result.get("requestState"));
            }
            result = session.call("retry", "tools/call", params, options.tool(), paramHeaders);
            rounds++;
        }
        String type = result.path("resultType").asText("complete");
        if (type.equals("task") && options.flow() == LoadOptions.FlowKind.TASK) {
            return new Outcome(result, rounds);
        }
        if (!type.equals("complete")) {
            throw new Failure(rounds == 1 ? firstKind : "retry", "unexpected resultType " + type, false);
        }
        checkToolResult(rounds == 1 ? firstKind : "retry", result);
        return new Outcome(result, rounds);
    }

    private Outcome task(McpSession session, long deadlineNanos, BooleanSupplier stop)
            throws Failure, InterruptedException {
        Outcome created = mrtr(session, "create", deadlineNanos);
        ObjectNode task = created.result();
        if (!"task".equals(task.path("resultType").asText())) {
            return created; // the server answered synchronously (allowed for a fast task-capable tool)
        }
        String taskId = task.path("taskId").asText(null);
        if (taskId == null) {
            throw new Failure("create", "task without taskId", false);
        }
        String status = task.path("status").asText("working");
        long pollMillis = pollInterval(task, options.defaultPollInterval().toMillis());
        Set<String> answered = new HashSet<>();
        JsonNode detailed = task;
        for (int polls = 0; !terminal(status); polls++) {
            if (polls >= MAX_POLLS) {
                throw new Failure("tasks/get", "more than " + MAX_POLLS + " polls", false);
            }
            if ("input_required".equals(status)
                    && detailed.path("inputRequests").isObject()) {
                ObjectNode open = Json.object();
                detailed.path("inputRequests").properties().forEach(entry -> {
                    if (!answered.contains(entry.getKey())) {
                        open.set(entry.getKey(), entry.getValue());
                    }
                });
                if (!open.isEmpty()) {
                    ObjectNode update = Json.object().put("taskId", taskId);
                    update.set("inputResponses", answers.respond(open));
                    ObjectNode ack = session.call("tasks/update", "tasks/update", update, taskId, Map.of());
                    String ackType = ack.path("resultType").asText("complete");
                    if (!ackType.equals("complete")) {
                        throw new Failure("tasks/update", "unexpected resultType " + ackType, false);
                    }
                    open.fieldNames().forEachRemaining(answered::add);
                }
            }
            long remaining = (deadlineNanos - System.nanoTime()) / 1_000_000;
            if (remaining <= 0) {
                throw new Failure("tasks/get", "flow timeout (task still " + status + ")", false);
            }
            if (stop.getAsBoolean()) {
                throw new Failure("tasks/get", "run ended (task still " + status + ")", false);
            }
            // --poll-now: the first tasks/get follows the create at once (a task that completes at once is seen at
            // once)
            if (!(options.pollNow() && polls == 0)) {
                Thread.sleep(Math.max(0, Math.min(pollMillis, remaining)));
            }
            ObjectNode get = Json.object().put("taskId", taskId);
            detailed = session.call("tasks/get", "tasks/get", get, taskId, Map.of());
            status = detailed.path("status").asText("?");
            pollMillis = pollInterval(detailed, pollMillis);
        }
        switch (status) {
            case "completed" -> {
                checkToolResult("tasks/get", detailed.path("result"));
                return new Outcome((ObjectNode) detailed, created.rounds());
            }
            case "failed" ->
                throw new Failure(
                        "tasks/get",
                        "task failed (" + detailed.path("error").path("code").asText("?") + ")",
                        false);
            default -> throw new Failure("tasks/get", "task " + status, false);
        }
    }

    private static boolean terminal(String status) {
        return status.equals("completed") || status.equals("failed") || status.equals("cancelled");
    }

    private static long pollInterval(JsonNode task, long fallback) {
        JsonNode interval = task.get("pollIntervalMs");
        return interval != null && interval.canConvertToLong() && interval.asLong() > 0
                ? Math.min(interval.asLong(), Duration.ofMinutes(5).toMillis())
                : fallback;
    }

    /** A tool result with {@code isError: true} is a valid response but not a success. */
    private static void checkToolResult(String kind, JsonNode result) throws Failure {
        if (result.path("isError").asBoolean(false)) {
            throw new Failure(kind, "tool isError", false);
        }
    }
}
