package dev.parley.persistence.internal;

import dev.parley.persistence.JournalDatabase;
import java.io.NotSerializableException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Reads calls and tasks out of the journal tables (pekko-persistence-jdbc's {@code event_journal})
 * for the operations console: pages of entities by the status their latest event gives them,
 * newest first, and one entity's events with the time each was written. Nothing is kept in memory.
 */
public final class JournalBrowser {
    /** Rows read per query while a page is filled (filters on the first event run in Java). */
    private static final int CHUNK = 200;
    /** A page never scans more rows than this, so a filter that matches nothing stays cheap. */
    private static final int MAX_SCANNED = 5_000;

    private final JournalDatabase database;
    private final JournalEventSerializer serializer = new JournalEventSerializer();

    public JournalBrowser(JournalDatabase database) {
        this.database = database;
    }

    /** One stored event: its sequence number, when it was written (epoch ms), its type name and the event. */
    public record StoredEvent(long sequenceNumber, long writtenAt, String manifest, JournalEvent event) {}

    /**
     * An entity as a list shows it: its first event (which says what it is: {@code CallStarted} or
     * {@code TaskCreated}), and its latest event's type name (which says where it stands).
     * {@code ordering} is the first event's global position, the page cursor.
     */
    public record EntityRow(
            String entityId,
            long ordering,
            StoredEvent first,
            String latestManifest,
            long latestWrittenAt,
            long events) {}

    /** A page and the cursor of the next one (empty on the last page). */
    public record Page(List<EntityRow> rows, OptionalLong next) {}

    /**
     * Entities whose persistence id starts with {@code prefix} (e.g. {@code "Task|"}), whose latest
     * event is one of {@code latestManifests} (any when empty), first written at or before
     * {@code startedAtOrBefore} (epoch ms), that {@code filter} accepts; newest first, starting
     * below {@code before} (a previous page's {@link Page#next()}, or {@link Long#MAX_VALUE}).
     */
    public Page page(
            String prefix,
            Set<String> latestManifests,
            long startedAtOrBefore,
            long before,
            int limit,
            Predicate<EntityRow> filter) {
        List<EntityRow> rows = new ArrayList<>();
        long cursor = before;
        int scanned = 0;
        while (rows.size() < limit && scanned < MAX_SCANNED) {
            List<EntityRow> chunk = chunk(prefix, latestManifests, startedAtOrBefore, cursor);
            for (EntityRow row : chunk) {
                scanned++;
                cursor = row.ordering();
                if (row.first() != null && filter.test(row)) {
                    rows.add(row);
                    if (rows.size() == limit) {
                        return new Page(rows, OptionalLong.of(cursor));
                    }
                }
            }
            if (chunk.size() < CHUNK) {
                return new Page(rows, OptionalLong.empty());
            }
        }
        return new Page(rows, OptionalLong.of(cursor));
    }

    /** Every event of {@code persistenceId} in order; empty when there is none (unknown, or deleted by retention). */
    public List<StoredEvent> events(String persistenceId) {
        String sql =
                "SELECT " + col("sequence_number") + ", " + col("write_timestamp") + ", " + col("event_ser_manifest")
                        + ", " + col("event_payload") + ", " + col("event_ser_id") + " FROM " + col("event_journal")
                        + " WHERE " + col("persistence_id") + " = ? AND " + col("deleted") + " = FALSE ORDER BY "
                        + col("sequence_number");
        try (Connection connection = connect();
                PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, persistenceId);
            List<StoredEvent> events = new ArrayList<>();
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    decode(rows.getLong(1), rows.getLong(2), rows.getString(3), rows.getBytes(4), rows.getInt(5))
                            .ifPresent(events::add);
                }
            }
            return events;
        } catch (SQLException e) {
            throw new IllegalStateException("reading the journal failed: " + e.getMessage(), e);
        }
    }

    private List<EntityRow> chunk(String prefix, Set<String> latestManifests, long startedAtOrBefore, long before) {
        String id = col("persistence_id");
        String sequence = col("sequence_number");
        String manifest = col("event_ser_manifest");
        String table = col("event_journal");
        String placeholders =
                String.join(", ", latestManifests.stream().map(m -> "?").toList());
        String sql = "SELECT f." + id + ", f." + col("ordering") + ", f." + col("write_timestamp") + ", f." + manifest
                + ", f." + col("event_payload") + ", f." + col("event_ser_id") + ", l." + manifest + ", l."
                + col("write_timestamp")
                + ", l." + sequence
                + " FROM " + table + " f JOIN " + table + " l ON l." + id + " = f." + id
                + " WHERE f." + id + " LIKE ? AND f." + sequence + " = 1 AND f." + col("ordering") + " < ?"
                + " AND f." + col("write_timestamp") + " <= ?"
                + " AND l." + sequence + " = (SELECT MAX(m." + sequence + ") FROM " + table + " m WHERE m." + id
                + " = f." + id + ")"
                + (latestManifests.isEmpty() ? "" : " AND l." + manifest + " IN (" + placeholders + ")")
                + " ORDER BY f." + col("ordering") + " DESC LIMIT " + CHUNK;
        try (Connection connection = connect();
                PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, prefix + "%");
            query.setLong(2, before);
            query.setLong(3, startedAtOrBefore);
            int index = 4;
            for (String latest : latestManifests) {
                query.setString(index++, latest);
            }
            List<EntityRow> rows = new ArrayList<>();
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    long ordering = result.getLong(2);
                    // A first event that is not ours (another serializer) gives a row without it: skipped, the cursor
                    // moves on.
                    StoredEvent first = decode(
                                    1, result.getLong(3), result.getString(4), result.getBytes(5), result.getInt(6))
                            .orElse(null);
                    rows.add(new EntityRow(
                            result.getString(1).substring(prefix.length()),
                            ordering,
                            first,
                            result.getString(7),
                            result.getLong(8),
                            result.getLong(9)));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("reading the journal failed: " + e.getMessage(), e);
        }
    }

    /** Our events only; a row another serializer wrote, or one that no longer reads, is left out. */
    private Optional<StoredEvent> decode(
            long sequence, long writtenAt, String manifest, byte[] payload, int serializerId) {
        if (serializerId != JournalEventSerializer.IDENTIFIER) {
            return Optional.empty();
        }
        try {
            return Optional.of(new StoredEvent(
                    sequence, writtenAt, manifest, (JournalEvent) serializer.fromBinary(payload, manifest)));
        } catch (NotSerializableException | ClassCastException e) {
            return Optional.empty();
        }
    }

    private String col(String name) {
        return database.identifier(name);
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
    }
}
