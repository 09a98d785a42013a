package dev.parley.persistence;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A data directory with an H2 journal, opened on SQLite: its rows move over once, or not at all. */
class H2ToSqliteMigrationTest {

    @Test
    void everyRowOfEveryTableMovesToSqliteAndTheH2FileIsKeptAside(@TempDir Path directory) throws Exception {
        JournalDatabase.H2File h2 = new JournalDatabase.H2File(directory);
        JournalSchema.create(h2);
        JournalTables.insertEvent(h2, "ToolCall|call-1", 1);
        JournalTables.insertEvent(h2, "ToolCall|call-1", 2);
        JournalTables.insertEvent(h2, "Task|task-1", 1);
        try (Connection connection = JournalTables.connect(h2);
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO event_tag (event_id, tag) SELECT MIN(ordering), 'calls' FROM event_journal");
            statement.execute("INSERT INTO snapshot (persistence_id, sequence_number, created, snapshot_ser_id, "
                    + "snapshot_ser_manifest, snapshot_payload) VALUES ('Task|task-1', 1, 7, 1, 'm', X'0102')");
        }
        List<List<Object>> before = rows(h2);

        JournalDatabase.SqliteFile sqlite = new JournalDatabase.SqliteFile(directory);
        Logger log = (Logger) LoggerFactory.getLogger(H2ToSqliteMigration.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        Level level = log.getLevel();
        log.setLevel(Level.INFO);
        try {
            JournalSchema.create(sqlite);
        } finally {
            log.setLevel(level);
            log.detachAppender(lines);
        }

        assertEquals(1, lines.list.size(), "one line says what happened");
        assertEquals(Level.INFO, lines.list.get(0).getLevel());
        assertTrue(
                lines.list
                        .get(0)
                        .getFormattedMessage()
                        .matches("migrated the H2 journal to SQLite in \\d+ ms: 5 rows "
                                + "\\(event_journal 3, event_tag 1, snapshot 1\\) into .*journal.sqlite; "
                                + "the H2 file is kept as .*journal.mv.db.migrated-to-sqlite"),
                lines.list.get(0).getFormattedMessage());
        assertEquals(before, rows(sqlite), "the same rows, orderings and payloads");
        assertEquals(1, JournalTables.rows(sqlite, "event_tag"));
        try (Connection connection = JournalTables.connect(sqlite);
                Statement statement = connection.createStatement();
                ResultSet snapshot = statement.executeQuery("SELECT snapshot_payload FROM snapshot")) {
            assertTrue(snapshot.next());
            assertArrayEquals(new byte[] {1, 2}, snapshot.getBytes(1));
        }
        try (Connection connection = JournalTables.connect(sqlite);
                Statement statement = connection.createStatement();
                ResultSet vacuum = statement.executeQuery("PRAGMA auto_vacuum")) {
            assertTrue(vacuum.next());
            assertEquals(2, vacuum.getInt(1), "incremental: compaction can give pages back");
        }
        assertFalse(Files.exists(h2.file()), "the H2 file is not read again");
        assertTrue(Files.exists(directory.resolve("journal.mv.db" + H2ToSqliteMigration.MIGRATED_SUFFIX)));
        assertEquals(List.of("journal.mv.db.migrated-to-sqlite", "journal.sqlite"), files(directory));
    }

    /** An ordering is never given twice: SQLite goes on after the highest one H2 gave, even a deleted one. */
    @Test
    void theOrderingGoesOnAfterTheHighestOneH2Gave(@TempDir Path directory) throws Exception {
        JournalDatabase.H2File h2 = new JournalDatabase.H2File(directory);
        JournalSchema.create(h2);
        for (int i = 1; i <= 5; i++) {
            JournalTables.insertEvent(h2, "ToolCall|call-" + i, 1);
        }
        long highest = maxOrdering(h2);
        try (Connection connection = JournalTables.connect(h2);
                Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM event_journal WHERE ordering >= " + (highest - 1));
        }

        JournalDatabase.SqliteFile sqlite = new JournalDatabase.SqliteFile(directory);
        JournalSchema.create(sqlite);
        JournalTables.insertEvent(sqlite, "ToolCall|call-6", 1);

        assertEquals(highest + 1, maxOrdering(sqlite));
        assertEquals(4, JournalTables.rows(sqlite, "event_journal"));
    }

    @Test
    void anEmptyH2JournalMovesToo(@TempDir Path directory) throws Exception {
        JournalSchema.create(new JournalDatabase.H2File(directory));
        JournalDatabase.SqliteFile sqlite = new JournalDatabase.SqliteFile(directory);

        assertTrue(H2ToSqliteMigration.migrateIfPresent(sqlite));
        JournalSchema.create(sqlite);
        JournalTables.insertEvent(sqlite, "ToolCall|call-1", 1);
        assertEquals(1, JournalTables.rows(sqlite, "event_journal"));
    }

    @Test
    void aCorruptH2FileIsLeftAsItWasAndNothingOpens(@TempDir Path directory) throws IOException {
        byte[] corrupt = "not an H2 database".getBytes(StandardCharsets.UTF_8);
        Files.write(directory.resolve("journal.mv.db"), corrupt);
        JournalDatabase.SqliteFile sqlite = new JournalDatabase.SqliteFile(directory);

        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> JournalSchema.create(sqlite));

        assertTrue(failure.getMessage().startsWith("cannot migrate the H2 journal"), failure.getMessage());
        assertTrue(failure.getMessage().contains("left as it was"), failure.getMessage());
        assertArrayEquals(corrupt, Files.readAllBytes(directory.resolve("journal.mv.db")));
        assertEquals(List.of("journal.mv.db"), files(directory), "no SQLite file, whole or partial");
    }

    /** A table SQLite does not have fails the whole migration: nothing is left half copied. */
    @Test
    void aTableSqliteLacksFailsTheWholeMigration(@TempDir Path directory) throws Exception {
        JournalDatabase.H2File h2 = new JournalDatabase.H2File(directory);
        JournalSchema.create(h2);
        JournalTables.insertEvent(h2, "ToolCall|call-1", 1);
        try (Connection connection = JournalTables.connect(h2);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE durable_state (persistence_id VARCHAR PRIMARY KEY)");
            statement.execute("INSERT INTO durable_state VALUES ('a')");
        }
        byte[] file = Files.readAllBytes(h2.file());

        IllegalStateException failure = assertThrows(
                IllegalStateException.class, () -> JournalSchema.create(new JournalDatabase.SqliteFile(directory)));

        assertTrue(failure.getMessage().contains("durable_state"), failure.getMessage());
        assertArrayEquals(file, Files.readAllBytes(h2.file()), "the H2 file is left as it was");
        assertEquals(List.of("journal.mv.db"), files(directory));
    }

    @Test
    void aDirectoryWithBothJournalsKeepsReadingSqliteOnly(@TempDir Path directory) throws Exception {
        JournalDatabase.SqliteFile sqlite = new JournalDatabase.SqliteFile(directory);
        JournalSchema.create(sqlite);
        JournalTables.insertEvent(sqlite, "ToolCall|on-sqlite", 1);
        JournalDatabase.H2File h2 = new JournalDatabase.H2File(directory);
        JournalSchema.create(h2);
        JournalTables.insertEvent(h2, "ToolCall|on-h2", 1);

        assertFalse(H2ToSqliteMigration.migrateIfPresent(sqlite));
        JournalSchema.create(sqlite);
        assertEquals(1, JournalTables.rows(sqlite, "event_journal"));
        assertTrue(Files.exists(h2.file()));
    }

    private static List<List<Object>> rows(JournalDatabase database) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (Connection connection = JournalTables.connect(database);
                PreparedStatement select = connection.prepareStatement("SELECT ordering, persistence_id, "
                        + "sequence_number, writer, write_timestamp, event_ser_id, event_ser_manifest, event_payload "
                        + "FROM event_journal ORDER BY ordering");
                ResultSet result = select.executeQuery()) {
            while (result.next()) {
                rows.add(List.of(
                        result.getLong(1),
                        result.getString(2),
                        result.getLong(3),
                        result.getString(4),
                        result.getLong(5),
                        result.getInt(6),
                        result.getString(7),
                        new String(result.getBytes(8), StandardCharsets.UTF_8)));
            }
        }
        return rows;
    }

    private static long maxOrdering(JournalDatabase database) throws SQLException {
        try (Connection connection = JournalTables.connect(database);
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT MAX(ordering) FROM event_journal")) {
            result.next();
            return result.getLong(1);
        }
    }

    /** The directory's files, without SQLite's WAL and shared-memory files of an open journal. */
    private static List<String> files(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> !name.endsWith("-wal") && !name.endsWith("-shm"))
                    .sorted()
                    .toList();
        }
    }
}
