package dev.parley.persistence.internal;

import dev.parley.persistence.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the journal from growing without bound: deletes every call whose last event is older
 * than the retention time. Such a call has either ended, or waited longer than any
 * {@code requestState} lives, so no retry can reach it any more; this is why the retention
 * time may not be shorter than the state lifetime. {@link #abandoned} deletes, sooner, only the
 * entities that did not end: calls left waiting for answers once their {@code requestState}
 * expired.
 */
public final class JournalRetention {
    private static final Logger log = LoggerFactory.getLogger(JournalRetention.class);

    /** Entities per delete: a few hundred index look-ups, so a journal write waits milliseconds at most. */
    private static final int IDS_PER_DELETE = 200;

    private final JournalDatabase database;
    private final String persistenceIdPrefix;
    private final Duration retention;
    private final Clock clock;
    /** Entities whose latest event has one of these manifests are kept; empty: none is. */
    private final Set<String> endedManifests;

    /** @param persistenceIdPrefix e.g. {@code "ToolCall|"}: only these entities are purged */
    public JournalRetention(JournalDatabase database, String persistenceIdPrefix, Duration retention, Clock clock) {
        this(database, persistenceIdPrefix, retention, clock, Set.of());
    }

    private JournalRetention(
            JournalDatabase database,
            String persistenceIdPrefix,
            Duration retention,
            Clock clock,
            Set<String> endedManifests) {
        this.database = database;
        this.persistenceIdPrefix = persistenceIdPrefix;
        this.retention = retention;
        this.clock = clock;
        this.endedManifests = endedManifests;
    }

    /** Purges the entities under the prefix idle for {@code retention} whose latest event is none of {@code endedManifests}. */
    public static JournalRetention abandoned(
            JournalDatabase database,
            String persistenceIdPrefix,
            Duration retention,
            Set<String> endedManifests,
            Clock clock) {
        return new JournalRetention(database, persistenceIdPrefix, retention, clock, Set.copyOf(endedManifests));
    }

    /**
     * Deletes the events (and snapshots) of expired calls; returns how many events went. The
     * expired entities are found by a read, which takes no lock, then deleted a few at a time:
     * one delete that searched the whole journal held SQLite's one write lock for as long as the
     * search took (seconds on a large journal), and every journal write waited behind it.
     */
    public int purge() {
        long cutoff = clock.millis() - retention.toMillis();
        try (Connection connection =
                DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
            List<String> expired = expiredIds(connection, cutoff);
            int deleted = 0;
            for (int from = 0; from < expired.size(); from += IDS_PER_DELETE) {
                deleted += delete(
                        connection, expired.subList(from, Math.min(expired.size(), from + IDS_PER_DELETE)), cutoff);
            }
            if (deleted > 0) {
                log.info(
                        "retention removed {} journal events of {}entities under {} idle since before {}",
                        deleted,
                        endedManifests.isEmpty() ? "" : "unfinished ",
                        persistenceIdPrefix,
                        java.time.Instant.ofEpochMilli(cutoff));
            }
            return deleted;
        } catch (SQLException e) {
            throw new IllegalStateException("journal retention failed: " + e.getMessage(), e);
        }
    }

    /** The entities under the prefix idle since {@code cutoff} whose latest event is none of {@code endedManifests}. */
    private List<String> expiredIds(Connection connection, long cutoff) throws SQLException {
        String id = database.identifier("persistence_id");
        String table = database.identifier("event_journal");
        String sequence = database.identifier("sequence_number");
        String notEnded = endedManifests.isEmpty()
                ? ""
                : " AND " + id + " NOT IN (SELECT e." + id + " FROM " + table + " e WHERE e." + id + " LIKE ? AND e."
                        + sequence + " = (SELECT MAX(l." + sequence + ") FROM " + table + " l WHERE l." + id + " = e."
                        + id + ") AND e." + database.identifier("event_ser_manifest") + " IN ("
                        + String.join(
                                ", ", endedManifests.stream().map(m -> "?").toList()) + "))";
        String expired = "SELECT " + id + " FROM " + table + " WHERE " + id + " LIKE ?" + idleSince() + notEnded;
        List<String> ids = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(expired)) {
            bind(select, cutoff);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
        }
        return ids;
    }

    /**
     * Deletes the snapshots and events of {@code ids} that are still idle since {@code cutoff} (the
     * read that found them took no lock), each in a short write of its own; returns the events deleted.
     */
    private int delete(Connection connection, List<String> ids, long cutoff) throws SQLException {
        String id = database.identifier("persistence_id");
        String table = database.identifier("event_journal");
        String marks = String.join(", ", ids.stream().map(each -> "?").toList());
        String stillIdle = id + " IN (SELECT " + id + " FROM " + table + " WHERE " + id + " IN (" + marks + ")"
                + idleSince() + ")";
        try (PreparedStatement snapshots = connection.prepareStatement(
                        "DELETE FROM " + database.identifier("snapshot") + " WHERE " + stillIdle);
                PreparedStatement events =
                        connection.prepareStatement("DELETE FROM " + table + " WHERE " + stillIdle)) {
            bindIds(snapshots, ids, cutoff);
            snapshots.executeUpdate();
            bindIds(events, ids, cutoff);
            return events.executeUpdate();
        }
    }

    /** Groups the rows by entity and keeps those whose last write is before the cutoff (bound next). */
    private String idleSince() {
        return " GROUP BY " + database.identifier("persistence_id") + " HAVING MAX("
                + database.identifier("write_timestamp") + ") < ?";
    }

    private static void bindIds(PreparedStatement statement, List<String> ids, long cutoff) throws SQLException {
        int index = 1;
        for (String each : ids) {
            statement.setString(index++, each);
        }
        statement.setLong(index, cutoff);
    }

    private void bind(PreparedStatement statement, long cutoff) throws SQLException {
        int index = 1;
        statement.setString(index++, persistenceIdPrefix + "%");
        statement.setLong(index++, cutoff);
        if (!endedManifests.isEmpty()) {
            statement.setString(index++, persistenceIdPrefix + "%");
            for (String manifest : endedManifests) {
                statement.setString(index++, manifest);
            }
        }
    }
}
