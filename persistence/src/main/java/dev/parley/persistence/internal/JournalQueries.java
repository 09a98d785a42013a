package dev.parley.persistence.internal;

import dev.parley.persistence.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Plain-SQL questions about the journal that Pekko's read journal cannot answer cheaply. */
public final class JournalQueries {
    private final JournalDatabase database;

    public JournalQueries(JournalDatabase database) {
        this.database = database;
    }

    /** One journal row's place, entity and kind: what the journal-backed gauges follow. */
    public record EventRow(long ordering, String persistenceId, long sequenceNumber, String manifest) {}

    /** The highest ordering in the journal; 0 when it is empty. */
    public long highestOrdering() {
        String sql = "SELECT MAX(" + database.identifier("ordering") + ") FROM " + database.identifier("event_journal");
        try (Connection connection = connect();
                PreparedStatement query = connection.prepareStatement(sql);
                ResultSet rows = query.executeQuery()) {
            return rows.next() ? rows.getLong(1) : 0;
        } catch (SQLException e) {
            throw new IllegalStateException("querying the journal failed: " + e.getMessage(), e);
        }
    }

    /**
     * The latest row of each entity under {@code prefix} whose latest event is one of {@code
     * manifests}. The manifest is checked before the latest sequence number is looked up, so the
     * cost follows the rows of those kinds, not the whole journal.
     */
    public List<EventRow> latestRowsOf(String prefix, Set<String> manifests) {
        if (manifests.isEmpty()) {
            return List.of();
        }
        String id = database.identifier("persistence_id");
        String sequence = database.identifier("sequence_number");
        String manifest = database.identifier("event_ser_manifest");
        String table = database.identifier("event_journal");
        String sql = "SELECT e." + database.identifier("ordering") + ", e." + id + ", e." + sequence + ", e."
                + manifest + " FROM " + table + " e WHERE e." + id + " LIKE ? AND e." + manifest + " IN ("
                + String.join(", ", manifests.stream().map(m -> "?").toList()) + ") AND e." + sequence
                + " = (SELECT MAX(l." + sequence + ") FROM " + table + " l WHERE l." + id + " = e." + id + ")";
        try (Connection connection = connect();
                PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, prefix + "%");
            int index = 2;
            for (String m : manifests) {
                query.setString(index++, m);
            }
            return eventRows(query);
        } catch (SQLException e) {
            throw new IllegalStateException("querying the journal failed: " + e.getMessage(), e);
        }
    }

    /** Up to {@code limit} rows written after {@code ordering}, in ordering order. */
    public List<EventRow> rowsAfter(long ordering, int limit) {
        String order = database.identifier("ordering");
        String sql = "SELECT " + order + ", " + database.identifier("persistence_id") + ", "
                + database.identifier("sequence_number") + ", " + database.identifier("event_ser_manifest")
                + " FROM " + database.identifier("event_journal") + " WHERE " + order + " > ? ORDER BY " + order
                + " LIMIT ?";
        try (Connection connection = connect();
                PreparedStatement query = connection.prepareStatement(sql)) {
            query.setLong(1, ordering);
            query.setInt(2, limit);
            return eventRows(query);
        } catch (SQLException e) {
            throw new IllegalStateException("querying the journal failed: " + e.getMessage(), e);
        }
    }

    private static List<EventRow> eventRows(PreparedStatement query) throws SQLException {
        List<EventRow> found = new ArrayList<>();
        try (ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                found.add(new EventRow(rows.getLong(1), rows.getString(2), rows.getLong(3), rows.getString(4)));
            }
        }
        return found;
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
    }
}
