package dev.parley.http.internal;

import dev.parley.actors.internal.pipeline.LegacyCalls;
import dev.parley.actors.internal.pipeline.LegacyCancellations;
import dev.parley.actors.internal.pipeline.StreamCursors;
import dev.parley.http.HttpSettings;
import dev.parley.runtime.internal.engine.Cancellation;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;

/**
 * The SSE streams of 2025-11-25 calls: every event carries an id (a sealed {@link StreamCursors}
 * cursor), the first is a priming event (id, {@code retry}, empty data) for sessions on
 * 2025-11-25, and a stream still open after {@code poll-after} ends its connection (SSE polling,
 * spec 2025-11-25 §3.2): the client reconnects with {@code GET} and {@code Last-Event-ID}, on any
 * node. Ending the connection ends the waiting on this node, never the call.
 */
final class CallStreams {
    private static final int STREAM_BUFFER = 256;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final StreamCursors cursors;
    private final LegacyCancellations cancellations;
    private final HttpReplies replies;
    private final Materializer materializer;
    private final Duration pollAfter;
    private final long retryMs;

    /** What a stream carries: {@code run} fires on the client's cancel, {@code stop} when the connection ends. */
    @FunctionalInterface
    interface Call {
        CompletionStage<Void> start(LegacyCalls.Events events, Cancellation run, Cancellation stop);
    }

    CallStreams(
            StreamCursors cursors,
            LegacyCancellations cancellations,
            HttpReplies replies,
            Materializer materializer,
            HttpSettings.LegacyStreams settings) {
        this.cursors = cursors;
        this.cancellations = cancellations;
        this.replies = replies;
        this.materializer = materializer;
        this.pollAfter = settings.pollAfter();
        this.retryMs = settings.retry().toMillis();
    }

    /**
     * A stream that starts at {@code start} and carries what {@code call} sends. A
     * {@code notifications/cancelled} for the request, posted to any node, cancels the call's run
     * and ends the stream without a response.
     */
    HttpResponse open(
            String principal, String sessionId, String protocolVersion, StreamCursors.Cursor start, Call call) {
        Cancellation awaiting = new Cancellation();
        Connection connection = new Connection(awaiting, principal, sessionId);
        // Older clients cannot parse an event with empty data (spec 2025-11-25 §3.2): they get ids only.
        if (protocolVersion.compareTo("2025-11-25") >= 0) {
            connection.prime(start);
        }
        Cancellable poll = pollAfter.isZero()
                ? null
                : materializer
                        .system()
                        .scheduler()
                        .scheduleOnce(pollAfter, connection::close, materializer.executionContext());
        Cancellation cancelled = new Cancellation();
        Cancellation finished = new Cancellation();
        cancelled.onCancel(connection::close);
        cancellations.track(sessionId, principal, start.requestId(), finished, cancelled);
        call.start(connection, cancelled, awaiting).whenComplete((done, failure) -> {
            connection.close();
            finished.cancel();
        });
        // The feed runs inside the HTTP connection's own stream (no actor of its own, no hand-over between
        // two streams for each event); what is sent before the response is rendered waits in the connection.
        return replies.eventFeed(STREAM_BUFFER, connection::attach, () -> {
            connection.close();
            if (poll != null) {
                poll.cancel();
            }
        });
    }

    /** One connection of a call stream; sending and closing are serialized, so nothing goes out after the end. */
    private final class Connection implements LegacyCalls.Events {
        private final Cancellation awaiting;
        private final String principal;
        private final String sessionId;
        private final String tag = HexFormat.of().toHexDigits(RANDOM.nextLong());
        private final List<HttpReplies.SseEvent> beforeAttach = new ArrayList<>();
        private SseFeed.Queue queue;
        private long sent;
        private boolean closed;

        Connection(Cancellation awaiting, String principal, String sessionId) {
            this.awaiting = awaiting;
            this.principal = principal;
            this.sessionId = sessionId;
        }

        /** The response's stream is running: what was sent meanwhile goes first. */
        synchronized void attach(SseFeed.Queue running) {
            queue = running;
            beforeAttach.forEach(running::offer);
            beforeAttach.clear();
            if (closed) {
                running.complete();
            }
        }

        synchronized void prime(StreamCursors.Cursor start) {
            offer(new HttpReplies.SseEvent(id(start), retryMs, null));
        }

        @Override
        public synchronized boolean send(Object message, StreamCursors.Cursor cursor) {
            if (closed) {
                return false;
            }
            offer(new HttpReplies.SseEvent(cursor.callId() == null ? null : id(cursor), null, message));
            return true;
        }

        /** Ends the connection: the call's response was sent, the poll interval passed, or the client left. */
        synchronized void close() {
            if (!closed) {
                closed = true;
                awaiting.cancel();
                if (queue != null) {
                    queue.complete();
                }
            }
        }

        private void offer(HttpReplies.SseEvent event) {
            if (queue == null) {
                beforeAttach.add(event);
            } else {
                queue.offer(event);
            }
        }

        private String id(StreamCursors.Cursor cursor) {
            return cursors.seal(cursor, principal, sessionId, tag + "-" + sent++);
        }
    }
}
