package dev.parley.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Schema bootstrap on the embedded files, H2 ({@code parley.journal.database = h2}) and the default
 * SQLite: an explicit, idempotent migration step that fails loudly (the plugin's own SchemaUtils
 * swallows every error; STACK.md G5).
 */
class JournalSchemaTest {

    @Test
    void createsTheJournalTablesInANewSqliteFileAndItsDirectory(@TempDir Path directory) throws SQLException {
        JournalDatabase database = new JournalDatabase.SqliteFile(directory.resolve("data"));
        JournalSchema.create(database);
        JournalSchema.create(database);
        for (String table : JournalTables.TABLES) {
            assertEquals(0, JournalTables.rows(database, table), table);
        }
        assertTrue(Files.exists(directory.resolve("data").resolve("journal.sqlite")));
    }

    @Test
    void createsTheJournalTablesInAnEmptyH2File(@TempDir Path directory) throws SQLException {
        JournalDatabase database = new JournalDatabase.H2File(directory);
        JournalSchema.create(database);
        for (String table : JournalTables.TABLES) {
            assertEquals(0, JournalTables.rows(database, table), table);
        }
        assertTrue(Files.exists(directory.resolve("journal.mv.db")), "the journal lives in the data directory");
    }

    @Test
    void creatingTheSchemaTwiceOnAnH2FileIsHarmlessAndKeepsTheRows(@TempDir Path directory) throws SQLException {
        JournalDatabase database = new JournalDatabase.H2File(directory);
        JournalSchema.create(database);
        JournalTables.insertEvent(database, "ToolCall|call-1", 1);
        JournalSchema.create(database);
        JournalSchema.create(database);
        assertEquals(1, JournalTables.rows(database, "event_journal"));
    }

    @Test
    void aSecondEventWithTheSameSequenceNumberOfAnEntityIsRefused(@TempDir Path directory) throws SQLException {
        JournalDatabase database = new JournalDatabase.H2File(directory);
        JournalSchema.create(database);
        JournalTables.insertEvent(database, "ToolCall|call-1", 1);
        JournalTables.insertEvent(database, "ToolCall|call-2", 1);

        assertThrows(SQLException.class, () -> JournalTables.insertEvent(database, "ToolCall|call-1", 1));
        assertEquals(2, JournalTables.rows(database, "event_journal"));
    }

    /** Files made before "ordering" became the primary key keep their layout and keep working. */
    @Test
    void anH2FileWithTheEarlierKeyLayoutKeepsWorking(@TempDir Path directory) throws SQLException {
        JournalDatabase database = new JournalDatabase.H2File(directory);
        try (Connection connection = JournalTables.connect(database);
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "CREATE TABLE PUBLIC.\"event_journal\" (\"ordering\" BIGINT UNIQUE NOT NULL AUTO_INCREMENT, "
                            + "\"deleted\" BOOLEAN DEFAULT false NOT NULL, \"persistence_id\" VARCHAR(255) NOT NULL, "
                            + "\"sequence_number\" BIGINT NOT NULL, \"writer\" VARCHAR NOT NULL, \"write_timestamp\" BIGINT NOT NULL, "
                            + "\"adapter_manifest\" VARCHAR NOT NULL, \"event_payload\" VARBINARY NOT NULL, \"event_ser_id\" INTEGER NOT NULL, "
                            + "\"event_ser_manifest\" VARCHAR NOT NULL, \"meta_payload\" VARBINARY, \"meta_ser_id\" INTEGER, "
                            + "\"meta_ser_manifest\" VARCHAR, PRIMARY KEY (\"persistence_id\", \"sequence_number\"))");
        }
        JournalTables.insertEvent(database, "ToolCall|call-1", 1);

        JournalSchema.create(database);
        JournalTables.insertEvent(database, "ToolCall|call-1", 2);

        assertEquals(2, JournalTables.rows(database, "event_journal"));
        assertThrows(SQLException.class, () -> JournalTables.insertEvent(database, "ToolCall|call-1", 2));
    }

    @Test
    void anUnreachablePostgresFailsLoudlyWithoutLeakingThePassword() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        JournalDatabase database = new JournalDatabase.Postgres(
                "jdbc:postgresql://127.0.0.1:" + closedPort + "/parley?connectTimeout=5", "parley", "s3cret-pw");
        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> JournalSchema.create(database));
        assertInstanceOf(SQLException.class, failure.getCause());
        assertTrue(failure.getMessage().contains("127.0.0.1:" + closedPort), failure.getMessage());
        assertFalse(failure.getMessage().contains("s3cret-pw"), failure.getMessage());
    }

    @Test
    void aCorruptH2FileFailsLoudly(@TempDir Path directory) throws IOException {
        Files.writeString(directory.resolve("journal.mv.db"), "not an H2 database");
        JournalDatabase database = new JournalDatabase.H2File(directory);
        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> JournalSchema.create(database));
        assertInstanceOf(SQLException.class, failure.getCause());
    }

    @Test
    void everySchemaScriptSplitsIntoStatementsWithoutComments() {
        // H2 needs no separate ordering index: its UNIQUE column constraint already is one.
        for (String resource : new String[] {"parley/schema/h2.sql", "parley/schema/postgres.sql"}) {
            var statements = JournalSchema.statements(resource);
            assertEquals(
                    resource.contains("h2") ? 3 : 4, statements.size(), resource + ": three tables (and one index)");
            for (String sql : statements) {
                assertFalse(sql.contains("--"), sql);
                assertFalse(sql.toUpperCase().contains("CONCURRENTLY"), "fails outside autocommit: " + sql);
                assertTrue(sql.toUpperCase().contains("IF NOT EXISTS"), "not re-runnable: " + sql);
            }
        }
    }

    @Test
    void aMissingSchemaScriptIsReported() {
        assertThrows(IllegalStateException.class, () -> JournalSchema.statements("parley/schema/oracle.sql"));
    }
}
