package dev.parley.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Schema bootstrap on a real PostgreSQL (embedded, started from Maven artifacts; STACK.md §11.3). */
class JournalSchemaOnPostgresTest {
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void startPostgres() throws IOException {
        postgres = EmbeddedPostgres.start();
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    /** A fresh database per test, so tests see only their own tables. */
    private static JournalDatabase freshDatabase(String name) throws SQLException {
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        // Not getJdbcUrl(): it puts the user into the URL, where it would win over JournalDatabase.user().
        return new JournalDatabase.Postgres(
                "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + name, "postgres", "postgres");
    }

    @Test
    void createsTheJournalTablesAndTheOrderingIndex() throws SQLException {
        JournalDatabase database = freshDatabase("schema_once");
        JournalSchema.create(database);
        for (String table : JournalTables.TABLES) {
            assertEquals(0, JournalTables.rows(database, table), table);
        }
        List<String> indexes = new ArrayList<>();
        try (Connection connection = JournalTables.connect(database);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT indexname FROM pg_indexes WHERE tablename = 'event_journal' ORDER BY indexname")) {
            while (rows.next()) {
                indexes.add(rows.getString(1));
            }
        }
        assertTrue(indexes.contains("event_journal_ordering_idx"), indexes.toString());
    }

    @Test
    void creatingTheSchemaTwiceOnPostgresIsHarmlessAndKeepsTheRows() throws SQLException {
        JournalDatabase database = freshDatabase("schema_twice");
        JournalSchema.create(database);
        JournalTables.insertEvent(database, "ToolCall|call-1", 1);
        JournalSchema.create(database);
        JournalSchema.create(database);
        assertEquals(1, JournalTables.rows(database, "event_journal"));
    }

    /**
     * Nodes of a cluster started together on an empty database all create the schema at once:
     * without serialising, PostgreSQL's catalog makes one of two concurrent CREATE TABLE IF NOT
     * EXISTS fail (duplicate key in pg_type).
     */
    @Test
    void nodesStartingTogetherOnAnEmptyDatabaseAllCreateTheSchema() throws Exception {
        for (int round = 0; round < 5; round++) {
            JournalDatabase database = freshDatabase("schema_race_" + round);
            List<java.util.concurrent.Callable<Void>> nodes = new ArrayList<>();
            java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(4);
            for (int node = 0; node < 4; node++) {
                nodes.add(() -> {
                    together.await();
                    JournalSchema.create(database);
                    return null;
                });
            }
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                for (java.util.concurrent.Future<Void> created : threads.invokeAll(nodes)) {
                    created.get(); // rethrows a node's failure
                }
            } finally {
                threads.shutdownNow();
            }
            assertEquals(0, JournalTables.rows(database, "event_journal"));
        }
    }

    @Test
    void anUnknownRoleFailsLoudly() throws SQLException {
        JournalDatabase good = freshDatabase("schema_denied");
        JournalDatabase wrongUser = new JournalDatabase.Postgres(good.jdbcUrl(), "nobody", "wrong");
        IllegalStateException failure =
                assertThrows(IllegalStateException.class, () -> JournalSchema.create(wrongUser));
        assertTrue(failure.getCause() instanceof SQLException, String.valueOf(failure.getCause()));
    }
}
