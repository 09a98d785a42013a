package dev.parley.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import dev.parley.persistence.JournalTables;
import dev.parley.persistence.internal.JournalBrowser.Page;
import dev.parley.persistence.internal.JournalBrowser.StoredEvent;
import dev.parley.runtime.Json;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JournalBrowser}: pages of entities by their latest event, newest first, with filters and a
 * cursor, and one entity's events decoded; on an embedded H2 file and on a real PostgreSQL.
 * Rows are written with plain JDBC as pekko-persistence-jdbc writes them, payloads by the serializer.
 */
class JournalBrowserTest {
    private static final String STARTED = "parley.call.started.v1";
    private static final String ANSWERED = "parley.call.answers-received.v1";
    private static final String COMPLETED = "parley.call.completed.v1";
    private static final Set<String> WAITING = Set.of(STARTED, "parley.call.input-requested.v1");

    private static EmbeddedPostgres postgres;
    private static final AtomicInteger databases = new AtomicInteger();
    private final JournalEventSerializer serializer = new JournalEventSerializer();

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    enum Store {
        H2_FILE,
        SQLITE_FILE,
        POSTGRES
    }

    private static JournalDatabase fresh(Store store, Path dir) throws Exception {
        JournalDatabase database;
        if (store == Store.H2_FILE) {
            database = new JournalDatabase.H2File(dir.resolve("journal-" + databases.incrementAndGet()));
        } else if (store == Store.SQLITE_FILE) {
            database = new JournalDatabase.SqliteFile(
                    Files.createDirectories(dir.resolve("journal-" + databases.incrementAndGet())));
        } else {
            synchronized (JournalBrowserTest.class) {
                if (postgres == null) {
                    postgres = EmbeddedPostgres.start();
                }
            }
            String name = "browser_" + databases.incrementAndGet();
            try (Connection connection = postgres.getPostgresDatabase().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE " + name);
            }
            database = new JournalDatabase.Postgres(
                    "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + name, "postgres", "postgres");
        }
        JournalSchema.create(database);
        return database;
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Store.class)
    void pagesHoldEntitiesByTheirLatestEventNewestFirst(Store store, @TempDir Path dir) throws Exception {
        JournalDatabase database = fresh(store, dir);
        long t = 1_785_000_000_000L;
        write(database, "ToolCall|a", 1, t, started("ask"));
        write(database, "ToolCall|b", 1, t + 10, started("ask"));
        write(database, "ToolCall|done", 1, t + 20, started("ask"));
        write(database, "ToolCall|done", 2, t + 21, new CallEvent.AnswersReceived(1, Map.of()));
        write(database, "ToolCall|done", 3, t + 22, new CallEvent.CallCompleted(1, Json.object()));
        write(database, "ToolCall|c", 1, t + 30, started("echo"));
        write(
                database,
                "Task|t",
                1,
                t + 40,
                new TaskEvent.TaskCreated(
                        "tools/call",
                        "ask",
                        Json.object(),
                        "alice",
                        Json.object(),
                        Map.of(),
                        Map.of(),
                        1000,
                        Instant.ofEpochMilli(t + 40)));
        writeForeign(database, "ToolCall|foreign", t + 50);
        JournalBrowser browser = new JournalBrowser(database);

        Page first = browser.page("ToolCall|", WAITING, Long.MAX_VALUE, Long.MAX_VALUE, 2, row -> true);
        assertEquals(
                List.of("c", "b"),
                first.rows().stream().map(JournalBrowser.EntityRow::entityId).toList());
        assertTrue(first.next().isPresent());
        Page second =
                browser.page("ToolCall|", WAITING, Long.MAX_VALUE, first.next().getAsLong(), 2, row -> true);
        assertEquals(
                List.of("a"),
                second.rows().stream().map(JournalBrowser.EntityRow::entityId).toList());
        assertTrue(second.next().isEmpty());

        Page any = browser.page("ToolCall|", Set.of(), Long.MAX_VALUE, Long.MAX_VALUE, 10, row -> true);
        assertEquals(
                List.of("c", "done", "b", "a"),
                any.rows().stream().map(JournalBrowser.EntityRow::entityId).toList(),
                "another serializer's row is left out");
        JournalBrowser.EntityRow done = any.rows().get(1);
        assertEquals(COMPLETED, done.latestManifest());
        assertEquals(3, done.events());
        assertEquals(t + 20, done.first().writtenAt());

        Page ask = browser.page(
                "ToolCall|",
                Set.of(),
                Long.MAX_VALUE,
                Long.MAX_VALUE,
                10,
                row -> "echo".equals(((CallEvent.CallStarted) row.first().event()).name()));
        assertEquals(
                List.of("c"),
                ask.rows().stream().map(JournalBrowser.EntityRow::entityId).toList());
        Page old = browser.page("ToolCall|", Set.of(), t + 10, Long.MAX_VALUE, 10, row -> true);
        assertEquals(
                List.of("b", "a"),
                old.rows().stream().map(JournalBrowser.EntityRow::entityId).toList());

        List<StoredEvent> events = browser.events("ToolCall|done");
        assertEquals(
                List.of(STARTED, ANSWERED, COMPLETED),
                events.stream().map(StoredEvent::manifest).toList());
        assertInstanceOf(CallEvent.CallCompleted.class, events.get(2).event());
        assertEquals(t + 22, events.get(2).writtenAt());
        assertEquals(List.of(), browser.events("ToolCall|nobody"));
    }

    private static CallEvent.CallStarted started(String tool) {
        return new CallEvent.CallStarted(
                "tools/call", tool, Json.object(), "alice", Map.of(), List.of(), Instant.EPOCH);
    }

    private void write(JournalDatabase database, String persistenceId, long sequence, long at, JournalEvent event)
            throws Exception {
        insert(
                database,
                persistenceId,
                sequence,
                at,
                JournalEventSerializer.IDENTIFIER,
                serializer.manifest(event),
                serializer.toBinary(event));
    }

    /** A row another serializer wrote (e.g. Pekko's Jackson CBOR, id 33). */
    private static void writeForeign(JournalDatabase database, String persistenceId, long at) throws Exception {
        insert(database, persistenceId, 1, at, 33, "some.Class", new byte[] {1, 2, 3});
    }

    private static void insert(
            JournalDatabase database,
            String persistenceId,
            long sequence,
            long at,
            int serializerId,
            String manifest,
            byte[] payload)
            throws Exception {
        try (Connection connection = JournalTables.connect(database);
                PreparedStatement insert = connection.prepareStatement("INSERT INTO event_journal "
                        + "(persistence_id, sequence_number, writer, write_timestamp, adapter_manifest, "
                        + "event_ser_id, event_ser_manifest, event_payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, persistenceId);
            insert.setLong(2, sequence);
            insert.setString(3, "test-writer");
            insert.setLong(4, at);
            insert.setString(5, "");
            insert.setInt(6, serializerId);
            insert.setString(7, manifest);
            insert.setBytes(8, payload);
            insert.executeUpdate();
        }
    }
}
