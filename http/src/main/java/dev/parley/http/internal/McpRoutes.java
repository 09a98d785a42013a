package dev.parley.http.internal;

import dev.parley.actors.internal.PekkoStages;
import dev.parley.actors.internal.pipeline.McpPipeline;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.http.HttpSettings;
import dev.parley.http.PrincipalResolver;
import dev.parley.http.auth.RequestAuthorization;
import dev.parley.http.internal.HttpStatusTable.Refusal;
import dev.parley.http.internal.ops.RequestObserver;
import dev.parley.runtime.McpException;
import dev.parley.runtime.Principal;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.RequestEntity;
import org.apache.pekko.http.javadsl.model.headers.Allow;
import org.apache.pekko.http.javadsl.model.headers.Connection;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;
import org.apache.pekko.util.ByteStringBuilder;

/**
 * The single MCP endpoint (Streamable HTTP): Host and Origin checked; one JSON-RPC message per
 * body. A 2026-07-28 request goes through the stateless gate and the standard headers, then the
 * request pipeline, whose reply {@link HttpReplies} renders. A 2025-11-25 message ({@code
 * initialize}, or anything on a session) goes to {@link LegacyRoutes}.
 */
public final class McpRoutes {
    private final McpPipeline pipeline;
    private final HttpSettings settings;
    private final String endpointPath;
    private final RequestAuthorization authorization;
    private final Materializer materializer;
    private final EdgeChecks checks;
    private final HttpReplies replies;
    private final LegacyRoutes legacy;
    private final RequestObserver observer; // metrics, spans and MDC of each request
    private final QuotaPrincipals quotaPrincipals;
    private final MessageIntake intake;

    /** How much of a body over the limit is read (and discarded) so that the client reads the 413. */
    private static final long DISCARD_LIMIT_BYTES = 64L << 20;

    public McpRoutes(
            McpPipeline pipeline, HttpSettings settings, PrincipalResolver principals, Materializer materializer) {
        this(pipeline, settings, RequestAuthorization.open(principals), materializer);
    }

    public McpRoutes(
            McpPipeline pipeline,
            HttpSettings settings,
            RequestAuthorization authorization,
            Materializer materializer) {
        this.pipeline = pipeline;
        this.settings = settings;
        this.endpointPath = "/" + settings.path();
        this.authorization = authorization;
        this.materializer = materializer;
        this.checks = new EdgeChecks(settings, pipeline.server());
        this.replies = new HttpReplies(settings.keepAlive());
        this.quotaPrincipals = new QuotaPrincipals(settings.forwardedForHops());
        this.legacy = new LegacyRoutes(pipeline, settings, materializer, quotaPrincipals);
        this.observer = RequestObserver.of(materializer, pipeline.server());
        this.intake = new MessageIntake(settings.requestLimits());
    }

    /**
     * Whether {@code request} is for the endpoint: its decoded path is {@code /} and {@code
     * parley.http.path}, nothing after it. The server hands such a request straight to {@link
     * #respond}, past pekko-http's routing DSL (its directives, sealing and the response's
     * marshalling and content negotiation cost about 5 % of a one-round call's CPU).
     */
    public boolean serves(HttpRequest request) {
        return request.getUri().path().equals(endpointPath);
    }

    /** The endpoint's answer to {@code request}, reported to the request observer; never fails. */
    public CompletionStage<HttpResponse> respond(HttpRequest request) {
        return handle(request).whenComplete((response, failure) -> observer.edgeResponded(response));
    }

    /** The whole endpoint as a function; never fails. */
    CompletionStage<HttpResponse> handle(HttpRequest request) {
        if (!checks.hostAndOriginAllowed(request)) {
            return done(
                    HttpReplies.refusal(Refusal.NOT_ALLOWED_HOST_OR_ORIGIN, "Forbidden: Host or Origin not allowed"));
        }
        // authorization (401/403 challenges, rate limits) before anything else is read or parsed
        return PekkoStages.direct(authorization.admit(request))
                .thenCompose(admission -> admission.isRefused()
                        ? done(admission.refusal())
                        : handleAdmitted(request, admission.principal()));
    }

    private CompletionStage<HttpResponse> handleAdmitted(HttpRequest request, Principal principal) {
        boolean getOrDelete =
                request.method().equals(HttpMethods.GET) || request.method().equals(HttpMethods.DELETE);
        if (getOrDelete && LegacyRoutes.sessionId(request).isPresent()) {
            return legacy.getOrDelete(request, principal.id());
        }
        if (!request.method().equals(HttpMethods.POST)) {
            return done(HttpReplies.refusal(Refusal.METHOD_NOT_POST, null).addHeader(Allow.create(HttpMethods.POST)));
        }
        if (!request.entity().getContentType().mediaType().equals(MediaTypes.APPLICATION_JSON)) {
            return done(HttpReplies.refusal(Refusal.NOT_JSON_CONTENT, "Content-Type must be application/json"));
        }
        if (!EdgeChecks.acceptsJson(request)) {
            return done(HttpReplies.refusal(Refusal.JSON_NOT_ACCEPTED, "Accept must allow application/json"));
        }
        return readBody(request)
                .thenCompose(body -> body == null ? done(bodyTooLarge()) : handleBody(request, body, principal))
                .exceptionally(failure -> {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause()
                            : failure;
                    if (dev.parley.actors.internal.journal.JournalAvailability.isUnavailable(cause)) {
                        return JournalOutageReplies.unavailable(pipeline.journal()); // a 2025 session path
                    }
                    if (cause instanceof TimeoutException) {
                        return bodyTooSlow();
                    }
                    return HttpReplies.refusal(Refusal.BODY_UNREADABLE, "Could not read the request body");
                });
    }

    /**
     * The request body, or null when it is over {@code max-body-bytes} (always 413, whatever
     * pekko-http's own limits). Past the limit the rest is still read and discarded before the 413
     * goes out: a connection closed while the client still sends gets a TCP reset, and the client
     * may fail on it before it reads the answer. Bounded by {@link #DISCARD_LIMIT_BYTES} and the body
     * timeout; beyond them the 413 goes out at once and the connection closes. A client waiting for
     * {@code 100 Continue} has sent nothing yet, and is answered at once.
     */
    private CompletionStage<byte[]> readBody(HttpRequest request) {
        RequestEntity entity = request.entity();
        long limit = settings.maxBodyBytes();
        if (entity instanceof HttpEntity.Strict strict) { // the whole body came with the head
            ByteString data = strict.getData();
            return done(data.size() > limit ? null : data.toArray());
        }
        long declared = entity.getContentLengthOption().orElse(0);
        if (declared > DISCARD_LIMIT_BYTES
                || (declared > limit && EdgeChecks.header(request, "expect").isPresent())) {
            return done(null);
        }
        Body body = new Body(limit);
        return PekkoStages.direct(entity.withoutSizeLimit()
                        .getDataBytes()
                        .completionTimeout(settings.connections().bodyTimeout())
                        .takeWhile(body::add)
                        .runWith(Sink.ignore(), materializer))
                .handle((ignored, failure) -> {
                    if (body.tooLarge()) {
                        return null; // also when the time ran out while discarding
                    }
                    if (failure != null) {
                        throw failure instanceof CompletionException c ? c : new CompletionException(failure);
                    }
                    return body.bytes();
                });
    }

    /** A body as it is read: its bytes up to the limit; past it, only counted. */
    private static final class Body {
        private final long limit;
        private final ByteStringBuilder bytes = ByteString.createBuilder();
        private long size;

        Body(long limit) {
            this.limit = limit;
        }

        /** Takes the next chunk; false once past {@link #DISCARD_LIMIT_BYTES} (read no more). */
        boolean add(ByteString chunk) {
            size += chunk.size();
            if (size <= limit) {
                bytes.append(chunk);
            }
            return size <= DISCARD_LIMIT_BYTES;
        }

        boolean tooLarge() {
            return size > limit;
        }

        byte[] bytes() {
            return bytes.result().toArray();
        }
    }

    private HttpResponse bodyTooLarge() {
        return HttpReplies.refusal(
                Refusal.BODY_TOO_LARGE, "Request body exceeds " + settings.maxBodyBytes() + " bytes");
    }

    /** The rest of the body may still come: this connection is done. */
    private HttpResponse bodyTooSlow() {
        long millis = settings.connections().bodyTimeout().toMillis();
        return HttpReplies.refusal(Refusal.BODY_TOO_SLOW, "Request body not complete within " + millis + " ms")
                .addHeader(Connection.create("close"));
    }

    private CompletionStage<HttpResponse> handleBody(HttpRequest http, byte[] body, Principal principal) {
        McpRequest request;
        try {
            boolean onSession = LegacyRoutes.sessionId(http).isPresent();
            MessageIntake.Incoming incoming = intake.read(
                    body,
                    onSession, // a 2025-11-25 client posts its responses to the server's requests on its session
                    onSession,
                    EdgeChecks.header(http, "mcp-protocol-version")
                            .map(HttpHeader::value)
                            .map(String::trim)
                            .orElse(null));
            if (incoming instanceof MessageIntake.Unreadable unreadable) {
                throw unreadable.error();
            }
            if (incoming instanceof MessageIntake.ClientAnswer answer) {
                return legacy.answer(http, answer.response(), principal.id());
            }
            MessageIntake.Message read = (MessageIntake.Message) incoming;
            JsonRpc.Message message = read.message();
            if (read.legacy()) {
                // a 2025 message names its target only in the body, so its scopes are checked here
                java.util.Optional<HttpResponse> refused = authorization.refuseByBody(principal, message);
                return refused.isPresent()
                        ? done(refused.get())
                        : legacy.post(
                                http,
                                message,
                                principal.id(),
                                reply -> authorization.visible(
                                        principal, message.method(), reply)); // lists trimmed by scope
            }
            if (message.isNotification()) {
                // Core 2026-07-28 defines no client notifications over HTTP; accept and ignore.
                return done(HttpReplies.refusal(Refusal.NOTIFICATION_ACCEPTED, null));
            }
            EdgeChecks.checkVersionHeader(http, message.params());
            request = McpRequest.from(message, principal).withQuotaPrincipal(quotaPrincipals.of(http, principal.id()));
            checks.checkHeaders(http, request);
        } catch (McpException e) {
            observer.refusedAtEdge("invalid_message");
            return done(HttpReplies.json(McpReply.Error.atGate(JsonRpc.idOf(body), e)));
        }
        boolean listen = request.method().equals(Methods.SUBSCRIPTIONS_LISTEN);
        if (listen || (request.wantsNotifications() && EdgeChecks.acceptsEventStream(http))) {
            Cancellation cancellation = new Cancellation();
            McpRequest admitted = request;
            McpReply reply = observer.observeStream(http, request, () -> pipeline.stream(admitted, cancellation));
            return done(
                    reply instanceof McpReply.Stream stream
                            ? replies.eventStream(
                                    new McpReply.Stream(
                                            stream.notifications(),
                                            stream.end().thenApply(end -> authorization.visible(admitted, end))),
                                    cancellation)
                            : HttpReplies.json(authorization.visible(request, (McpReply.Final) reply)));
        }
        McpRequest admitted = request;
        return observer.observe(http, request, () -> pipeline.handle(admitted))
                .thenApply(reply -> HttpReplies.json(authorization.visible(admitted, reply)));
    }

    private static <T> CompletionStage<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
