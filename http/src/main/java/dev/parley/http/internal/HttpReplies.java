package dev.parley.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.http.internal.ops.RequestObserver;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.apache.pekko.util.ByteStringBuilder;

/**
 * Renders pipeline replies as HTTP: a final reply as one JSON body with the status from
 * {@link HttpStatusTable}; a stream as SSE (notifications, then the final response, which ends
 * it). A client that closes a stream before its end cancels the request.
 */
public final class HttpReplies {
    private static final ByteString KEEP_ALIVE = ByteString.fromString(": keep-alive\n\n");
    private static final byte[] INTERNAL_ERROR =
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Internal error\"}}"
                    .getBytes(StandardCharsets.UTF_8);

    private final Duration keepAlive;

    HttpReplies(Duration keepAlive) {
        this.keepAlive = keepAlive;
    }

    static HttpResponse json(McpReply.Final reply) {
        return render(HttpStatusTable.statusOf(reply), reply.response());
    }

    /** A refusal of the HTTP layer; those with a body carry an id-less error, -32600 unless the row names a code. */
    public static HttpResponse refusal(HttpStatusTable.Refusal refusal, String message) {
        StatusCode status = HttpStatusTable.statusOf(refusal);
        if (message == null) {
            return HttpResponse.create().withStatus(status);
        }
        int code = refusal.code != null ? refusal.code : ErrorCodes.INVALID_REQUEST;
        return json(status, JsonRpc.Response.error((JsonNode) null, new ErrorObject(code, message, null)));
    }

    /**
     * Comment frames keep a quiet stream alive: a write is how a closed connection is noticed. When
     * the stream ends before the final reply, {@code cancellation} fires.
     */
    HttpResponse eventStream(McpReply.Stream stream, Cancellation cancellation) {
        StreamEnd end = new StreamEnd();
        end.onEnd(() -> {
            if (!stream.end().toCompletableFuture().isDone()) {
                cancellation.cancel();
            }
        });
        return eventStream(
                stream.notifications()
                        .<Object>map(notification -> notification)
                        .concat(Source.completionStage(stream.end()).map(McpReply.Final::response)),
                end);
    }

    /** Any JSON-RPC messages as an SSE response, one event each, with keep-alive comments between. */
    HttpResponse eventStream(Source<?, NotUsed> messages) {
        return eventStream(messages, new StreamEnd());
    }

    private HttpResponse eventStream(Source<?, NotUsed> messages, StreamEnd end) {
        RequestObserver.SentMessages sent = new RequestObserver.SentMessages();
        Source<ByteString, NotUsed> frames = messages.map(message -> sentFrame(sent, message))
                .keepAlive(keepAlive, () -> KEEP_ALIVE)
                .watchTermination((notUsed, terminated) -> {
                    // direct: a plain continuation on Pekko's stage would start a thread per stream
                    PekkoStages.direct(terminated).whenComplete((ok, failure) -> end.ended());
                    return NotUsed.getInstance();
                });
        return eventStream(sent, end, frames);
    }

    /**
     * An SSE response fed through the {@link SseFeed.Queue} that {@code attach} gets once the
     * response's stream runs (up to {@code capacity} messages wait for a slow reader); {@code ended}
     * runs when the stream stops, however it stops.
     */
    HttpResponse eventFeed(int capacity, Consumer<SseFeed.Queue> attach, Runnable ended) {
        RequestObserver.SentMessages sent = new RequestObserver.SentMessages();
        StreamEnd end = new StreamEnd();
        end.onEnd(ended);
        Source<ByteString, NotUsed> frames = Source.fromGraph(
                        new SseFeed(capacity, keepAlive, KEEP_ALIVE, message -> sentFrame(sent, message), end::ended))
                .mapMaterializedValue(queue -> {
                    attach.accept(queue);
                    return NotUsed.getInstance();
                });
        return eventStream(sent, end, frames);
    }

    private static ByteString sentFrame(RequestObserver.SentMessages sent, Object message) {
        sent.sent(message instanceof SseEvent event ? event.message() : message);
        return sseFrame(message);
    }

    private static HttpResponse eventStream(
            RequestObserver.SentMessages sent, StreamEnd end, Source<ByteString, NotUsed> frames) {
        return HttpResponse.create()
                .addAttribute(RequestObserver.SENT_MESSAGES, sent)
                .addAttribute(StreamEnd.ATTRIBUTE, end)
                .addHeader(RawHeader.create("X-Accel-Buffering", "no"))
                .addHeader(RawHeader.create("Cache-Control", "no-cache"))
                .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(), frames));
    }

    /**
     * One SSE event with an {@code id} (null: none) and a {@code retry} hint in ms (null: none);
     * {@code message} null is a priming event (id and empty data, spec 2025-11-25 §3.2).
     */
    record SseEvent(String id, Long retryMs, Object message) {}

    /** The frame's bytes, the JSON written straight into them (no string of it is made). */
    private static ByteString sseFrame(Object message) {
        SseEvent event = message instanceof SseEvent sse ? sse : null;
        Object data = event != null ? event.message() : message;
        ByteStringBuilder frame = ByteString.createBuilder();
        if (data != null) {
            utf8(frame, "event: message\n");
        }
        if (event != null && event.id() != null) {
            utf8(frame, "id: " + event.id() + "\n");
        }
        if (event != null && event.retryMs() != null) {
            utf8(frame, "retry: " + event.retryMs() + "\n");
        }
        utf8(frame, "data: ");
        if (data != null) {
            Json.write(frame.asOutputStream(), data);
        }
        utf8(frame, "\n\n");
        return frame.result();
    }

    private static void utf8(ByteStringBuilder frame, String text) {
        frame.putBytes(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A JSON body that carries its typed response too, for {@code RequestObserver.watch} (2025-11-25
     * requests and the HTTP layer's refusals), which reads the request's outcome from it. The
     * 2026-07-28 pipeline's replies ({@link #json(McpReply.Final)}) are observed before rendering.
     */
    static HttpResponse json(StatusCode status, JsonRpc.Response body) {
        return render(status, body).addAttribute(RequestObserver.RESPONSE, body);
    }

    private static HttpResponse render(StatusCode status, JsonRpc.Response body) {
        byte[] bytes;
        try {
            bytes = Json.MAPPER.writeValueAsBytes(body);
        } catch (Exception e) {
            status = StatusCodes.INTERNAL_SERVER_ERROR;
            bytes = INTERNAL_ERROR;
        }
        HttpResponse response = HttpResponse.create()
                .withStatus(status)
                .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, bytes));
        // A refusal over a per-principal cap (429) or while the journal is away (503) says when to try again.
        JsonNode retryAfter = body.error() == null || body.error().data() == null
                ? null
                : body.error().data().get("retryAfterSeconds");
        if ((status.intValue() == 429 || status.intValue() == 503)
                && retryAfter != null
                && retryAfter.canConvertToLong()) {
            response = response.addHeader(
                    RawHeader.create("Retry-After", Long.toString(Math.max(1, retryAfter.asLong()))));
        }
        return response;
    }
}
