package dev.parley.http;

import com.typesafe.config.ConfigFactory;
import dev.parley.actors.NodeConfig;
import dev.parley.persistence.JournalDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Reads the test server's journal with plain JDBC: the store a server on the default settings and
 * the system properties opens in its data directory (SQLite unless {@code -Dparley.journal.database}
 * names another).
 */
public final class JournalRows {
    private JournalRows() {}

    /** The journal a server started without a journal setting of its own keeps in {@code dataDirectory}. */
    public static JournalDatabase database(Path dataDirectory) {
        return JournalDatabase.fromConfig(NodeConfig.load(ConfigFactory.empty()), dataDirectory);
    }

    /** The journal's bytes on disk: H2's file, or SQLite's file and its WAL. */
    public static long bytesOnDisk(Path dataDirectory) throws IOException {
        JournalDatabase database = database(dataDirectory);
        Path file = database instanceof JournalDatabase.H2File h2
                ? h2.file()
                : ((JournalDatabase.SqliteFile) database).file();
        Path wal = file.resolveSibling(file.getFileName() + "-wal");
        return Files.size(file) + (Files.exists(wal) ? Files.size(wal) : 0);
    }

    /** The entity ids (after {@code "ToolCall|"} etc.) whose persistence id starts with {@code prefix}, oldest first. */
    public static java.util.List<String> entityIds(Path dataDirectory, String prefix) {
        JournalDatabase database = database(dataDirectory);
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

    /**
     * Waits (up to 10 s) until {@code calls} calls are in the journal: a first round that ran no
     * step is answered before its call's start is written, so a count taken right after its
     * answer may not hold it yet.
     */
    public static void awaitCalls(Path dataDirectory, int calls) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (entityIds(dataDirectory, "ToolCall|").size() < calls && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    public static long count(Path dataDirectory) {
        JournalDatabase database = database(dataDirectory);
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
