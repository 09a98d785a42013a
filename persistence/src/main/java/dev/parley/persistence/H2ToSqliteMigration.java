package dev.parley.persistence;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the journal of a data directory from H2 to SQLite, once: when a node on
 * {@code parley.journal.database = sqlite} finds an H2 journal ({@code journal.mv.db}) and no
 * SQLite one in its data directory, {@link JournalSchema#create} copies every row of every H2
 * journal table into a new SQLite file before the node opens it.
 *
 * <p>Never half done: the rows are written in one transaction into a temporary file beside the
 * journal, the row counts of both sides are compared, and only then is the temporary file renamed
 * to {@code journal.sqlite} and the H2 file to {@code journal.mv.db.migrated-to-sqlite}, so that
 * no later start reads it again. H2 is opened read-only: a migration that fails leaves the H2 file
 * as it was, removes the temporary file, and the node does not start.
 */
public final class H2ToSqliteMigration {
    private static final Logger log = LoggerFactory.getLogger(H2ToSqliteMigration.class);
    /** The suffix the H2 file gets once its rows are in SQLite. */
    public static final String MIGRATED_SUFFIX = ".migrated-to-sqlite";
    /** The journal tables in the order they are copied (an event before its tags). */
    private static final List<String> TABLES = List.of("event_journal", "event_tag", "snapshot");

    private static final int BATCH = 1_000;

    private H2ToSqliteMigration() {}

    /**
     * Migrates the H2 journal in {@code sqlite}'s directory, if there is one and no SQLite journal yet.
     *
     * @return whether a journal was migrated
     * @throws IllegalStateException when the migration fails; the H2 file is left as it was
     */
    public static boolean migrateIfPresent(JournalDatabase.SqliteFile sqlite) {
        JournalDatabase.H2File h2 = new JournalDatabase.H2File(sqlite.directory());
        if (!Files.exists(h2.file())) {
            return false;
        }
        if (Files.exists(sqlite.file())) {
            log.warn(
                    "the data directory holds an H2 journal {} beside the SQLite journal {}; the node reads only {}",
                    h2.file(),
                    sqlite.file(),
                    sqlite.file());
            return false;
        }
        Path temporary = sqlite.directory().resolve(sqlite.file().getFileName() + ".migrating");
        long started = System.nanoTime();
        Map<String, Long> copied;
        try {
            deleteWithCompanions(temporary);
            copied = copy(h2, sqlite, temporary);
            Files.move(temporary, sqlite.file(), StandardCopyOption.ATOMIC_MOVE);
        } catch (SQLException | IOException | RuntimeException e) {
            deleteQuietly(temporary);
            throw new IllegalStateException(
                    "cannot migrate the H2 journal " + h2.file() + " to SQLite (the H2 file is left as it was; "
                            + "set parley.journal.database = h2 to start on it): " + e.getMessage(),
                    e);
        }
        Path backup = h2.file().resolveSibling(h2.file().getFileName() + MIGRATED_SUFFIX);
        try {
            Files.move(h2.file(), backup);
        } catch (IOException e) {
            // Without the rename the next start would find both; take the SQLite file back instead.
            deleteQuietly(sqlite.file());
            throw new IllegalStateException(
                    "migrated the H2 journal " + h2.file() + " but cannot rename it to " + backup
                            + "; the SQLite copy is removed and the H2 file is left as it was: " + e.getMessage(),
                    e);
        }
        log.info(
                "migrated the H2 journal to SQLite in {} ms: {} rows ({}) into {}; the H2 file is kept as {}",
                (System.nanoTime() - started) / 1_000_000,
                copied.values().stream().mapToLong(Long::longValue).sum(),
                copied.entrySet().stream()
                        .map(table -> table.getKey() + " " + table.getValue())
                        .collect(Collectors.joining(", ")),
                sqlite.file(),
                backup);
        return true;
    }

    /** Copies every row into a new SQLite file at {@code target}; the rows copied per table. */
    private static Map<String, Long> copy(JournalDatabase.H2File h2, JournalDatabase.SqliteFile sqlite, Path target)
            throws SQLException {
        Map<String, Long> copied = new LinkedHashMap<>();
        try (Connection from = DriverManager.getConnection(readOnlyUrl(h2), h2.user(), h2.password());
                Connection to = DriverManager.getConnection("jdbc:sqlite:" + target.toAbsolutePath())) {
            try (Statement statement = to.createStatement()) {
                // Set before the first table exists, so JournalSchema finds the file ready for compaction.
                statement.execute("PRAGMA auto_vacuum = INCREMENTAL");
                for (String sql : JournalSchema.statements(sqlite.schemaResource())) {
                    statement.execute(sql);
                }
            }
            to.setAutoCommit(false);
            for (String table : tables(from)) {
                copied.put(table, copyTable(from, to, table));
            }
            continueOrdering(from, to);
            to.commit();
            for (Map.Entry<String, Long> table : copied.entrySet()) {
                long inH2 = count(from, "\"" + table.getKey() + "\"");
                long inSqlite = count(to, "\"" + table.getKey() + "\"");
                if (inH2 != table.getValue() || inSqlite != table.getValue()) {
                    throw new IllegalStateException("table " + table.getKey() + ": " + inH2 + " rows in H2, "
                            + table.getValue() + " copied, " + inSqlite + " in SQLite");
                }
            }
        }
        return copied;
    }

    /**
     * The H2 database read-only ({@code ACCESS_MODE_DATA=r}) and never created ({@code IFEXISTS}):
     * reading it writes nothing to its directory ({@code TRACE_LEVEL_FILE=0}: no trace file either).
     */
    private static String readOnlyUrl(JournalDatabase.H2File h2) {
        return "jdbc:h2:file:" + h2.directory().toAbsolutePath().resolve("journal")
                + ";DATABASE_TO_UPPER=false;ACCESS_MODE_DATA=r;IFEXISTS=TRUE;TRACE_LEVEL_FILE=0";
    }

    /** The H2 journal's tables: the known ones first, then any other (which SQLite must have too). */
    private static List<String> tables(Connection h2) throws SQLException {
        List<String> found = new ArrayList<>();
        try (Statement statement = h2.createStatement();
                ResultSet rows = statement.executeQuery("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES "
                        + "WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME")) {
            while (rows.next()) {
                found.add(rows.getString(1));
            }
        }
        List<String> ordered =
                new ArrayList<>(TABLES.stream().filter(found::contains).toList());
        found.stream().filter(table -> !TABLES.contains(table)).forEach(ordered::add);
        if (!ordered.contains("event_journal")) {
            throw new IllegalStateException("no event_journal table in the H2 file (tables: " + found + ")");
        }
        return ordered;
    }

    private static long copyTable(Connection from, Connection to, String table) throws SQLException {
        long rows = 0;
        try (Statement select = from.createStatement();
                ResultSet source = select.executeQuery("SELECT * FROM \"" + table + "\"")) {
            ResultSetMetaData columns = source.getMetaData();
            int count = columns.getColumnCount();
            String[] names = new String[count];
            boolean[] binary = new boolean[count];
            for (int i = 0; i < count; i++) {
                names[i] = "\"" + columns.getColumnName(i + 1) + "\"";
                int type = columns.getColumnType(i + 1);
                binary[i] = type == Types.BLOB
                        || type == Types.BINARY
                        || type == Types.VARBINARY
                        || type == Types.LONGVARBINARY;
            }
            String insert = "INSERT INTO \"" + table + "\" (" + String.join(", ", names) + ") VALUES ("
                    + String.join(", ", Collections.nCopies(count, "?")) + ")";
            try (PreparedStatement target = to.prepareStatement(insert)) {
                while (source.next()) {
                    for (int i = 0; i < count; i++) {
                        if (binary[i]) {
                            target.setBytes(i + 1, source.getBytes(i + 1));
                        } else {
                            target.setObject(i + 1, source.getObject(i + 1));
                        }
                    }
                    target.addBatch();
                    if (++rows % BATCH == 0) {
                        target.executeBatch();
                    }
                }
                target.executeBatch();
            }
        } catch (SQLException e) {
            throw new SQLException("copying table " + table + ": " + e.getMessage(), e);
        }
        return rows;
    }

    /**
     * SQLite's AUTOINCREMENT goes on after the highest ordering it has seen; H2's identity may have
     * gone further (rows deleted by retention), and an ordering is never given twice.
     */
    private static void continueOrdering(Connection from, Connection to) throws SQLException {
        long last = 0;
        try (Statement statement = from.createStatement();
                ResultSet identity = statement.executeQuery("SELECT IDENTITY_BASE FROM INFORMATION_SCHEMA.COLUMNS "
                        + "WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_NAME = 'event_journal' "
                        + "AND COLUMN_NAME = 'ordering'")) {
            if (identity.next()) {
                last = identity.getLong(1) - 1;
            }
        }
        try (Statement statement = to.createStatement();
                ResultSet highest =
                        statement.executeQuery("SELECT COALESCE(MAX(\"ordering\"), 0) FROM \"event_journal\"")) {
            highest.next();
            last = Math.max(last, highest.getLong(1));
        }
        try (Statement statement = to.createStatement()) {
            statement.executeUpdate("DELETE FROM sqlite_sequence WHERE name = 'event_journal'");
            statement.executeUpdate("INSERT INTO sqlite_sequence (name, seq) VALUES ('event_journal', " + last + ")");
        }
    }

    private static long count(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void deleteWithCompanions(Path file) throws IOException {
        for (String suffix : Arrays.asList("", "-journal", "-wal", "-shm")) {
            Files.deleteIfExists(file.resolveSibling(file.getFileName() + suffix));
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            deleteWithCompanions(file);
        } catch (IOException e) {
            log.warn("cannot delete {}: {}", file, e.toString());
        }
    }
}
