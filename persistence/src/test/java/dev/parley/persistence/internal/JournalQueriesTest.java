package dev.parley.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import dev.parley.persistence.JournalTables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JournalQueries}: the entities whose latest event (by sequence number) is of given kinds
 * (how the node counts open calls and tasks afresh, and finds the working tasks it wakes), and the
 * rows written after an ordering (how it follows the journal in between). The same contract
 * on an embedded H2 file and on a real PostgreSQL (embedded, STACK.md §11.3). Rows are written
 * with plain JDBC, the way pekko-persistence-jdbc writes them.
 */
class JournalQueriesTest {
    private static final String TASK = "Task|";
    private static final String CREATED = "parley.task.created.v1";
    private static final String STEP = "parley.task.step-recorded.v1";
    private static final String ASKED = "parley.task.input-requested.v1";
    private static final String ANSWERED = "parley.task.answers-received.v1";
    private static final String COMPLETED = "parley.task.completed.v1";
    private static final String FAILED = "parley.task.failed.v1";
    private static final String CANCELLED = "parley.task.cancelled.v1";
    /** The events after which a task is working (neither waiting for answers nor ended). */
    private static final Set<String> WORKING = Set.of(CREATED, STEP, ANSWERED);

    private static EmbeddedPostgres postgres;
    private static final AtomicInteger databases = new AtomicInteger();

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    /** Where the journal lives; each test gets an empty journal created the way a node creates it. */
    enum Store {
        H2_FILE,
        SQLITE_FILE,
        POSTGRES;

        JournalDatabase freshJournal(Path dir) throws Exception {
            Path directory = dir.resolve("journal-" + databases.incrementAndGet());
            JournalDatabase database = switch (this) {
                case H2_FILE -> new JournalDatabase.H2File(directory);
                case SQLITE_FILE -> new JournalDatabase.SqliteFile(Files.createDirectories(directory));
                case POSTGRES -> freshPostgresDatabase();
            };
            JournalSchema.create(database);
            return database;
        }

        @Override
        public String toString() {
            return switch (this) {
                case H2_FILE -> "an H2 file";
                case SQLITE_FILE -> "a SQLite file";
                case POSTGRES -> "PostgreSQL";
            };
        }
    }

    private static JournalDatabase freshPostgresDatabase() throws Exception {
        synchronized (JournalQueriesTest.class) {
            if (postgres == null) {
                postgres = EmbeddedPostgres.start();
            }
        }
        String name = "queries_" + databases.incrementAndGet();
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        // Not getJdbcUrl(): it puts the user into the URL, where it would win over JournalDatabase.user().
        return new JournalDatabase.Postgres(
                "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + name, "postgres", "postgres");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Store.class)
    void onlyEntitiesWhoseLatestEventIsAWorkingOneAreWorking(Store store, @TempDir Path dir) throws Exception {
        JournalDatabase database = store.freshJournal(dir);
        insert(database, "Task|fresh", CREATED);
        insert(database, "Task|stepping", CREATED, STEP, STEP);
        insert(database, "Task|answered", CREATED, ASKED, ANSWERED);
        insert(database, "Task|waiting", CREATED, ASKED);
        insert(database, "Task|partly-answered-then-asked", CREATED, ASKED, ANSWERED, STEP, ASKED);
        insert(database, "Task|completed", CREATED, STEP, COMPLETED);
        insert(database, "Task|failed", CREATED, FAILED);
        insert(database, "Task|cancelled", CREATED, ASKED, CANCELLED);

        assertEquals(List.of("answered", "fresh", "stepping"), sorted(working(database)));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Store.class)
    void otherEntityTypesAndLookalikePrefixesAreLeftOut(Store store, @TempDir Path dir) throws Exception {
        JournalDatabase database = store.freshJournal(dir);
        insert(database, "Task|mine", CREATED);
        insert(database, "ToolCall|call-1", "parley.call.started.v1");
        insert(database, "Taskforce|not-a-task", CREATED);
        insert(database, "task|lower-case", CREATED);
        insert(database, "XTask|suffix", CREATED);

        assertEquals(List.of("mine"), working(database));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Store.class)
    void latestMeansTheHighestSequenceNumberNotTheLastRowWritten(Store store, @TempDir Path dir) throws Exception {
        JournalDatabase database = store.freshJournal(dir);
        insertAt(database, "Task|ended-row-first", 3, COMPLETED);
        insertAt(database, "Task|ended-row-first", 1, CREATED);
        insertAt(database, "Task|ended-row-first", 2, STEP);
        insertAt(database, "Task|working-row-last", 1, CREATED);
        insertAt(database, "Task|working-row-last", 3, STEP);
        insertAt(database, "Task|working-row-last", 2, ASKED);

        assertEquals(List.of("working-row-last"), working(database));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Store.class)
    void idsComeBackWhateverCharactersTheyHold(Store store, @TempDir Path dir) throws Exception {
        JournalDatabase database = store.freshJournal(dir);
        String id = "786512e2-9e0d_4c4d%a5b1|0a9a'4f8d";
        insert(database, TASK + id, CREATED, STEP);

        assertEquals(List.of(id), working(database));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Store.class)
    void anEmptyJournalHasNoWorkingEntities(Store store, @TempDir Path dir) throws Exception {
        assertEquals(List.of(), working(store.freshJournal(dir)));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Store.class)
    void latestRowsOfFindEachEntityOnceByItsLatestEventUnderItsOwnPrefix(Store store, @TempDir Path dir)
            throws Exception {
        JournalDatabase database = store.freshJournal(dir);
        insert(database, "Task|fresh", CREATED);
        insert(database, "Task|waiting-1", CREATED, ASKED);
        insert(database, "Task|waiting-2", CREATED, STEP, ASKED);
        insert(database, "Task|answered-then-completed", CREATED, ASKED, ANSWERED, COMPLETED);
        insertAt(database, "Task|ended-row-first", 2, COMPLETED);
        insertAt(database, "Task|ended-row-first", 1, CREATED);
        insert(database, "ToolCall|asked", "parley.call.started.v1", "parley.call.input-requested.v1");
        insert(database, "Taskforce|not-a-task", CREATED);
        JournalQueries queries = new JournalQueries(database);

        List<JournalQueries.EventRow> rows = queries.latestRowsOf(TASK, Set.of(CREATED, ASKED));

        assertEquals(
                List.of("Task|fresh 1 " + CREATED, "Task|waiting-1 2 " + ASKED, "Task|waiting-2 3 " + ASKED),
                sorted(rows.stream()
                        .map(row -> row.persistenceId() + " " + row.sequenceNumber() + " " + row.manifest())
                        .toList()));
        assertEquals(List.of(), queries.latestRowsOf("Nothing|", Set.of(CREATED)));
        assertEquals(List.of(), queries.latestRowsOf(TASK, Set.of()));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Store.class)
    void rowsAfterAnOrderingComeInOrderingOrderUpToTheLimit(Store store, @TempDir Path dir) throws Exception {
        JournalDatabase database = store.freshJournal(dir);
        JournalQueries queries = new JournalQueries(database);
        assertEquals(0, queries.highestOrdering(), "an empty journal");
        insert(database, "Task|a", CREATED, ASKED);
        insert(database, "Session|s", "parley.session.opened.v1");
        insert(database, "Task|b", CREATED);

        List<JournalQueries.EventRow> all = queries.rowsAfter(0, 100);
        List<JournalQueries.EventRow> lastTwo = queries.rowsAfter(all.get(1).ordering(), 2);

        assertEquals(
                List.of(
                        "Task|a " + CREATED,
                        "Task|a " + ASKED,
                        "Session|s parley.session.opened.v1",
                        "Task|b " + CREATED),
                all.stream()
                        .map(row -> row.persistenceId() + " " + row.manifest())
                        .toList());
        assertEquals(all.subList(2, 4), lastTwo);
        assertEquals(all.get(3).ordering(), queries.highestOrdering());
        assertEquals(List.of(), queries.rowsAfter(queries.highestOrdering(), 100));
    }

    // --- rows ------------------------------------------------------------------------------------

    /** Events 1..n of {@code persistenceId}, with these manifests, in order. */
    private static void insert(JournalDatabase database, String persistenceId, String... manifests)
            throws SQLException {
        for (int i = 0; i < manifests.length; i++) {
            insertAt(database, persistenceId, i + 1, manifests[i]);
        }
    }

    /** One journal row as pekko-persistence-jdbc writes it (the ordering column fills itself). */
    private static void insertAt(JournalDatabase database, String persistenceId, long sequenceNumber, String manifest)
            throws SQLException {
        try (Connection connection = JournalTables.connect(database);
                PreparedStatement insert = connection.prepareStatement("INSERT INTO event_journal "
                        + "(persistence_id, sequence_number, writer, write_timestamp, adapter_manifest, "
                        + "event_ser_id, event_ser_manifest, event_payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, persistenceId);
            insert.setLong(2, sequenceNumber);
            insert.setString(3, "test-writer");
            insert.setLong(4, 1_785_000_000_000L + sequenceNumber);
            insert.setString(5, "");
            insert.setInt(6, JournalEventSerializer.IDENTIFIER);
            insert.setString(7, manifest);
            insert.setBytes(8, "{}".getBytes(StandardCharsets.UTF_8));
            insert.executeUpdate();
        }
    }

    /** The ids (after the prefix) of the tasks whose latest event is a working one. */
    private static List<String> working(JournalDatabase database) {
        return new JournalQueries(database)
                .latestRowsOf(TASK, WORKING).stream()
                        .map(row -> row.persistenceId().substring(TASK.length()))
                        .toList();
    }

    private static List<String> sorted(List<String> ids) {
        return ids.stream().sorted().toList();
    }
}
