package dev.parley.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.json.Json;
import dev.parley.runtime.wire.ErrorCodes;
import dev.parley.runtime.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.wire.JsonRpc.Response;
import dev.parley.runtime.wire.McpException;
import dev.parley.runtime.wire.Mrtr.InputRequest;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The tasks extension on the wire ({@code io.modelcontextprotocol/tasks}): creating a task from a
 * call that reached {@code ctx.becomeTask()}, {@code tasks/get}, {@code tasks/update},
 * {@code tasks/cancel}, and the JSON shapes of a task.
 */
public final class TaskRequests {
  public static final String EXTENSION = "io.modelcontextprotocol/tasks";

  private final ClusterSharding sharding;
  private final Duration askTimeout;
  private final Duration askAttemptTimeout;
  private final long pollIntervalMs;

  public TaskRequests(ClusterSharding sharding, Duration askTimeout, Duration askAttemptTimeout, Duration pollInterval) {
    this.sharding = sharding;
    this.askTimeout = askTimeout;
    this.askAttemptTimeout = askAttemptTimeout;
    this.pollIntervalMs = pollInterval.toMillis();
  }

  /** -32021 naming the extension, for requests that did not declare it. */
  public static McpException extensionRequired() {
    ObjectNode data = Json.object();
    data.putObject("requiredCapabilities").putObject("extensions").putObject(EXTENSION);
    return new McpException(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability", data);
  }

  /** A fresh, unguessable task id (see {@link EntityIds}). */
  public static String newTaskId() {
    return EntityIds.next();
  }

  /**
   * Creates (idempotently) the task {@code taskId} and answers its handle: the creation is
   * journaled before the handle is sent.
   */
  public CompletionStage<Response> create(McpRequest request, String taskId, String name, ObjectNode arguments,
      Map<String, RecordedAnswer> answers, Map<String, JsonNode> steps) {
    return ask(task(taskId), replyTo -> new TaskEntity.Create(request.method(), name, arguments, request.principal(),
            request.capabilities().declared(), answers, steps, replyTo))
        .thenApply(reply -> reply instanceof TaskEntity.TaskView view
            ? Response.result(request.id(), createTaskResult(view))
            : Response.error(request.id(), unknownTask()));
  }

  /** {@code tasks/get}, {@code tasks/update} or {@code tasks/cancel}. */
  public CompletionStage<Response> handle(McpRequest request) {
    if (!request.capabilities().extension(EXTENSION)) {
      throw extensionRequired();
    }
    String taskId = request.stringParam("taskId");
    if (taskId == null || taskId.isEmpty()) {
      throw McpException.invalidParams("params.taskId is required");
    }
    EntityRef<TaskEntity.Command> task = task(taskId);
    CompletionStage<TaskEntity.Reply> reply = switch (request.method()) {
      case "tasks/get" -> ask(task, replyTo -> new TaskEntity.Get(request.principal(), replyTo));
      case "tasks/update" -> {
        ObjectNode inputResponses = request.objectParam("inputResponses");
        ObjectNode answers = inputResponses == null ? Json.object() : inputResponses;
        yield ask(task, replyTo -> new TaskEntity.Update(request.principal(), answers, replyTo));
      }
      default -> ask(task, replyTo -> new TaskEntity.Cancel(request.principal(), replyTo));
    };
    return reply.thenApply(answer -> {
      if (answer instanceof TaskEntity.TaskView view) {
        return Response.result(request.id(), detailedTask(view).put("resultType", "complete"));
      }
      if (answer instanceof TaskEntity.Acknowledged) {
        return Response.result(request.id(), Json.object().put("resultType", "complete"));
      }
      if (answer instanceof TaskEntity.Rejected rejected) {
        return Response.error(request.id(), rejected.error());
      }
      return Response.error(request.id(), unknownTask());
    });
  }

  private CompletionStage<TaskEntity.Reply> ask(EntityRef<TaskEntity.Command> task,
      org.apache.pekko.japi.function.Function<org.apache.pekko.actor.typed.ActorRef<TaskEntity.Reply>, TaskEntity.Command> message) {
    return EntityAsks.ask(task, message, askAttemptTimeout, askTimeout);
  }

  private static ErrorObject unknownTask() {
    return new ErrorObject(ErrorCodes.INVALID_PARAMS, "Unknown task", null);
  }

  private EntityRef<TaskEntity.Command> task(String taskId) {
    return sharding.entityRefFor(TaskEntity.ENTITY_TYPE_KEY, taskId);
  }

  /** The flat {@code CreateTaskResult}: no result, error, input requests or requestState. */
  public ObjectNode createTaskResult(TaskEntity.TaskView view) {
    ObjectNode result = Json.object().put("resultType", "task");
    return basics(result, view);
  }

  /** The {@code DetailedTask}: the result inlined when completed, the error when failed, open questions. */
  public ObjectNode detailedTask(TaskEntity.TaskView view) {
    ObjectNode task = basics(Json.object(), view);
    if (view.statusMessage() != null) {
      task.put("statusMessage", view.statusMessage());
    }
    switch (view.status()) {
      case COMPLETED -> task.set("result", view.result());
      case FAILED -> task.set("error", Json.tree(view.error()));
      case INPUT_REQUIRED -> {
        Map<String, InputRequest> open = new LinkedHashMap<>();
        view.inputRequests().forEach(question -> open.put(question.key(), question.request()));
        task.set("inputRequests", Json.tree(open));
      }
      default -> { }
    }
    return task;
  }

  private ObjectNode basics(ObjectNode task, TaskEntity.TaskView view) {
    return task.put("taskId", view.taskId())
        .put("status", view.status().wireName)
        .put("createdAt", view.createdAt().toString())
        .put("lastUpdatedAt", view.lastUpdatedAt().toString())
        .put("ttlMs", view.ttlMs())
        .put("pollIntervalMs", pollIntervalMs);
  }
}
