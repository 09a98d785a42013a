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

    /**
     * Entity ids (after the {@code prefix}, e.g. {@code "Task|"}) whose latest event is not one of
     * {@code restingManifests}: entities with work in progress that nobody may ask for.
     */
    public List<String> busyEntityIds(String prefix, Set<String> restingManifests) {
        String id = database.identifier("persistence_id");
        String sequence = database.identifier("sequence_number");
        String table = database.identifier("event_journal");
        String placeholders =
                String.join(", ", restingManifests.stream().map(m -> "?").toList());
        String sql = "SELECT e." + id + " FROM " + table + " e WHERE e." + id + " LIKE ? AND e." + sequence
                + " = (SELECT MAX(l." + sequence + ") FROM " + table + " l WHERE l." + id + " = e." + id + ")"
                + (restingManifests.isEmpty()
                        ? ""
                        : " AND e." + database.identifier("event_ser_manifest") + " NOT IN (" + placeholders + ")");
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, prefix + "%");
            int index = 2;
            for (String manifest : restingManifests) {
                query.setString(index++, manifest);
            }
            List<String> ids = new ArrayList<>();
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1).substring(prefix.length()));
                }
            }
            return ids;
        } catch (SQLException e) {
            throw new IllegalStateException("querying the journal failed: " + e.getMessage(), e);
        }
    }
}
