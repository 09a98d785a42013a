package dev.parley.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.EntityIds;
import dev.parley.actors.internal.SessionEntity;
import dev.parley.actors.internal.pipeline.LegacyCalls;
import dev.parley.actors.internal.pipeline.LegacySessions;
import dev.parley.actors.internal.pipeline.McpPipeline;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.actors.internal.pipeline.StreamCursors;
import dev.parley.http.HttpSettings;
import dev.parley.http.internal.HttpStatusTable.Refusal;
import dev.parley.http.internal.ops.RequestObserver;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.internal.state.InvalidRequestStateException;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.Legacy;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.UnaryOperator;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.Materializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The 2025-11-25 era on the same endpoint: {@code initialize} and sessions ({@code MCP-Session-Id}),
 * the session's requests, the client's responses to server→client requests, the GET stream of
 * server notifications and DELETE. Sessions and waiting calls live in sharded entities, so any
 * node serves any request of a session. Tool code is the same: a question a handler asks becomes
 * a server→client request on the call's SSE stream, and its answer is recorded in the call's
 * entity like a 2026-07-28 {@code inputResponses} entry. Closing a 2025 stream does not cancel
 * the call (spec 2025-11-25 §3.2).
 */
final class LegacyRoutes {
    private static final Logger log = LoggerFactory.getLogger(LegacyRoutes.class);
    static final String SESSION_HEADER = "mcp-session-id";
    private static final int STREAM_BUFFER = 256;

    private final McpPipeline pipeline;
    private final LegacySessions sessions;
    private final HttpReplies replies;
    private final Materializer materializer;
    private final CallStreams streams;
    private final RequestObserver observer; // metrics, spans and MDC of each request
    private final QuotaPrincipals quotaPrincipals;

    LegacyRoutes(
            McpPipeline pipeline, HttpSettings settings, Materializer materializer, QuotaPrincipals quotaPrincipals) {
        this.pipeline = pipeline;
        this.quotaPrincipals = quotaPrincipals;
        this.sessions = pipeline.legacy().sessions();
        this.replies = new HttpReplies(settings.keepAlive());
        this.materializer = materializer;
        this.streams = new CallStreams(
                pipeline.legacy().streamCursors(),
                pipeline.legacy().cancellations(),
                replies,
                materializer,
                settings.legacyStreams());
        this.observer = RequestObserver.of(materializer, pipeline.server());
    }

    static Optional<String> sessionId(HttpRequest http) {
        return EdgeChecks.header(http, SESSION_HEADER)
                .map(HttpHeader::value)
                .map(String::trim)
                .filter(id -> !id.isEmpty());
    }

    /** A POSTed JSON-RPC message of this era; {@code visible} trims its reply to what the principal may see. */
    CompletionStage<HttpResponse> post(
            HttpRequest http, JsonRpc.Message message, String principal, UnaryOperator<McpReply.Final> visible) {
        if (message.method().equals(Legacy.INITIALIZE)) {
            if (message.isNotification()) {
                return done(error(Refusal.INITIALIZE_NOT_A_REQUEST, null, "initialize must be a request"));
            }
            String version =
                    Legacy.negotiate(message.params().path("protocolVersion").asText());
            return observer.legacy(http, message, version, principal)
                    .watch(() -> sessions.initialize(message, principal, quotaPrincipals.of(http, principal))
                            .thenApply(initialized -> initialized instanceof LegacySessions.Opened opened
                                    ? HttpReplies.json(
                                                    StatusCodes.OK,
                                                    JsonRpc.Response.result(message.id(), opened.result()))
                                            .addHeader(RawHeader.create("Mcp-Session-Id", opened.sessionId()))
                                    : refused(message.id(), ((LegacySessions.Refused) initialized).error())));
        }
        return withSession(http, message.id(), principal, session -> {
            if (message.isNotification()) {
                if (message.method().equals(Legacy.NOTIFICATION_CANCELLED)) {
                    // Cancels the request on whichever node holds it; what the call journaled stays.
                    pipeline.legacy()
                            .cancellations()
                            .cancel(
                                    sessionId(http).orElseThrow(),
                                    principal,
                                    message.params().get("requestId"));
                }
                return done(HttpReplies.refusal(Refusal.NOTIFICATION_ACCEPTED, null));
            }
            return observer.legacy(http, message, session.protocolVersion(), principal)
                    .watch(() -> request(http, message, principal, session, visible));
        });
    }

    /** A POSTed response to one of the server's requests: recorded as that question's answer, then 202. */
    CompletionStage<HttpResponse> answer(HttpRequest http, JsonRpc.ClientResponse response, String principal) {
        return withSession(
                http,
                null,
                principal,
                session -> pipeline.legacy()
                        .serverRequests()
                        .answer(response, principal, session.capabilities())
                        .thenApply(done -> HttpReplies.refusal(Refusal.NOTIFICATION_ACCEPTED, null)));
    }

    /** GET (the session's stream of server notifications) or DELETE (ends the session). */
    CompletionStage<HttpResponse> getOrDelete(HttpRequest http, String principal) {
        String sessionId = sessionId(http).orElseThrow();
        if (http.method().equals(HttpMethods.DELETE)) {
            return sessions.end(sessionId, principal, quotaPrincipals.of(http, principal))
                    .thenApply(ended -> ended
                            ? HttpReplies.refusal(Refusal.SESSION_ENDED, null)
                            : error(Refusal.SESSION_NOT_FOUND, null, "Session not found"));
        }
        Optional<String> lastEventId = EdgeChecks.header(http, "last-event-id")
                .map(HttpHeader::value)
                .map(String::trim)
                .filter(id -> !id.isEmpty());
        if (lastEventId.isPresent()) {
            return withSession(
                    http,
                    null,
                    principal,
                    session -> done(resume(http, lastEventId.get(), sessionId, principal, session)));
        }
        return withSession(
                http,
                null,
                principal,
                session -> done(replies.eventStream(pipeline.legacy()
                        .sessionNotifications(sessionId, principal)
                        .map(notification -> (Object) notification))));
    }

    /**
     * {@code GET} with {@code Last-Event-ID}: the call stream that id belongs to, resumed from the
     * call's journal on whichever node this is (400 for an id that is not one of this session's).
     */
    private HttpResponse resume(
            HttpRequest http,
            String lastEventId,
            String sessionId,
            String principal,
            SessionEntity.SessionView session) {
        StreamCursors.Cursor cursor;
        try {
            cursor = pipeline.legacy().streamCursors().open(lastEventId, principal, sessionId);
        } catch (InvalidRequestStateException e) {
            log.info("refused Last-Event-ID: {}", e.getMessage());
            return error(
                    Refusal.LAST_EVENT_ID_UNKNOWN,
                    null,
                    "Last-Event-ID is not an event of this session's streams, or has expired");
        }
        McpRequest request = new McpRequest(
                        cursor.requestId(),
                        Methods.TOOLS_CALL,
                        Json.object(),
                        session.protocolVersion(),
                        ClientCapabilities.of(session.capabilities()),
                        principal,
                        null,
                        null)
                .withQuotaPrincipal(quotaPrincipals.of(http, principal));
        return streams.open(
                principal,
                sessionId,
                session.protocolVersion(),
                cursor,
                (events, run, awaiting) -> pipeline.legacy().calls().resume(request, cursor, events, run, awaiting));
    }

    private CompletionStage<HttpResponse> request(
            HttpRequest http,
            JsonRpc.Message message,
            String principal,
            SessionEntity.SessionView session,
            UnaryOperator<McpReply.Final> visible) {
        try {
            CompletionStage<JsonRpc.Response> own = sessions.own(sessionId(http).orElseThrow(), principal, message);
            if (own != null) {
                return own.thenApply(response -> HttpReplies.json(
                        response.error() == null
                                ? StatusCodes.OK
                                : HttpStatusTable.statusOf(
                                        McpReply.Origin.IN_BAND,
                                        response.error().code()),
                        response));
            }
            McpRequest request = LegacySessions.request(message, principal, session)
                    .withQuotaPrincipal(quotaPrincipals.of(http, principal));
            boolean mayAsk =
                    request.descriptor() != null && request.descriptor().mayAsk();
            if (mayAsk && EdgeChecks.acceptsEventStream(http)) {
                String sessionId = sessionId(http).orElseThrow();
                if (request.wantsNotifications() || longWork(request)) {
                    // The call is named now: its stream's event ids point at it before its first round ends.
                    McpRequest named = request.withCallId(EntityIds.next());
                    return done(streams.open(
                            principal,
                            sessionId,
                            session.protocolVersion(),
                            new StreamCursors.Cursor(named.callId(), 0, StreamCursors.ROUND_START, named.id()),
                            (events, run, awaiting) -> pipeline.legacy().calls().run(named, events, run, awaiting)));
                }
                // Without notifications the first round decides: a result is one JSON body; only questions need the
                // stream.
                return pipeline.handle(request)
                        .thenApply(first -> first instanceof McpReply.InputRequired waiting
                                ? streams.open(
                                        principal,
                                        sessionId,
                                        session.protocolVersion(),
                                        new StreamCursors.Cursor(
                                                waiting.callId(),
                                                waiting.round(),
                                                StreamCursors.ROUND_START,
                                                request.id()),
                                        (events, run, awaiting) -> pipeline.legacy()
                                                .calls()
                                                .continueFrom(request, first, events, run, awaiting))
                                : HttpReplies.json(HttpStatusTable.statusOf(first), LegacyCalls.response(first)));
            }
            return pipeline.handle(request)
                    .thenApply(visible)
                    .thenApply(reply -> reply instanceof McpReply.InputRequired
                            ? error(
                                    Refusal.QUESTION_NEEDS_STREAM,
                                    message.id(),
                                    "This call asks the user a question: send Accept: text/event-stream so the question can be sent")
                            : HttpReplies.json(HttpStatusTable.statusOf(reply), LegacyCalls.response(reply)));
        } catch (McpException e) {
            return done(HttpReplies.json(
                    HttpStatusTable.statusOf(McpReply.Origin.IN_BAND, e.code()),
                    JsonRpc.Response.error(message.id(), JsonRpc.ErrorObject.of(e))));
        }
    }

    /** A call to a tool that may run as a task: long work, so its stream opens at once and may be polled. */
    private boolean longWork(McpRequest request) {
        String name =
                request.descriptor().mayBecomeTask() ? request.descriptor().targetIn(request.params()) : null;
        return name != null
                && pipeline.server()
                        .tool(name)
                        .map(tool -> tool.taskSupport() != TaskSupport.FORBIDDEN)
                        .orElse(false);
    }

    private CompletionStage<HttpResponse> withSession(
            HttpRequest http,
            JsonNode id,
            String principal,
            java.util.function.Function<SessionEntity.SessionView, CompletionStage<HttpResponse>> then) {
        Optional<String> sessionId = sessionId(http);
        if (sessionId.isEmpty()) {
            return done(error(Refusal.SESSION_ID_MISSING, id, "Mcp-Session-Id header is required"));
        }
        Optional<String> version = EdgeChecks.header(http, "mcp-protocol-version")
                .map(HttpHeader::value)
                .map(String::trim);
        if (version.isPresent() && !Legacy.VERSIONS.contains(version.get())) {
            return done(error(
                    Refusal.SESSION_VERSION_UNSUPPORTED,
                    id,
                    "Unsupported MCP-Protocol-Version for a session: " + version.get()));
        }
        return sessions.find(sessionId.get(), principal)
                .thenCompose(session -> session == null
                        ? done(error(Refusal.SESSION_NOT_FOUND, id, "Session not found"))
                        : then.apply(session));
    }

    /** A refusal by a quota, with the status (and Retry-After) its code has in the status table. */
    private static HttpResponse refused(JsonNode id, ErrorObject error) {
        return HttpReplies.json(
                HttpStatusTable.statusOf(McpReply.Origin.IN_BAND, error.code()), JsonRpc.Response.error(id, error));
    }

    /** A session's refusal: its status from the table, a -32600 error with the request's id. */
    private static HttpResponse error(Refusal refusal, JsonNode id, String message) {
        return HttpReplies.json(
                HttpStatusTable.statusOf(refusal),
                JsonRpc.Response.error(id, new ErrorObject(ErrorCodes.INVALID_REQUEST, message, null)));
    }

    private static <T> CompletionStage<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
