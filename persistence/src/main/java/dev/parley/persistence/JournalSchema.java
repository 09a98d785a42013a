package dev.parley.persistence;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the journal tables: an explicit, idempotent migration step. Every statement is
 * written to be re-runnable ({@code IF NOT EXISTS}), so any SQL error is a real one and fails
 * loudly instead of being swallowed.
 */
public final class JournalSchema {
    private static final Logger log = LoggerFactory.getLogger(JournalSchema.class);
    /**
     * PostgreSQL advisory lock key held while the schema is created: nodes of a cluster that start
     * together on an empty database would otherwise race in the catalog (two concurrent
     * {@code CREATE TABLE IF NOT EXISTS} of one table: one fails with a duplicate key in pg_type).
     */
    static final long POSTGRES_LOCK_KEY = 7_210_001L;

    private JournalSchema() {}

    /**
     * Creates the tables {@code database} lacks. On a SQLite file, an H2 journal found in the same
     * data directory (and no SQLite journal yet) is first copied into it ({@link H2ToSqliteMigration}).
     *
     * @throws IllegalStateException when the schema cannot be created or the H2 journal cannot be migrated
     */
    public static void create(JournalDatabase database) {
        if (database instanceof JournalDatabase.SqliteFile sqlite) {
            createDirectory(sqlite.directory()); // SQLite creates the file, not its directory (H2 creates both)
            H2ToSqliteMigration.migrateIfPresent(sqlite);
        }
        List<String> statements = statements(database.schemaResource());
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            if (database instanceof JournalDatabase.Postgres) {
                // A session lock: released by the unlock below, or when the connection closes.
                statement.execute("SELECT pg_advisory_lock(" + POSTGRES_LOCK_KEY + ")");
            }
            for (String sql : statements) {
                statement.execute(sql);
            }
            if (database instanceof JournalDatabase.Postgres) {
                statement.execute("SELECT pg_advisory_unlock(" + POSTGRES_LOCK_KEY + ")");
            }
            if (database instanceof JournalDatabase.SqliteFile) {
                incrementalVacuum(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "creating the journal schema on " + database + " failed: " + e.getMessage(), e);
        }
        log.info("journal schema ready on {}", database);
    }

    private static void createDirectory(Path directory) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the journal's directory " + directory + ": " + e, e);
        }
    }

    /**
     * Lets JournalCompaction give a SQLite file's free pages back ({@code PRAGMA incremental_vacuum}).
     * A WAL-mode connection cannot turn the setting on for a new file before its tables exist, so
     * the file is rewritten once with it ({@code VACUUM}; it is small when new).
     */
    private static void incrementalVacuum(Statement statement) throws SQLException {
        try (java.sql.ResultSet mode = statement.executeQuery("PRAGMA auto_vacuum")) {
            if (mode.next() && mode.getInt(1) == 2) {
                return;
            }
        }
        statement.execute("PRAGMA auto_vacuum = INCREMENTAL");
        statement.execute("VACUUM");
    }

    static List<String> statements(String resource) {
        try (InputStream in = JournalSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing schema resource " + resource);
            }
            String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return Arrays.stream(script.split(";"))
                    .map(s -> s.lines()
                            .filter(line -> !line.trim().startsWith("--"))
                            .reduce("", (a, b) -> a + "\n" + b)
                            .trim())
                    .filter(s -> !s.isEmpty())
                    .toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }
}
