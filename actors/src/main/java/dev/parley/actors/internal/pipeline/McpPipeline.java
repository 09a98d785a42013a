package dev.parley.actors.internal.pipeline;

import dev.parley.actors.ParleySettings;
import dev.parley.actors.internal.ServerNotifications;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.actors.internal.journal.NewEntityIds;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.state.SealedPointers;
import dev.parley.runtime.internal.wire.Errors;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.JsonRpc.Notification;
import dev.parley.runtime.internal.wire.Legacy;
import dev.parley.runtime.internal.wire.McpMethod;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.SourceQueueWithComplete;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one request pipeline every transport feeds: a request that passed the gate
 * ({@link McpRequest#from}) goes to the handler of its area and comes back as an
 * {@link McpReply}. Transports render the reply and decide nothing else.
 *
 * <pre>
 *   server/discover, tools|prompts|resources(/templates)/list  CatalogRequests
 *   completion/complete                                        CompletionRequests
 *   tools/call, prompts/get, resources/read                    DurableCalls (→ TaskHandOver)
 *   tasks/get, tasks/update, tasks/cancel                      TaskRequests
 *   subscriptions/listen                                       ListenRequests (always a stream)
 * </pre>
 */
public final class McpPipeline {
    private static final Logger log = LoggerFactory.getLogger(McpPipeline.class);
    private static final int STREAM_BUFFER = 256;

    private final McpServerDefinition server;
    private final Materializer materializer;
    private final CatalogRequests catalog;
    private final CompletionRequests completion;
    private final DurableCalls calls;
    private final TaskRequests tasks;
    private final ListenRequests listen;
    private final LegacyEra legacy;
    private final JournalAvailability journal;

    public McpPipeline(
            ActorSystem<?> system,
            McpServerDefinition server,
            ReplayEngine engine,
            SealedPointers stateCodec,
            ClusterSharding sharding,
            ParleySettings settings,
            ServerNotifications notifications,
            TaskRequests tasks,
            Executor requestThreadRuns) {
        CachePolicy cachePolicy = CachePolicy.of(settings);
        this.server = server;
        this.materializer = Materializer.matFromSystem(system);
        this.catalog = new CatalogRequests(server, settings.listPageSize(), cachePolicy);
        this.completion = new CompletionRequests(server);
        CallCaps caps = CallCaps.start(system, sharding, settings, tasks, notifications); // quotas on durable state
        this.calls = new DurableCalls(
                system,
                server,
                engine,
                stateCodec,
                sharding,
                settings,
                cachePolicy,
                new TaskHandOver(engine, tasks, caps, NewEntityIds.get(system)),
                caps,
                requestThreadRuns);
        this.tasks = tasks;
        this.listen = new ListenRequests(notifications);
        ServerRequestBridge serverRequests =
                new ServerRequestBridge(system, stateCodec, sharding, settings, JournalAvailability.get(system));
        this.legacy = new LegacyEra(
                new LegacySessions(
                        sharding,
                        new SessionViews(system, settings.sessionViewLifetime()),
                        settings,
                        server,
                        catalog.legacyCapabilities(),
                        JournalAvailability.get(system),
                        caps),
                new LegacyCalls(this, serverRequests, caps, ParleyMetrics.get(system)),
                serverRequests,
                new StreamCursors(stateCodec),
                new LegacyCancellations(system),
                listen);
        this.journal = JournalAvailability.get(system);
    }

    /**
     * Answers {@code server/discover} as a node's pipeline does, from the definition and settings
     * alone: what stdio answers while its node is still starting.
     */
    public static Function<McpRequest, McpReply.Final> discovery(McpServerDefinition server, ParleySettings settings) {
        return new CatalogRequests(server, settings.listPageSize(), CachePolicy.of(settings))::discover;
    }

    /** The 2025-11-25 era's side: sessions, server→client requests, resumable call streams. */
    public LegacyEra legacy() {
        return legacy;
    }

    Materializer materializer() {
        return materializer;
    }

    public McpServerDefinition server() {
        return server;
    }

    /** Whether the journal takes writes, and the answer while it does not. */
    public JournalAvailability journal() {
        return journal;
    }

    /** Answers a request with one final reply: no notifications, no cancellation. Never fails. */
    public CompletionStage<McpReply.Final> handle(McpRequest request) {
        return handle(request, RunEnvironment.RequestSink.NONE, new Cancellation());
    }

    /**
     * Answers {@code subscriptions/listen}, or a request that asked for notifications (a progress
     * token or a log level), as a stream; {@code cancellation} is how the transport says the
     * client went away. A listen filter that is not well-formed is a final error instead.
     */
    public McpReply stream(McpRequest request, Cancellation cancellation) {
        if (request.method().equals(Methods.SUBSCRIPTIONS_LISTEN)) {
            try {
                return listen.listen(request);
            } catch (McpException e) {
                return McpReply.Error.atGate(request.id(), e);
            }
        }
        Pair<SourceQueueWithComplete<Notification>, Source<Notification, NotUsed>> queue = Source.<Notification>queue(
                        STREAM_BUFFER, OverflowStrategy.dropHead())
                .preMaterialize(materializer);
        CompletionStage<McpReply.Final> end = handle(
                        request, new RequestNotifications(request, queue.first()::offer), cancellation)
                .whenComplete((reply, failure) -> queue.first().complete());
        return new McpReply.Stream(queue.second(), end);
    }

    private CompletionStage<McpReply.Final> handle(
            McpRequest request, RunEnvironment.RequestSink sink, Cancellation cancellation) {
        try {
            McpMethod method = request.descriptor();
            CompletionStage<McpReply.Final> reply = method == null
                    ? methodNotFound(request)
                    : switch (method) {
                        case SERVER_DISCOVER -> done(catalog.discover(request));
                        case TOOLS_LIST, PROMPTS_LIST, RESOURCES_LIST, RESOURCES_TEMPLATES_LIST ->
                            done(catalog.list(request));
                        case COMPLETION_COMPLETE -> done(completion.complete(request));
                        case TOOLS_CALL, PROMPTS_GET, RESOURCES_READ -> calls.call(request, sink, cancellation);
                        case TASKS_GET, TASKS_UPDATE, TASKS_CANCEL -> tasks.handle(request);
                        // A 2025-11-25 session answers these itself (LegacySessions); listen is always a stream.
                        case INITIALIZE,
                                PING,
                                LOGGING_SET_LEVEL,
                                RESOURCES_SUBSCRIBE,
                                RESOURCES_UNSUBSCRIBE,
                                SUBSCRIPTIONS_LISTEN,
                                TASKS_LIST,
                                TASKS_RESULT -> methodNotFound(request);
                    };
            CompletionStage<McpReply.Final> answered = reply.exceptionally(failure -> internalError(request, failure));
            return Legacy.VERSIONS.contains(request.protocolVersion())
                    ? answered.thenApply(end -> LegacyCalls.forLegacyClient(request, end))
                    : answered;
        } catch (McpException e) {
            return done(McpReply.Error.inBand(request.id(), JsonRpc.ErrorObject.of(e)));
        } catch (RuntimeException e) {
            return done(internalError(request, e));
        }
    }

    private static CompletionStage<McpReply.Final> methodNotFound(McpRequest request) {
        return done(
                McpReply.Error.inBand(request.id(), JsonRpc.ErrorObject.of(Errors.methodNotFound(request.method()))));
    }

    private McpReply.Final internalError(McpRequest request, Throwable failure) {
        if (JournalAvailability.isUnavailable(failure)) {
            return McpReply.Error.inBand(request.id(), journal.error()); // retryable, nothing acknowledged
        }
        log.error("{} failed", request.method(), failure);
        return McpReply.Error.inBand(request.id(), new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Internal error", null));
    }

    private static <T> CompletionStage<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
