package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.EntityAsks;
import dev.parley.actors.internal.TaskEntity;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.Errors;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.McpNames.Meta;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import dev.parley.runtime.internal.wire.Results.EmptyResult;
import dev.parley.runtime.internal.wire.Tasks.DetailedTask;
import dev.parley.runtime.internal.wire.Tasks.GetTaskResult;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.japi.function.Function;

/**
 * {@code tasks/get}, {@code tasks/update} and {@code tasks/cancel} of the tasks extension, and the
 * {@code DetailedTask} shape of a task. (How a call becomes a task: {@link TaskHandOver}.)
 */
public final class TaskRequests {
    static final ErrorObject UNKNOWN_TASK = new ErrorObject(ErrorCodes.INVALID_PARAMS, "Unknown task", null);

    private final JournalAvailability journal;
    private final ClusterSharding sharding;
    private final Duration askTimeout;
    private final Duration askAttemptTimeout;
    private final long pollIntervalMs;

    public TaskRequests(
            JournalAvailability journal,
            ClusterSharding sharding,
            Duration askTimeout,
            Duration askAttemptTimeout,
            Duration pollInterval) {
        this.journal = journal;
        this.sharding = sharding;
        this.askTimeout = askTimeout;
        this.askAttemptTimeout = askAttemptTimeout;
        this.pollIntervalMs = pollInterval.toMillis();
    }

    CompletionStage<McpReply.Final> handle(McpRequest request) {
        if (!request.capabilities().extension(Meta.TASKS_EXTENSION)) {
            throw Errors.tasksExtensionRequired();
        }
        String taskId = request.target();
        EntityRef<TaskEntity.Command> task = task(taskId);
        CompletionStage<TaskEntity.Reply> reply = switch (request.method()) {
            case Methods.TASKS_GET -> ask(task, replyTo -> new TaskEntity.Get(request.principal(), replyTo));
            case Methods.TASKS_UPDATE -> {
                ObjectNode inputResponses = request.objectParam("inputResponses");
                ObjectNode answers = inputResponses == null ? Json.object() : inputResponses;
                yield ask(task, replyTo -> new TaskEntity.Update(request.principal(), answers, replyTo));
            }
            default -> ask(task, replyTo -> new TaskEntity.Cancel(request.principal(), replyTo));
        };
        return reply.thenApply(answer -> {
            if (answer instanceof TaskEntity.TaskView view) {
                return new McpReply.Complete(request.id(), new GetTaskResult(detailed(view)));
            }
            if (answer instanceof TaskEntity.Acknowledged) {
                return new McpReply.Complete(request.id(), EmptyResult.ACK);
            }
            if (answer instanceof TaskEntity.Rejected rejected) {
                return McpReply.Error.inBand(request.id(), rejected.error());
            }
            return McpReply.Error.inBand(request.id(), UNKNOWN_TASK);
        });
    }

    /** The {@code DetailedTask}: the result inlined when completed, the error when failed, open questions. */
    public DetailedTask detailed(TaskEntity.TaskView view) {
        Map<String, InputRequest> open = null;
        if (view.status() == TaskEntity.Status.INPUT_REQUIRED) {
            open = new LinkedHashMap<>();
            for (var question : view.inputRequests()) {
                open.put(question.key(), question.request());
            }
        }
        return new DetailedTask(
                view.taskId(),
                view.status().wireName,
                view.createdAt().toString(),
                view.lastUpdatedAt().toString(),
                view.ttlMs(),
                pollIntervalMs,
                view.statusMessage(),
                view.status() == TaskEntity.Status.COMPLETED ? view.result() : null,
                view.status() == TaskEntity.Status.FAILED ? view.error() : null,
                open);
    }

    CompletionStage<TaskEntity.Reply> ask(
            EntityRef<TaskEntity.Command> task, Function<ActorRef<TaskEntity.Reply>, TaskEntity.Command> message) {
        return EntityAsks.ask(journal, task, message, askAttemptTimeout, askTimeout);
    }

    EntityRef<TaskEntity.Command> task(String taskId) {
        return sharding.entityRefFor(TaskEntity.ENTITY_TYPE_KEY, taskId);
    }
}
