package dev.parley.persistence.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;

/**
 * The journal of one 2025-11-25 session ({@code initialize} … DELETE). What a session remembers
 * between requests lives here, so any node can serve any request of it. Same evolution rules as
 * {@link CallEvent}.
 */
public sealed interface SessionEvent extends JournalEvent {

    Instant at();

    /** Whether a session answers, as its latest event tells. */
    enum Status {
        OPEN,
        ENDED
    }

    /** Every session event type, its stored name and the session's status once it is the latest event. */
    List<JournalEvent.Type<Status>> TYPES = List.of(
            new JournalEvent.Type<>(SessionOpened.class, "parley.session.opened.v1", Status.OPEN),
            new JournalEvent.Type<>(LogLevelSet.class, "parley.session.log-level-set.v1", Status.OPEN),
            new JournalEvent.Type<>(ResourceSubscribed.class, "parley.session.resource-subscribed.v1", Status.OPEN),
            new JournalEvent.Type<>(ResourceUnsubscribed.class, "parley.session.resource-unsubscribed.v1", Status.OPEN),
            new JournalEvent.Type<>(SessionEnded.class, "parley.session.ended.v1", Status.ENDED));

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
