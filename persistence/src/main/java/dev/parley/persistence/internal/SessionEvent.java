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

    /** Every session event type and the name its rows are stored under (never changed: journals hold it). */
    enum Type implements JournalEvent.Type {
        OPENED(SessionOpened.class, "parley.session.opened.v1"),
        LOG_LEVEL_SET(LogLevelSet.class, "parley.session.log-level-set.v1"),
        RESOURCE_SUBSCRIBED(ResourceSubscribed.class, "parley.session.resource-subscribed.v1"),
        RESOURCE_UNSUBSCRIBED(ResourceUnsubscribed.class, "parley.session.resource-unsubscribed.v1"),
        ENDED(SessionEnded.class, "parley.session.ended.v1");

        private final Class<? extends SessionEvent> eventClass;
        private final String storedName;

        Type(Class<? extends SessionEvent> eventClass, String storedName) {
            this.eventClass = eventClass;
            this.storedName = storedName;
        }

        @Override
        public Class<? extends SessionEvent> eventClass() {
            return eventClass;
        }

        @Override
        public String storedName() {
            return storedName;
        }
    }

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
