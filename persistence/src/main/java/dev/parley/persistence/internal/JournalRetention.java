package dev.parley.persistence.internal;

import dev.parley.persistence.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the journal from growing without bound: deletes every call whose last event is older
 * than the retention time. Such a call has either ended, or waited longer than any
 * {@code requestState} lives, so no retry can reach it any more; this is why the retention
 * time may not be shorter than the state lifetime.
 */
public final class JournalRetention {
    private static final Logger log = LoggerFactory.getLogger(JournalRetention.class);

    private final JournalDatabase database;
    private final String persistenceIdPrefix;
    private final Duration retention;
    private final Clock clock;

    /** @param persistenceIdPrefix e.g. {@code "ToolCall|"}: only these entities are purged */
    public JournalRetention(JournalDatabase database, String persistenceIdPrefix, Duration retention, Clock clock) {
        this.database = database;
        this.persistenceIdPrefix = persistenceIdPrefix;
        this.retention = retention;
        this.clock = clock;
    }

    /** Deletes the events (and snapshots) of expired calls; returns how many events went. */
    public int purge() {
        long cutoff = clock.millis() - retention.toMillis();
        String id = database.identifier("persistence_id");
        String expired = "SELECT " + id + " FROM " + database.identifier("event_journal") + " WHERE " + id
                + " LIKE ? GROUP BY " + id + " HAVING MAX(" + database.identifier("write_timestamp") + ") < ?";
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement snapshots = connection.prepareStatement(
                        "DELETE FROM " + database.identifier("snapshot") + " WHERE " + id + " IN (" + expired + ")");
                PreparedStatement events = connection.prepareStatement("DELETE FROM "
                        + database.identifier("event_journal") + " WHERE " + id + " IN (" + expired + ")")) {
            snapshots.setString(1, persistenceIdPrefix + "%");
            snapshots.setLong(2, cutoff);
            snapshots.executeUpdate();
            events.setString(1, persistenceIdPrefix + "%");
            events.setLong(2, cutoff);
            int deleted = events.executeUpdate();
            if (deleted > 0) {
                log.info(
                        "retention removed {} journal events of calls idle since before {}",
                        deleted,
                        java.time.Instant.ofEpochMilli(cutoff));
            }
            return deleted;
        } catch (SQLException e) {
            throw new IllegalStateException("journal retention failed: " + e.getMessage(), e);
        }
    }
}
