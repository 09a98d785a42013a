package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.ParleySettings;
import dev.parley.actors.internal.EntityAsks;
import dev.parley.actors.internal.EntityIds;
import dev.parley.actors.internal.PrincipalCapsEntity;
import dev.parley.actors.internal.SessionEntity;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.runtime.Json;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.internal.wire.Discovery;
import dev.parley.runtime.internal.wire.Errors;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.Legacy;
import dev.parley.runtime.internal.wire.Legacy.InitializeResult;
import dev.parley.runtime.internal.wire.McpMethod;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.japi.function.Function;

/**
 * 2025-11-25 sessions, kept in {@link SessionEntity} (sharded by session id, journaled), so any
 * node serves any request of a session. The session id is a fresh unguessable id; the entity
 * binds it to the principal that opened it.
 */
public final class LegacySessions {
    /** What {@code initialize} ends with: a session, or a refusal by a quota (nothing journaled). */
    public sealed interface Initialized {}

    /** An opened session: its id (for {@code MCP-Session-Id}) and the {@code initialize} result. */
    public record Opened(String sessionId, InitializeResult result) implements Initialized {}

    /** Refused by {@code parley.quotas}: the error to answer. */
    public record Refused(ErrorObject error) implements Initialized {}

    private final ClusterSharding sharding;
    private final SessionViews views;
    private final ParleySettings settings;
    private final McpServerDefinition server;
    private final Discovery.ServerCapabilities serverCapabilities;
    private final JournalAvailability journal;
    private final CallCaps caps;

    LegacySessions(
            ClusterSharding sharding,
            SessionViews views,
            ParleySettings settings,
            McpServerDefinition server,
            Discovery.ServerCapabilities serverCapabilities,
            JournalAvailability journal,
            CallCaps caps) {
        this.caps = caps;
        this.sharding = sharding;
        this.views = views;
        this.settings = settings;
        this.server = server;
        this.serverCapabilities = serverCapabilities;
        this.journal = journal;
    }

    /**
     * {@code initialize}: negotiates the version (2025 rules: counter-offer, never an error) and
     * opens a session, counted against {@code quotaPrincipal}'s cap of sessions.
     */
    public CompletionStage<Initialized> initialize(JsonRpc.Message message, String principal, String quotaPrincipal) {
        JsonNode requested = message.params().get("protocolVersion");
        JsonNode capabilities = message.params().get("capabilities");
        JsonNode clientInfo = message.params().get("clientInfo");
        if (requested == null || !requested.isTextual() || capabilities == null || !capabilities.isObject()) {
            throw McpException.invalidParams("initialize needs protocolVersion and capabilities");
        }
        ObjectNode info = clientInfo instanceof ObjectNode object ? object : Json.object();
        Optional<ErrorObject> oversized = caps.oversizedSession(capabilities, info);
        if (oversized.isPresent()) {
            return CompletableFuture.completedFuture(new Refused(oversized.get()));
        }
        String version = Legacy.negotiate(requested.asText());
        String sessionId = EntityIds.next();
        long changesBefore = views.changesSoFar();
        return caps.take(quotaPrincipal, PrincipalCapsEntity.Kind.SESSION, sessionId)
                .thenCompose(refused -> refused.isPresent()
                        ? CompletableFuture.completedFuture(new Refused(refused.get()))
                        : ask(
                                        sessionId,
                                        replyTo -> new SessionEntity.Open(
                                                principal, version, (ObjectNode) capabilities, info, replyTo))
                                .whenComplete((reply, failure) -> {
                                    if (failure != null) {
                                        caps.release(quotaPrincipal, PrincipalCapsEntity.Kind.SESSION, sessionId);
                                    }
                                })
                                .thenApply(reply -> {
                                    views.keep(sessionId, principal, viewOrNull(reply), changesBefore);
                                    return reply;
                                })
                                .thenApply(reply -> new Opened(
                                        sessionId,
                                        new InitializeResult(
                                                version,
                                                serverCapabilities,
                                                server.serverInfo(),
                                                server.instructions()))));
    }

    /**
     * The session, or null when it does not exist for this principal (unknown, ended, someone
     * else's): this node's recent copy ({@link SessionViews}), else its entity's answer.
     */
    public CompletionStage<SessionEntity.SessionView> find(String sessionId, String principal) {
        SessionEntity.SessionView copy = views.find(sessionId, principal);
        if (copy != null) {
            return CompletableFuture.completedFuture(copy);
        }
        long changesBefore = views.changesSoFar();
        return ask(sessionId, replyTo -> new SessionEntity.Get(principal, replyTo))
                .thenApply(reply -> {
                    SessionEntity.SessionView view = viewOrNull(reply);
                    views.keep(sessionId, principal, view, changesBefore);
                    return view;
                });
    }

    public CompletionStage<SessionEntity.SessionView> setLogLevel(
            String sessionId, String principal, JsonRpc.Message message) {
        JsonNode level = message.params().get("level");
        if (level == null
                || !level.isTextual()
                || LogLevel.fromWire(level.asText()).isEmpty()) {
            throw McpException.invalidParams("logging/setLevel needs a valid level");
        }
        return changing(
                sessionId,
                ask(sessionId, replyTo -> new SessionEntity.SetLogLevel(principal, level.asText(), replyTo)));
    }

    public CompletionStage<SessionEntity.SessionView> subscription(
            String sessionId, String principal, JsonRpc.Message message, boolean subscribe) {
        String uri = McpMethod.RESOURCES_SUBSCRIBE.targetIn(message.params());
        if (uri == null) {
            throw McpException.invalidParams("params.uri is required");
        }
        return changing(
                sessionId,
                ask(
                        sessionId,
                        replyTo -> subscribe
                                ? new SessionEntity.Subscribe(principal, uri, replyTo)
                                : new SessionEntity.Unsubscribe(principal, uri, replyTo)));
    }

    /**
     * Ends the session, which frees its place in {@code quotaPrincipal}'s cap; true when there was
     * one to end. Asks the entity itself, never a copy: only it knows whether the session still is.
     */
    public CompletionStage<Boolean> end(String sessionId, String principal, String quotaPrincipal) {
        return ask(sessionId, replyTo -> new SessionEntity.Get(principal, replyTo))
                .thenCompose(found -> !(found instanceof SessionEntity.SessionView)
                        ? CompletableFuture.completedFuture(false)
                        : changing(sessionId, ask(sessionId, replyTo -> new SessionEntity.End(principal, replyTo)))
                                .thenApply(ended -> {
                                    caps.release(quotaPrincipal, PrincipalCapsEntity.Kind.SESSION, sessionId);
                                    return true;
                                }));
    }

    /** A change made through the session's entity: once it is made, every node's copy is dropped. */
    private CompletionStage<SessionEntity.SessionView> changing(
            String sessionId, CompletionStage<SessionEntity.Reply> change) {
        // a failed ask may still have changed it
        return change.whenComplete((reply, failure) -> views.changed(sessionId)).thenApply(LegacySessions::viewOrNull);
    }

    /**
     * Answers what a session answers itself ({@code ping}, {@code logging/setLevel},
     * {@code resources/subscribe|unsubscribe}) and refuses the 2026-only methods; null for a method
     * the request pipeline serves.
     */
    public CompletionStage<JsonRpc.Response> own(String sessionId, String principal, JsonRpc.Message message) {
        JsonNode id = message.id();
        McpMethod method = McpMethod.of(message.method());
        if (method == null) {
            return null;
        }
        return switch (method) {
            case PING -> CompletableFuture.completedFuture(empty(id));
            case LOGGING_SET_LEVEL -> setLogLevel(sessionId, principal, message).thenApply(view -> empty(id));
            case RESOURCES_SUBSCRIBE, RESOURCES_UNSUBSCRIBE ->
                subscription(sessionId, principal, message, method == McpMethod.RESOURCES_SUBSCRIBE)
                        .thenApply(view -> empty(id));
            // 2026-07-28 methods: a 2025 session uses initialize, the GET stream and synchronous calls.
            default ->
                method.era() == McpMethod.Era.MODERN
                        ? CompletableFuture.completedFuture(JsonRpc.Response.error(
                                id, JsonRpc.ErrorObject.of(Errors.methodNotFound(message.method()))))
                        : null;
        };
    }

    private static JsonRpc.Response empty(JsonNode id) {
        return JsonRpc.Response.result(id, new Legacy.EmptyResult());
    }

    /** The pipeline request a message on {@code session} is. */
    public static McpRequest request(JsonRpc.Message message, String principal, SessionEntity.SessionView session) {
        LogLevel level = session.logLevel() == null
                ? null
                : LogLevel.fromWire(session.logLevel()).orElse(null);
        return McpRequest.onSession(message, principal, session.protocolVersion(), session.capabilities(), level);
    }

    private static SessionEntity.SessionView viewOrNull(SessionEntity.Reply reply) {
        return reply instanceof SessionEntity.SessionView view ? view : null;
    }

    private CompletionStage<SessionEntity.Reply> ask(
            String sessionId, Function<ActorRef<SessionEntity.Reply>, SessionEntity.Command> message) {
        // a session in memory answers during a journal outage; one that is not ends with a 503
        return EntityAsks.askUnlessUnanswered(
                journal,
                sharding.entityRefFor(SessionEntity.ENTITY_TYPE_KEY, sessionId),
                message,
                settings.askAttemptTimeout(),
                settings.askTimeout());
    }
}
