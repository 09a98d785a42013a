package dev.parley.actors.internal.pipeline;

import dev.parley.runtime.internal.wire.JsonRpc.Notification;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The 2025-11-25 era's side of the pipeline, behind one door: sessions, the calls whose questions
 * travel as server→client requests, those requests and their answers, the event ids of resumable
 * call streams, cancellations, and a session's notification stream. Everything else a 2025 request
 * needs is the shared pipeline's ({@link McpPipeline#handle}); transports reach this era only
 * through here ({@link McpPipeline#legacy}).
 */
public final class LegacyEra {
    private final LegacySessions sessions;
    private final LegacyCalls calls;
    private final ServerRequestBridge serverRequests;
    private final StreamCursors streamCursors;
    private final LegacyCancellations cancellations;
    private final ListenRequests listen;

    LegacyEra(
            LegacySessions sessions,
            LegacyCalls calls,
            ServerRequestBridge serverRequests,
            StreamCursors streamCursors,
            LegacyCancellations cancellations,
            ListenRequests listen) {
        this.sessions = sessions;
        this.calls = calls;
        this.serverRequests = serverRequests;
        this.streamCursors = streamCursors;
        this.cancellations = cancellations;
        this.listen = listen;
    }

    /** Sessions: {@code initialize}, what a session answers itself, the end of a session. */
    public LegacySessions sessions() {
        return sessions;
    }

    /** Requests that may ask: their questions as server→client requests, on any transport. */
    public LegacyCalls calls() {
        return calls;
    }

    /** Server→client requests for the questions of waiting calls, and their answers. */
    public ServerRequestBridge serverRequests() {
        return serverRequests;
    }

    /** Event ids of resumable call streams. */
    public StreamCursors streamCursors() {
        return streamCursors;
    }

    /** {@code notifications/cancelled} for requests over HTTP, on whichever node they run. */
    public LegacyCancellations cancellations() {
        return cancellations;
    }

    /**
     * The server notifications of a session's GET stream: every list change, and the updates of
     * the resources the session subscribed to.
     */
    public Source<Notification, NotUsed> sessionNotifications(String sessionId, String principal) {
        return listen.forSession(sessionId, principal, sessions);
    }
}
