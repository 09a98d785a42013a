package dev.parley.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.Completer;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.ResourceDefinition;
import dev.parley.runtime.ServerChange;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.engine.Cancellation;
import dev.parley.runtime.engine.CallHistory;
import dev.parley.runtime.engine.ReplayEngine;
import dev.parley.runtime.engine.RunEnvironment;
import dev.parley.runtime.engine.RunOutcome;
import dev.parley.runtime.engine.StepJournal;
import dev.parley.runtime.json.Json;
import dev.parley.runtime.state.InvalidRequestStateException;
import dev.parley.runtime.state.RequestStateBinding;
import dev.parley.runtime.state.RequestStateCodec;
import dev.parley.runtime.wire.ErrorCodes;
import dev.parley.runtime.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.wire.JsonRpc.Response;
import dev.parley.runtime.wire.Lifecycle;
import dev.parley.runtime.wire.McpException;
import dev.parley.runtime.wire.Mrtr.InputRequest;
import dev.parley.runtime.wire.Mrtr.InputRequiredResult;
import dev.parley.runtime.LogLevel;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Turns a request that passed the gate into a JSON-RPC response, independent of the transport.
 * Lists, discovery and completion come from the server definition. {@code tools/call},
 * {@code prompts/get} and {@code resources/read} run once through the engine and become a
 * {@link ToolCallEntity} only when they ask for input (MRTR never appears on other methods).
 */
public final class McpDispatcher {
  private static final Logger log = LoggerFactory.getLogger(McpDispatcher.class);
  private static final String CURSOR_PREFIX = "offset:";
  private static final int MAX_COMPLETIONS = 100;

  private final McpServerDefinition server;
  private final ReplayEngine engine;
  private final RequestStateCodec stateCodec;
  private final ClusterSharding sharding;
  private final ParleySettings settings;
  private final ServerNotifications notifications;
  private final TaskRequests tasks;
  private final ActorSystem<?> system;

  public McpDispatcher(ActorSystem<?> system, McpServerDefinition server, ReplayEngine engine,
      RequestStateCodec stateCodec, ClusterSharding sharding, ParleySettings settings,
      ServerNotifications notifications, TaskRequests tasks) {
    this.system = system;
    this.server = server;
    this.engine = engine;
    this.stateCodec = stateCodec;
    this.sharding = sharding;
    this.settings = settings;
    this.notifications = notifications;
    this.tasks = tasks;
  }

  public McpServerDefinition server() {
    return server;
  }

  /** A request with no notifications to deliver and no way to be cancelled. */
  public CompletionStage<Response> dispatch(McpRequest request) {
    return dispatch(request, RunEnvironment.RequestSink.NONE, new Cancellation());
  }

  /**
   * Answers one request. Progress and log notifications of a handler go to {@code sink};
   * {@code cancellation} is how the transport cancels it. Never fails: every problem becomes a
   * JSON-RPC error response.
   */
  public CompletionStage<Response> dispatch(McpRequest request, RunEnvironment.RequestSink sink, Cancellation cancellation) {
    try {
      CompletionStage<Response> response = switch (request.method()) {
        case "server/discover" -> done(result(request, discover()));
        case "tools/list" -> done(result(request, page(request, "tools", server.tools(), ToolDefinition::infoJson)));
        case "prompts/list" -> done(result(request, page(request, "prompts", server.prompts(), PromptDefinition::info)));
        case "resources/list" ->
            done(result(request, page(request, "resources", server.resources(), ResourceDefinition::info)));
        case "resources/templates/list" ->
            done(result(request, page(request, "resourceTemplates", server.resourceTemplates(), ResourceDefinition::info)));
        case "completion/complete" -> done(result(request, complete(request)));
        case "tools/call", "prompts/get", "resources/read" -> call(request, sink, cancellation);
        case "tasks/get", "tasks/update", "tasks/cancel" -> tasks.handle(request);
        default -> done(error(request, new ErrorObject(ErrorCodes.METHOD_NOT_FOUND,
            "Method not found: " + request.method(), null)));
      };
      return response.exceptionally(failure -> internalError(request, failure));
    } catch (McpException e) {
      return done(error(request, e.toError()));
    } catch (RuntimeException e) {
      return done(internalError(request, e));
    }
  }

  // --- discovery and lists --------------------------------------------------------------

  private ObjectNode discover() {
    ObjectNode result = Json.object().put("resultType", "complete");
    result.set("supportedVersions", Json.tree(Lifecycle.SUPPORTED_VERSIONS));
    ObjectNode capabilities = result.putObject("capabilities");
    capabilities.putObject("tools").put("listChanged", true);
    capabilities.putObject("prompts").put("listChanged", true);
    capabilities.putObject("resources").put("listChanged", true).put("subscribe", true);
    capabilities.putObject("completions");
    capabilities.putObject("logging");
    capabilities.putObject("extensions").putObject(TaskRequests.EXTENSION);
    if (server.instructions() != null) {
      result.put("instructions", server.instructions());
    }
    cacheable(result);
    result.putObject("_meta").set(Lifecycle.META_SERVER_INFO, Json.tree(server.serverInfo()));
    return result;
  }

  private <T> ObjectNode page(McpRequest request, String member, java.util.Collection<T> all, Function<T, ObjectNode> info) {
    List<T> items = new ArrayList<>(all);
    int offset = decodeCursor(request.stringParam("cursor"), items.size());
    int end = Math.min(items.size(), offset + settings.listPageSize());
    ObjectNode result = Json.object().put("resultType", "complete");
    ArrayNode page = result.putArray(member);
    items.subList(offset, end).forEach(item -> page.add(info.apply(item)));
    if (end < items.size()) {
      result.put("nextCursor", encodeCursor(end));
    }
    return cacheable(result);
  }

  private ObjectNode cacheable(ObjectNode result) {
    return result.put("ttlMs", settings.listTtlMs()).put("cacheScope", settings.listCacheScope());
  }

  private static String encodeCursor(int offset) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((CURSOR_PREFIX + offset).getBytes(StandardCharsets.UTF_8));
  }

  /** The empty string and a missing cursor both mean the first page. */
  private static int decodeCursor(String cursor, int size) {
    if (cursor == null || cursor.isEmpty()) {
      return 0;
    }
    try {
      String decoded = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (decoded.startsWith(CURSOR_PREFIX)) {
        int offset = Integer.parseInt(decoded.substring(CURSOR_PREFIX.length()));
        if (offset >= 0 && offset <= size) {
          return offset;
        }
      }
    } catch (IllegalArgumentException ignored) {
      // falls through to the error below
    }
    throw McpException.invalidParams("Invalid cursor");
  }

  // --- completion -----------------------------------------------------------------------

  private ObjectNode complete(McpRequest request) {
    ObjectNode ref = request.objectParam("ref");
    ObjectNode argument = request.objectParam("argument");
    if (ref == null || argument == null || !argument.path("name").isTextual()) {
      throw McpException.invalidParams("completion/complete needs ref and argument.name");
    }
    String argumentName = argument.path("name").asText();
    Completer completer = switch (ref.path("type").asText()) {
      case "ref/prompt" -> server.prompt(ref.path("name").asText())
          .orElseThrow(() -> McpException.invalidParams("Unknown prompt: " + ref.path("name").asText()))
          .completer(argumentName).orElse(null);
      case "ref/resource" -> server.resourceTemplates().stream()
          .filter(template -> template.uri().equals(ref.path("uri").asText()))
          .findFirst()
          .orElseThrow(() -> McpException.invalidParams("Unknown resource template: " + ref.path("uri").asText()))
          .completer(argumentName).orElse(null);
      default -> throw McpException.invalidParams("ref.type must be ref/prompt or ref/resource");
    };
    Map<String, String> context = new LinkedHashMap<>();
    request.params().path("context").path("arguments").properties()
        .forEach(entry -> context.put(entry.getKey(), entry.getValue().asText()));
    List<String> values = completer == null
        ? List.of()
        : completer.complete(argument.path("value").asText(""), context);
    ObjectNode result = Json.object().put("resultType", "complete");
    ObjectNode completion = result.putObject("completion");
    completion.set("values", Json.tree(values.subList(0, Math.min(values.size(), MAX_COMPLETIONS))));
    completion.put("total", values.size()).put("hasMore", values.size() > MAX_COMPLETIONS);
    return result;
  }

  // --- subscriptions/listen -------------------------------------------------------------

  /** A listen stream: the acknowledgement, then every requested notification, tagged. */
  public record Listen(ObjectNode acknowledgement, Source<ObjectNode, NotUsed> notifications) {}

  /** Opens a {@code subscriptions/listen} stream (the transport keeps it open). */
  public Listen listen(McpRequest request) {
    ObjectNode filter = request.objectParam("notifications");
    ObjectNode honoured = Json.object();
    Set<ServerChange.ListKind> kinds = new HashSet<>();
    Set<String> resourceUris = new HashSet<>();
    Set<String> taskIds = new HashSet<>();
    if (filter != null) {
      honour(filter, honoured, kinds, "toolsListChanged", ServerChange.ListKind.TOOLS);
      honour(filter, honoured, kinds, "promptsListChanged", ServerChange.ListKind.PROMPTS);
      honour(filter, honoured, kinds, "resourcesListChanged", ServerChange.ListKind.RESOURCES);
      strings(filter, honoured, "resourceSubscriptions", resourceUris);
      if (filter.has("taskIds") && !request.capabilities().extension(TaskRequests.EXTENSION)) {
        throw TaskRequests.extensionRequired();
      }
      strings(filter, honoured, "taskIds", taskIds);
    }
    ObjectNode meta = Json.object();
    meta.set("io.modelcontextprotocol/subscriptionId", request.id());
    ObjectNode ackParams = Json.object();
    ackParams.set("notifications", honoured);
    ackParams.set("_meta", meta);
    Source<ObjectNode, NotUsed> stream = notifications.notices()
        .filter(notice -> wanted(notice, kinds, resourceUris, taskIds, request.principal()))
        .map(notice -> {
          if (notice instanceof ServerNotifications.TaskNotice task) {
            ObjectNode params = task.task().deepCopy();
            params.set("_meta", meta);
            return notification("notifications/tasks", params);
          }
          ServerChange change = ((ServerNotifications.ChangeNotice) notice).change();
          ObjectNode params = Json.object();
          if (change instanceof ServerChange.ResourceUpdated updated) {
            params.put("uri", updated.uri());
          }
          params.set("_meta", meta);
          return notification(methodOf(change), params);
        });
    return new Listen(notification("notifications/subscriptions/acknowledged", ackParams), stream);
  }

  private static boolean wanted(ServerNotifications.Notice notice, Set<ServerChange.ListKind> kinds,
      Set<String> resourceUris, Set<String> taskIds, String principal) {
    if (notice instanceof ServerNotifications.TaskNotice task) {
      return taskIds.contains(task.taskId()) && task.principal().equals(principal);
    }
    ServerChange change = ((ServerNotifications.ChangeNotice) notice).change();
    return change instanceof ServerChange.ListChanged listChanged
        ? kinds.contains(listChanged.kind())
        : resourceUris.contains(((ServerChange.ResourceUpdated) change).uri());
  }

  /** A filter member that must be an array of strings; honoured (echoed) when not empty. */
  private static void strings(ObjectNode filter, ObjectNode honoured, String member, Set<String> into) {
    JsonNode values = filter.get(member);
    if (values == null || values.isNull()) {
      return;
    }
    if (!values.isArray()) {
      throw McpException.invalidParams("notifications." + member + " must be an array of strings");
    }
    for (JsonNode value : values) {
      if (!value.isTextual()) {
        throw McpException.invalidParams("notifications." + member + " must be an array of strings");
      }
      into.add(value.asText());
    }
    if (!into.isEmpty()) {
      honoured.set(member, values);
    }
  }

  private static void honour(ObjectNode filter, ObjectNode honoured, Set<ServerChange.ListKind> kinds,
      String member, ServerChange.ListKind kind) {
    if (filter.path(member).asBoolean(false)) {
      honoured.put(member, true);
      kinds.add(kind);
    }
  }

  private static String methodOf(ServerChange change) {
    if (change instanceof ServerChange.ListChanged listChanged) {
      return switch (listChanged.kind()) {
        case TOOLS -> "notifications/tools/list_changed";
        case PROMPTS -> "notifications/prompts/list_changed";
        case RESOURCES -> "notifications/resources/list_changed";
      };
    }
    return "notifications/resources/updated";
  }

  public static ObjectNode notification(String method, ObjectNode params) {
    ObjectNode message = Json.object().put("jsonrpc", "2.0").put("method", method);
    message.set("params", params);
    return message;
  }

  // --- tools/call, prompts/get, resources/read (MRTR) -----------------------------------

  private CompletionStage<Response> call(McpRequest request, RunEnvironment.RequestSink sink, Cancellation cancellation) {
    CallTarget target;
    ObjectNode arguments;
    String name;
    switch (request.method()) {
      case "tools/call" -> {
        name = required(request, "name");
        target = server.tool(name).orElseThrow(() -> McpException.invalidParams("Unknown tool: " + name));
        arguments = request.objectParam("arguments");
      }
      case "prompts/get" -> {
        name = required(request, "name");
        target = server.prompt(name).orElseThrow(() -> McpException.invalidParams("Unknown prompt: " + name));
        arguments = request.objectParam("arguments");
      }
      default -> {
        name = required(request, "uri");
        ResourceDefinition resource = server.resourceFor(name).orElseThrow(() -> new McpException(
            ErrorCodes.INVALID_PARAMS, "Resource not found", Json.object().put("uri", name)));
        target = resource.readerOf(name);
        arguments = null;
      }
    }
    boolean tasksDeclared = request.capabilities().extension(TaskRequests.EXTENSION);
    if (target.taskSupport() == TaskSupport.REQUIRED && !tasksDeclared) {
      throw TaskRequests.extensionRequired();
    }
    RunEnvironment environment = new RunEnvironment(request.principal(), request.capabilities(), sink, cancellation,
        target.taskSupport() != TaskSupport.FORBIDDEN && tasksDeclared
            ? RunEnvironment.TaskMode.MAY_BECOME_TASK : RunEnvironment.TaskMode.SYNCHRONOUS);
    ObjectNode callArguments = arguments == null ? Json.object() : arguments;
    String requestState = request.stringParam("requestState");
    ObjectNode inputResponses = request.objectParam("inputResponses");
    if (requestState != null) {
      return retry(request, environment, requestState, callArguments,
          inputResponses == null ? Json.object() : inputResponses, binding(request, name, callArguments));
    }
    if (target.taskBudget() != null && environment.taskMode() == RunEnvironment.TaskMode.MAY_BECOME_TASK) {
      return firstRoundWithinBudget(request, target, name, callArguments, environment);
    }
    return engine.run(target, callArguments, environment, CallHistory.EMPTY, StepJournal.NONE)
        .thenCompose(outcome -> firstRoundEnded(request, environment, name, callArguments, outcome, inputResponses));
  }

  /**
   * A first round with a time budget runs synchronously; when the budget runs out first, the run
   * is cancelled and, once it has stopped, the call becomes a task over the steps it journaled.
   */
  private CompletionStage<Response> firstRoundWithinBudget(
      McpRequest request, CallTarget target, String name, ObjectNode arguments, RunEnvironment asTask) {
    RunEnvironment synchronous = new RunEnvironment(asTask.principal(), asTask.capabilities(), asTask.sink(),
        asTask.cancellation(), RunEnvironment.TaskMode.SYNCHRONOUS);
    Map<String, JsonNode> journaled = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
    CompletableFuture<RunOutcome> run = engine.run(target, arguments, synchronous, CallHistory.EMPTY, journaled::put)
        .toCompletableFuture();
    CompletableFuture<Boolean> inTime = run.thenApply(outcome -> true)
        .completeOnTimeout(false, target.taskBudget().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    return inTime.thenCompose(finished -> {
      if (finished) {
        return run.thenCompose(outcome -> firstRoundEnded(request, synchronous, name, arguments, outcome, null));
      }
      asTask.cancellation().cancel();
      return run.thenCompose(stopped -> {
        Map<String, JsonNode> steps;
        synchronized (journaled) {
          steps = new LinkedHashMap<>(journaled);
        }
        return tasks.create(request, TaskRequests.newTaskId(), name, arguments, Map.of(), steps);
      });
    });
  }

  /** What a requestState is bound to; the arguments' digest is only needed once a call asks. */
  private static RequestStateBinding binding(McpRequest request, String name, ObjectNode arguments) {
    return new RequestStateBinding(request.principal(), request.method(), name, Json.digest(arguments));
  }

  private static String required(McpRequest request, String member) {
    String value = request.stringParam(member);
    if (value == null) {
      throw McpException.invalidParams("params." + member + " is required");
    }
    return value;
  }

  /**
   * A first round that asked becomes a durable call. Answers the request already offered (a
   * client may send {@code inputResponses} without a {@code requestState}) are submitted to that
   * round at once, validated like any retry's: known keys are used, unknown keys ignored.
   */
  private CompletionStage<Response> firstRoundEnded(McpRequest request, RunEnvironment environment, String name,
      ObjectNode arguments, RunOutcome outcome, ObjectNode offeredAnswers) {
    if (outcome instanceof RunOutcome.Completed completed) {
      return done(complete(request, completed.result()));
    }
    if (outcome instanceof RunOutcome.Failed failed) {
      return done(error(request, failed.error()));
    }
    if (outcome instanceof RunOutcome.BecameTask becameTask) {
      return tasks.create(request, TaskRequests.newTaskId(), name, arguments, Map.of(), becameTask.newSteps());
    }
    RunOutcome.NeedsInput needs = (RunOutcome.NeedsInput) outcome;
    String callId = EntityIds.next();
    return EntityAsks.<ToolCallEntity.Command, ToolCallEntity.Reply>ask(entity(callId),
            replyTo -> new ToolCallEntity.Start(request.method(), name, arguments,
                request.principal(), needs.newSteps(), needs.questions(), replyTo),
            settings.askAttemptTimeout(), settings.askTimeout())
        .thenCompose(reply -> offeredAnswers == null || offeredAnswers.isEmpty()
            || !(reply instanceof ToolCallEntity.Asked asked)
            ? done(reply)
            : submitAnswers(request, environment, callId, asked.round(), offeredAnswers))
        .thenCompose(reply -> respond(request, callId, name, arguments, binding(request, name, arguments), reply));
  }

  private CompletionStage<Response> retry(McpRequest request, RunEnvironment environment, String requestState,
      ObjectNode arguments, ObjectNode inputResponses, RequestStateBinding binding) {
    RequestStateCodec.Opened opened;
    try {
      opened = stateCodec.open(requestState, binding);
    } catch (InvalidRequestStateException e) {
      log.info("refused requestState for {} {}: {}", request.method(), binding.name(), e.getMessage());
      return done(error(request, ToolCallEntity.INVALID_STATE));
    }
    return submitAnswers(request, environment, opened.callId(), opened.round(), inputResponses)
        .thenCompose(reply -> respond(request, opened.callId(), binding.name(), arguments, binding, reply));
  }

  private CompletionStage<ToolCallEntity.Reply> submitAnswers(
      McpRequest request, RunEnvironment environment, String callId, int round, ObjectNode inputResponses) {
    boolean mayBecomeTask = environment.taskMode() == RunEnvironment.TaskMode.MAY_BECOME_TASK;
    ActorRef<Object> notices = environment.sink() == RunEnvironment.RequestSink.NONE
        ? null : system.systemActorOf(forwardTo(environment.sink()), "round-notices-" + UUID.randomUUID(), Props.empty());
    environment.cancellation().onCancel(() -> entity(callId).tell(new ToolCallEntity.CancelRound(round)));
    CompletionStage<ToolCallEntity.Reply> reply = EntityAsks.<ToolCallEntity.Command, ToolCallEntity.Reply>ask(
        entity(callId), replyTo -> new ToolCallEntity.SubmitAnswers(
            round, inputResponses, request.principal(), environment.capabilities().declared(), mayBecomeTask,
            notices == null ? null : notices.narrow(), replyTo),
        settings.askAttemptTimeout(), settings.askTimeout());
    if (notices != null) {
      reply.whenComplete((answer, failure) -> notices.tell(STOP_FORWARDING));
    }
    return reply;
  }

  private static final Object STOP_FORWARDING = new Object();

  /** Delivers a round's notifications, sent by its entity (on any node), to the request's stream. */
  private static Behavior<Object> forwardTo(RunEnvironment.RequestSink sink) {
    return Behaviors.receive(Object.class)
        .onMessage(ToolCallEntity.RoundNotice.class, notice -> {
          if (notice.level() != null) {
            LogLevel.fromWire(notice.level()).ifPresent(level -> sink.log(level, notice.logger(), notice.data()));
          } else {
            sink.progress(notice.progress(), notice.total(), notice.message());
          }
          return Behaviors.same();
        })
        .onMessageEquals(STOP_FORWARDING, Behaviors::stopped)
        .build();
  }

  /** A round handed over to a task answers with the task's handle (created idempotently). */
  private CompletionStage<Response> respond(McpRequest request, String callId, String name, ObjectNode arguments,
      RequestStateBinding binding, ToolCallEntity.Reply reply) {
    if (reply instanceof ToolCallEntity.HandedOver handedOver) {
      if (!request.capabilities().extension(TaskRequests.EXTENSION)) {
        // A repeated retry of a round that became a task, from a request that did not declare the
        // extension: never a CreateTaskResult to it (spec §3.1); the call can only be followed as a task.
        return done(error(request, TaskRequests.extensionRequired().toError()));
      }
      return tasks.create(request, handedOver.taskId(), name, arguments, handedOver.answers(), handedOver.steps());
    }
    return done(toResponse(request, callId, binding, reply));
  }

  private Response toResponse(McpRequest request, String callId, RequestStateBinding binding, ToolCallEntity.Reply reply) {
    if (reply instanceof ToolCallEntity.Asked asked) {
      Map<String, InputRequest> inputRequests = new LinkedHashMap<>();
      asked.questions().forEach(question -> inputRequests.put(question.key(), question.request()));
      return Response.result(request.id(),
          new InputRequiredResult(inputRequests, stateCodec.seal(callId, asked.round(), binding)));
    }
    if (reply instanceof ToolCallEntity.Finished finished) {
      return complete(request, finished.result());
    }
    return error(request, ((ToolCallEntity.Rejected) reply).error());
  }

  /** A complete result; a {@code resources/read} result is cacheable (spec §7.4). */
  private Response complete(McpRequest request, ObjectNode result) {
    if (request.method().equals("resources/read")) {
      result = cacheable(result.deepCopy());
    }
    return Response.result(request.id(), result);
  }

  private EntityRef<ToolCallEntity.Command> entity(String callId) {
    return sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, callId);
  }

  private static Response result(McpRequest request, Object result) {
    return Response.result(request.id(), result);
  }

  private static Response error(McpRequest request, ErrorObject error) {
    return Response.error(request.id(), error);
  }

  private static Response internalError(McpRequest request, Throwable failure) {
    log.error("{} failed", request.method(), failure);
    return error(request, new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Internal error", null));
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
