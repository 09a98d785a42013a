package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.PrincipalCapsEntity;
import dev.parley.actors.internal.TaskEntity;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.actors.internal.journal.NewEntityIds;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.wire.Errors;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.McpNames.Meta;
import dev.parley.runtime.internal.wire.Tasks.CreateTaskResult;
import io.opentelemetry.context.Context;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The one place where a call becomes a task. A call continues as a task in three ways, and each
 * ends in {@link #create}: the task's creation (with the call's history: its answers and
 * journaled steps) is journaled in a {@link TaskEntity}, then the client gets the
 * {@code CreateTaskResult}, and the entity re-runs the handler in the background.
 *
 * <ol>
 *   <li>The first round reached {@code ctx.becomeTask()} ({@link #fromFirstRound}).</li>
 *   <li>The first round of a tool with a time budget did not finish within it: that run is
 *       cancelled and, once it has stopped, the task starts over the steps it journaled
 *       ({@link #firstRoundWithinBudget}).</li>
 *   <li>A later round, in its {@link ToolCallEntity}, reached {@code ctx.becomeTask()}: the entity
 *       recorded the hand-over (so a repeated retry hands over to the same task id) and replied
 *       {@link ToolCallEntity.HandedOver} ({@link #fromRetry}).</li>
 * </ol>
 *
 * Creation is idempotent per task id, so a retried hand-over never starts a second task.
 */
final class TaskHandOver {
    private final ReplayEngine engine;
    private final TaskRequests tasks;
    private final CallCaps caps;
    private final NewEntityIds newEntityIds;

    TaskHandOver(ReplayEngine engine, TaskRequests tasks, CallCaps caps, NewEntityIds newEntityIds) {
        this.newEntityIds = newEntityIds;
        this.engine = engine;
        this.tasks = tasks;
        this.caps = caps;
    }

    CompletionStage<McpReply.Final> fromFirstRound(
            McpRequest request, String name, ObjectNode arguments, RunOutcome.BecameTask becameTask) {
        return create(request, newTaskId(), name, arguments, Map.of(), becameTask.newSteps());
    }

    /**
     * Runs a first round with a time budget synchronously; {@code ended} answers it when it ends in
     * time. Otherwise the run is cancelled and the call becomes a task over the steps it journaled.
     */
    CompletionStage<McpReply.Final> firstRoundWithinBudget(
            McpRequest request,
            CallTarget target,
            String name,
            ObjectNode arguments,
            RunEnvironment asTask,
            java.util.function.Function<RunOutcome, CompletionStage<McpReply.Final>> ended) {
        RunEnvironment synchronous = new RunEnvironment(
                asTask.principal(),
                asTask.capabilities(),
                asTask.sink(),
                asTask.cancellation(),
                RunEnvironment.TaskMode.SYNCHRONOUS);
        Map<String, JsonNode> journaled = Collections.synchronizedMap(new LinkedHashMap<>());
        CompletableFuture<RunOutcome> run = engine.run(
                        target, arguments, synchronous, CallHistory.EMPTY, journaled::put)
                .toCompletableFuture();
        CompletableFuture<Boolean> inTime = run.thenApply(outcome -> true)
                .completeOnTimeout(false, target.taskBudget().toMillis(), TimeUnit.MILLISECONDS);
        return inTime.thenCompose(finished -> {
            if (finished) {
                return run.thenCompose(ended);
            }
            asTask.cancellation().cancel();
            return run.thenCompose(stopped -> {
                Map<String, JsonNode> steps;
                synchronized (journaled) {
                    steps = new LinkedHashMap<>(journaled);
                }
                return create(request, newTaskId(), name, arguments, Map.of(), steps);
            });
        });
    }

    private String newTaskId() {
        return newEntityIds.mint(TaskEntity.ENTITY_TYPE_KEY);
    }

    CompletionStage<McpReply.Final> fromRetry(
            McpRequest request, String name, ObjectNode arguments, ToolCallEntity.HandedOver handedOver) {
        if (!request.capabilities().extension(Meta.TASKS_EXTENSION)) {
            // A repeated retry of a round that became a task, from a request that did not declare the
            // extension: never a CreateTaskResult to it (spec §3.1); the call can only be followed as a task.
            return CompletableFuture.completedFuture(
                    McpReply.Error.inBand(request.id(), JsonRpc.ErrorObject.of(Errors.tasksExtensionRequired())));
        }
        return create(request, handedOver.taskId(), name, arguments, handedOver.answers(), handedOver.steps());
    }

    /** Journals the task's creation (idempotently for {@code taskId}), then answers its handle. */
    private CompletionStage<McpReply.Final> create(
            McpRequest request,
            String taskId,
            String name,
            ObjectNode arguments,
            Map<String, RecordedAnswer> answers,
            Map<String, JsonNode> steps) {
        // Quotas: an oversized task, or one over a cap or ceiling, is refused before it is journaled.
        java.util.Optional<ErrorObject> oversized = caps.oversizedCall(arguments, answers);
        if (oversized.isPresent()) {
            return CompletableFuture.completedFuture(McpReply.Error.inBand(request.id(), oversized.get()));
        }
        // The lease may be granted on another thread: the task is created in the request's trace context.
        Context trace = Context.current();
        return caps.take(request.quotaPrincipal(), PrincipalCapsEntity.Kind.OPEN_TASK, taskId)
                .thenCompose(trace.wrapFunction((java.util.Optional<ErrorObject> overCap) -> overCap.isPresent()
                        ? CompletableFuture.<McpReply.Final>completedFuture(
                                McpReply.Error.inBand(request.id(), overCap.get()))
                        : tasks.ask(
                                        tasks.task(taskId),
                                        replyTo -> new TaskEntity.Create(
                                                request.method(),
                                                name,
                                                arguments,
                                                request.principal(),
                                                request.capabilities().declared(),
                                                answers,
                                                steps,
                                                replyTo))
                                .whenComplete(
                                        (reply, failure) -> newEntityIds.forget(TaskEntity.ENTITY_TYPE_KEY, taskId))
                                .<McpReply.Final>thenApply(reply -> reply instanceof TaskEntity.TaskView view
                                        ? new McpReply.TaskCreated(
                                                request.id(), CreateTaskResult.of(tasks.detailed(view)))
                                        : McpReply.Error.inBand(request.id(), TaskRequests.UNKNOWN_TASK))
                                .whenComplete((reply, failure) -> {
                                    if (!(reply instanceof McpReply.TaskCreated)) {
                                        caps.release(
                                                request.quotaPrincipal(), PrincipalCapsEntity.Kind.OPEN_TASK, taskId);
                                    }
                                })));
    }
}
