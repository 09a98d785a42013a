package dev.parley.persistence.internal;

import dev.parley.persistence.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * For each of {@code prefixes} (e.g. {@code "ToolCall|"}, {@code "Task|"}): how many entities
     * under it have their latest event (by sequence number) of each manifest. One pass over the
     * journal on one connection, however many prefixes: what the journal-backed gauges need,
     * counted by the database instead of shipping every id.
     */
    public Map<String, Map<String, Long>> latestManifestCounts(List<String> prefixes) {
        Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
        prefixes.forEach(prefix -> counts.put(prefix, new LinkedHashMap<>()));
        if (prefixes.isEmpty()) {
            return counts;
        }
        String id = database.identifier("persistence_id");
        String sequence = database.identifier("sequence_number");
        String manifest = database.identifier("event_ser_manifest");
        String table = database.identifier("event_journal");
        StringBuilder whichPrefix = new StringBuilder("CASE");
        for (int i = 0; i < prefixes.size(); i++) {
            whichPrefix.append(" WHEN e.").append(id).append(" LIKE ? THEN ").append(i);
        }
        whichPrefix.append(" END");
        String underAnyPrefix = String.join(
                " OR ", prefixes.stream().map(p -> "e." + id + " LIKE ?").toList());
        // The derived table names the prefix index, so both H2 and PostgreSQL can group by it.
        String sql = "SELECT latest.prefix_index, latest.manifest, COUNT(*) FROM (SELECT " + whichPrefix
                + " AS prefix_index, e." + manifest + " AS manifest FROM " + table + " e WHERE (" + underAnyPrefix
                + ") AND e." + sequence + " = (SELECT MAX(l." + sequence + ") FROM " + table + " l WHERE l." + id
                + " = e." + id + ")) latest GROUP BY latest.prefix_index, latest.manifest";
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement query = connection.prepareStatement(sql)) {
            int index = 1;
            for (int pass = 0; pass < 2; pass++) {
                for (String prefix : prefixes) {
                    query.setString(index++, prefix + "%");
                }
            }
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    counts.get(prefixes.get(rows.getInt(1))).put(rows.getString(2), rows.getLong(3));
                }
            }
            return counts;
        } catch (SQLException e) {
            throw new IllegalStateException("querying the journal failed: " + e.getMessage(), e);
        }
    }
}
