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
        JournalDatabase database =
                store.equals("h2") ? new JournalDatabase.H2File(dir) : new JournalDatabase.SqliteFile(dir);
        JournalSchema.create(database);
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

    private static void insert(JournalDatabase database, String persistenceId, long sequenceNr, long writtenAt)
            throws Exception {
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO \"event_journal\" (\"persistence_id\", "
                                + "\"sequence_number\", \"writer\", \"write_timestamp\", \"adapter_manifest\", \"event_payload\", "
                                + "\"event_ser_id\", \"event_ser_manifest\") VALUES (?, ?, 'test', ?, '', ?, 1, 'x')")) {
            insert.setString(1, persistenceId);
            insert.setLong(2, sequenceNr);
            insert.setLong(3, writtenAt);
            insert.setBytes(4, new byte[] {1});
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
