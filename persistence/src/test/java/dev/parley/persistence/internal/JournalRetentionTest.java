package dev.parley.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JournalRetentionTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"h2", "sqlite"})
    void callsIdleLongerThanTheRetentionAreDeletedAndOthersKept(String store, @TempDir Path dir) throws Exception {
        JournalDatabase database = journal(store, dir);
        long old = NOW.minus(Duration.ofDays(8)).toEpochMilli();
        long recent = NOW.minus(Duration.ofHours(1)).toEpochMilli();
        insert(database, "ToolCall|ended-long-ago", 1, old);
        insert(database, "ToolCall|ended-long-ago", 2, old);
        insert(database, "ToolCall|started-long-ago-answered-lately", 1, old);
        insert(database, "ToolCall|started-long-ago-answered-lately", 2, recent);
        insert(database, "OtherEntity|long-ago", 1, old);

        int deleted = new JournalRetention(database, "ToolCall|", Duration.ofDays(7), Clock.fixed(NOW, ZoneOffset.UTC))
                .purge();

        assertEquals(2, deleted);
        assertEquals(
                List.of("OtherEntity|long-ago", "ToolCall|started-long-ago-answered-lately"), remainingIds(database));
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"h2", "sqlite"})
    void manyExpiredCallsAreDeletedAFewAtATimeAndAllGo(String store, @TempDir Path dir) throws Exception {
        JournalDatabase database = journal(store, dir);
        long old = NOW.minus(Duration.ofDays(8)).toEpochMilli();
        int expired = 450; // more than two deletes take
        // held open: the embedded H2 database otherwise closes and opens again for every insert
        try (Connection open = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
            for (int i = 0; i < expired; i++) {
                insert(database, "ToolCall|old-" + i, 1, old);
                insert(database, "ToolCall|old-" + i, 2, old);
            }
            insert(
                    database,
                    "ToolCall|recent",
                    1,
                    NOW.minus(Duration.ofHours(1)).toEpochMilli());

            int deleted = new JournalRetention(
                            database, "ToolCall|", Duration.ofDays(7), Clock.fixed(NOW, ZoneOffset.UTC))
                    .purge();

            assertEquals(2 * expired, deleted);
            assertEquals(List.of("ToolCall|recent"), remainingIds(database));
        }
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"h2", "sqlite"})
    void abandonedCallsGoSoonerButEndedCallsStay(String store, @TempDir Path dir) throws Exception {
        JournalDatabase database = journal(store, dir);
        long old = NOW.minus(Duration.ofHours(2)).toEpochMilli();
        long recent = NOW.minus(Duration.ofMinutes(5)).toEpochMilli();
        insert(database, "ToolCall|abandoned", 1, old, "parley.call.started.v1");
        insert(database, "ToolCall|abandoned-later-round", 1, old, "parley.call.started.v1");
        insert(database, "ToolCall|abandoned-later-round", 2, old, "parley.call.answers-received.v1");
        insert(database, "ToolCall|abandoned-later-round", 3, old, "parley.call.input-requested.v1");
        insert(database, "ToolCall|ended", 1, old, "parley.call.started.v1");
        insert(database, "ToolCall|ended", 2, old, "parley.call.completed.v1");
        insert(database, "ToolCall|became-task", 1, old, "parley.call.became-task.v1");
        insert(database, "ToolCall|waiting-lately", 1, recent, "parley.call.started.v1");

        int deleted = JournalRetention.abandoned(
                        database,
                        "ToolCall|",
                        Duration.ofMinutes(31),
                        JournalEvent.storedNames(CallEvent.TYPES, status -> !status.open),
                        Clock.fixed(NOW, ZoneOffset.UTC))
                .purge();

        assertEquals(4, deleted);
        assertEquals(
                List.of("ToolCall|became-task", "ToolCall|ended", "ToolCall|waiting-lately"), remainingIds(database));
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"h2", "sqlite"})
    void compactionGivesTheSpaceOfDeletedRowsBack(String store, @TempDir Path dir) throws Exception {
        JournalDatabase database = journal(store, dir);
        Path file = dir.resolve(store.equals("h2") ? "journal.mv.db" : "journal.sqlite");
        // Held open, as a node's connection pool holds it: H2 would otherwise compact as it closes.
        try (Connection open = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
            // A node with some history: what the journal keeps is what the file should come back to.
            for (int i = 0; i < 100; i++) {
                insert(database, "ToolCall|kept", i + 1, NOW.toEpochMilli(), "parley.call.started.v1", 16 * 1024);
            }
            checkpoint(open, store);
            long before = onDisk(file);
            long old = NOW.minus(Duration.ofDays(8)).toEpochMilli();
            for (int i = 0; i < 400; i++) {
                insert(database, "ToolCall|flood-" + i, 1, old, "parley.call.started.v1", 16 * 1024);
            }
            checkpoint(open, store);
            long flooded = onDisk(file);

            new JournalRetention(database, "ToolCall|", Duration.ofDays(7), Clock.fixed(NOW, ZoneOffset.UTC)).purge();
            new JournalCompaction(database, Duration.ofSeconds(5)).run();
            long after = onDisk(file);

            assertEquals(List.of("ToolCall|kept"), remainingIds(database));
            org.junit.jupiter.api.Assertions.assertTrue(flooded > before + 400 * 16 * 1024L, "flooded " + flooded);
            org.junit.jupiter.api.Assertions.assertTrue(
                    after <= before * 1.1, "before " + before + ", flooded " + flooded + ", after " + after);
        }
    }

    /** The journal's bytes on disk: H2's file, or SQLite's file and its WAL (compaction must empty both). */
    private static long onDisk(Path file) throws Exception {
        Path wal = file.resolveSibling(file.getFileName() + "-wal");
        return java.nio.file.Files.size(file) + (java.nio.file.Files.exists(wal) ? java.nio.file.Files.size(wal) : 0);
    }

    /** SQLite's WAL is written back into the file, so the file's size tells. */
    private static void checkpoint(Connection connection, String store) throws Exception {
        if (store.equals("sqlite")) {
            connection.createStatement().execute("PRAGMA wal_checkpoint(TRUNCATE)");
        }
    }

    /** An empty journal of {@code store} (h2 or sqlite) in {@code dir}. */
    private static JournalDatabase journal(String store, Path dir) throws Exception {
        JournalDatabase database =
                store.equals("h2") ? new JournalDatabase.H2File(dir) : new JournalDatabase.SqliteFile(dir);
        JournalSchema.create(database);
        return database;
    }

    private static void insert(JournalDatabase database, String persistenceId, long sequenceNr, long writtenAt)
            throws Exception {
        insert(database, persistenceId, sequenceNr, writtenAt, "x");
    }

    private static void insert(
            JournalDatabase database, String persistenceId, long sequenceNr, long writtenAt, String manifest)
            throws Exception {
        insert(database, persistenceId, sequenceNr, writtenAt, manifest, 1);
    }

    private static void insert(
            JournalDatabase database,
            String persistenceId,
            long sequenceNr,
            long writtenAt,
            String manifest,
            int payloadBytes)
            throws Exception {
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement insert =
                        connection.prepareStatement("INSERT INTO \"event_journal\" (\"persistence_id\", "
                                + "\"sequence_number\", \"writer\", \"write_timestamp\", \"adapter_manifest\", \"event_payload\", "
                                + "\"event_ser_id\", \"event_ser_manifest\") VALUES (?, ?, 'test', ?, '', ?, 1, ?)")) {
            insert.setString(1, persistenceId);
            insert.setLong(2, sequenceNr);
            insert.setLong(3, writtenAt);
            insert.setBytes(4, new byte[payloadBytes]);
            insert.setString(5, manifest);
            insert.executeUpdate();
        }
    }

    private static List<String> remainingIds(JournalDatabase database) throws Exception {
        List<String> ids = new ArrayList<>();
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                ResultSet rows = connection
                        .createStatement()
                        .executeQuery(
                                "SELECT DISTINCT \"persistence_id\" FROM \"event_journal\" ORDER BY \"persistence_id\"")) {
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
        }
        return ids;
    }
}
