package dev.parley.actors;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
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
import dev.parley.runtime.wire.Tools.ListToolsResult;
import dev.parley.runtime.wire.Tools.ToolInfo;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Turns a request that passed the gate into a JSON-RPC response, independent of the transport.
 * Lists and discovery come from the server definition; a {@code tools/call} runs once through
 * the engine and becomes a {@link ToolCallEntity} only when it asks for input.
 */
public final class McpDispatcher {
  private static final Logger log = LoggerFactory.getLogger(McpDispatcher.class);
  private static final String CURSOR_PREFIX = "offset:";

  private final McpServerDefinition server;
  private final ReplayEngine engine;
  private final RequestStateCodec stateCodec;
  private final ClusterSharding sharding;
  private final ParleySettings settings;

  public McpDispatcher(McpServerDefinition server, ReplayEngine engine, RequestStateCodec stateCodec,
      ClusterSharding sharding, ParleySettings settings) {
    this.server = server;
    this.engine = engine;
    this.stateCodec = stateCodec;
    this.sharding = sharding;
    this.settings = settings;
  }

  /** Never fails: every problem becomes a JSON-RPC error response. */
  public CompletionStage<Response> dispatch(McpRequest request) {
    try {
      CompletionStage<Response> response = switch (request.method()) {
        case "server/discover" -> done(Response.result(request.id(), discover()));
        case "tools/list" -> done(Response.result(request.id(), listTools(request)));
        case "tools/call" -> callTool(request);
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

  private Lifecycle.DiscoverResult discover() {
    ObjectNode capabilities = Json.object();
    capabilities.putObject("tools");
    return new Lifecycle.DiscoverResult("complete", Lifecycle.SUPPORTED_VERSIONS, capabilities,
        server.instructions(), settings.listTtlMs(), settings.listCacheScope(),
        Map.of(Lifecycle.META_SERVER_INFO, server.serverInfo()));
  }

  private ListToolsResult listTools(McpRequest request) {
    List<ToolDefinition<?>> tools = new ArrayList<>(server.tools());
    int offset = decodeCursor(request.stringParam("cursor"), tools.size());
    int end = Math.min(tools.size(), offset + settings.listPageSize());
    List<ToolInfo> page = tools.subList(offset, end).stream().<ToolInfo>map(ToolDefinition::info).toList();
    String nextCursor = end < tools.size() ? encodeCursor(end) : null;
    return new ListToolsResult("complete", page, nextCursor, settings.listTtlMs(), settings.listCacheScope());
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

  private CompletionStage<Response> callTool(McpRequest request) {
    String name = request.stringParam("name");
    if (name == null) {
      throw McpException.invalidParams("params.name is required");
    }
    ToolDefinition<?> tool = server.tool(name)
        .orElseThrow(() -> McpException.invalidParams("Unknown tool: " + name));
    ObjectNode arguments = request.objectParam("arguments");
    if (arguments == null) {
      arguments = Json.object();
    }
    String requestState = request.stringParam("requestState");
    ObjectNode inputResponses = request.objectParam("inputResponses");
    RequestStateBinding binding =
        new RequestStateBinding(request.principal(), request.method(), name, Json.digest(arguments));
    if (requestState != null) {
      return retry(request, requestState, inputResponses == null ? Json.object() : inputResponses, binding);
    }
    // The engine validates the arguments against the input schema before the handler runs.
    ObjectNode callArguments = arguments;
    RunEnvironment environment = RunEnvironment.of(request.principal(), request.capabilities());
    return engine.run(tool, arguments, environment, CallHistory.EMPTY, StepJournal.NONE)
        .thenCompose(outcome -> firstRoundEnded(request, name, callArguments, binding, outcome));
  }

  private CompletionStage<Response> firstRoundEnded(
      McpRequest request, String name, ObjectNode arguments, RequestStateBinding binding, RunOutcome outcome) {
    if (outcome instanceof RunOutcome.Completed completed) {
      return done(Response.result(request.id(), completed.result()));
    }
    if (outcome instanceof RunOutcome.Failed failed) {
      return done(error(request, failed.error()));
    }
    RunOutcome.NeedsInput needs = (RunOutcome.NeedsInput) outcome;
    String callId = UUID.randomUUID().toString();
    return entity(callId)
        .<ToolCallEntity.Reply>ask(replyTo -> new ToolCallEntity.Start(name, arguments, request.principal(),
            needs.newSteps(), needs.questions(), replyTo), settings.askTimeout())
        .thenApply(reply -> toResponse(request, callId, binding, reply));
  }

  private CompletionStage<Response> retry(
      McpRequest request, String requestState, ObjectNode inputResponses, RequestStateBinding binding) {
    RequestStateCodec.Opened opened;
    try {
      opened = stateCodec.open(requestState, binding);
    } catch (InvalidRequestStateException e) {
      log.info("refused requestState for {} {}: {}", request.method(), binding.name(), e.getMessage());
      return done(error(request, ToolCallEntity.INVALID_STATE));
    }
    return entity(opened.callId())
        .<ToolCallEntity.Reply>ask(replyTo -> new ToolCallEntity.SubmitAnswers(opened.round(), inputResponses,
            request.principal(), request.capabilities().declared(), replyTo), settings.askTimeout())
        .thenApply(reply -> toResponse(request, opened.callId(), binding, reply));
  }

  private Response toResponse(McpRequest request, String callId, RequestStateBinding binding, ToolCallEntity.Reply reply) {
    if (reply instanceof ToolCallEntity.Asked asked) {
      Map<String, InputRequest> inputRequests = new LinkedHashMap<>();
      asked.questions().forEach(question -> inputRequests.put(question.key(), question.request()));
      return Response.result(request.id(),
          new InputRequiredResult(inputRequests, stateCodec.seal(callId, asked.round(), binding)));
    }
    if (reply instanceof ToolCallEntity.Finished finished) {
      return Response.result(request.id(), finished.result());
    }
    return error(request, ((ToolCallEntity.Rejected) reply).error());
  }

  private EntityRef<ToolCallEntity.Command> entity(String callId) {
    return sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, callId);
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
