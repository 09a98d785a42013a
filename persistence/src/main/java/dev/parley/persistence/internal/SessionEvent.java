package dev.parley.persistence.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * The journal of one 2025-11-25 session ({@code initialize} … DELETE). What a session remembers
 * between requests lives here, so any node can serve any request of it. Same evolution rules as
 * {@link CallEvent}.
 */
public sealed interface SessionEvent extends JournalEvent {

    Instant at();

    /** {@code initialize} succeeded: the negotiated version and what the client declared. */
    record SessionOpened(
            String principal, String protocolVersion, ObjectNode capabilities, ObjectNode clientInfo, Instant at)
            implements SessionEvent {}

    /** {@code logging/setLevel}. */
    record LogLevelSet(String level, Instant at) implements SessionEvent {}

    /** {@code resources/subscribe}. */
    record ResourceSubscribed(String uri, Instant at) implements SessionEvent {}

    /** {@code resources/unsubscribe}. */
    record ResourceUnsubscribed(String uri, Instant at) implements SessionEvent {}

    /** DELETE on the session: from now on its id is answered 404. */
    record SessionEnded(Instant at) implements SessionEvent {}
}
