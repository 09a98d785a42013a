package dev.parley.http;

import dev.parley.persistence.JournalDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Reads the test server's H2 journal with plain JDBC (same JVM: the open database is shared). */
final class JournalRows {
    private JournalRows() {}

    /** The entity ids (after {@code "ToolCall|"} etc.) whose persistence id starts with {@code prefix}, oldest first. */
    static java.util.List<String> entityIds(Path dataDirectory, String prefix) {
        JournalDatabase database = new JournalDatabase.H2File(dataDirectory);
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT \"persistence_id\" FROM \"event_journal\" "
                        + "GROUP BY \"persistence_id\" ORDER BY MIN(\"ordering\")")) {
            java.util.List<String> ids = new java.util.ArrayList<>();
            while (result.next()) {
                String id = result.getString(1);
                if (id.startsWith(prefix)) {
                    ids.add(id.substring(prefix.length()));
                }
            }
            return ids;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the journal in " + dataDirectory, e);
        }
    }

    static long count(Path dataDirectory) {
        JournalDatabase database = new JournalDatabase.H2File(dataDirectory);
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM \"event_journal\"")) {
            result.next();
            return result.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the journal in " + dataDirectory, e);
        }
    }
}
