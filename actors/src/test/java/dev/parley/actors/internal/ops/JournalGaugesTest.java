package dev.parley.actors.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.parley.actors.internal.journal.OpenEntities;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import dev.parley.persistence.internal.JournalEventSerializer;
import dev.parley.persistence.internal.JournalQueries;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal-backed gauges count each entity once, by its latest event, on a real SQLite file journal (the default store). */
class JournalGaugesTest {
    private static final String CALL_STARTED = "parley.call.started.v1";
    private static final String CALL_ASKED = "parley.call.input-requested.v1";
    private static final String CALL_ANSWERED = "parley.call.answers-received.v1";
    private static final String CALL_COMPLETED = "parley.call.completed.v1";
    private static final String CALL_BECAME_TASK = "parley.call.became-task.v1";
    private static final String TASK_CREATED = "parley.task.created.v1";
    private static final String TASK_STEP = "parley.task.step-recorded.v1";
    private static final String TASK_ASKED = "parley.task.input-requested.v1";
    private static final String TASK_COMPLETED = "parley.task.completed.v1";

    @Test
    void waitingCallsAndOpenTasksByStatusComeFromEachEntitysLatestEvent(@TempDir Path dir) throws Exception {
        JournalDatabase database = new JournalDatabase.SqliteFile(dir.resolve("journal"));
        JournalSchema.create(database);
        insert(database, "ToolCall|started", CALL_STARTED);
        insert(database, "ToolCall|asked", CALL_STARTED, CALL_ASKED);
        insert(database, "ToolCall|asked-again", CALL_STARTED, CALL_ASKED, CALL_ANSWERED, CALL_ASKED);
        insert(database, "ToolCall|answered", CALL_STARTED, CALL_ASKED, CALL_ANSWERED);
        insert(database, "ToolCall|completed", CALL_STARTED, CALL_COMPLETED);
        insert(database, "ToolCall|became-task", CALL_STARTED, CALL_BECAME_TASK);
        insert(database, "Task|created", TASK_CREATED);
        insert(database, "Task|stepping", TASK_CREATED, TASK_STEP);
        insert(database, "Task|asked", TASK_CREATED, TASK_ASKED);
        insert(database, "Task|done", TASK_CREATED, TASK_COMPLETED);
        insert(database, "Session|s", "parley.session.opened.v1");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        new JournalGauges(new OpenEntities(new JournalQueries(database)), registry).run();

        assertEquals(3, registry.get("parley.calls.waiting").gauge().value(), "started, asked, asked-again");
        assertEquals(2, openTasks(registry, "working"), "created, stepping");
        assertEquals(1, openTasks(registry, "input_required"));
    }

    @Test
    void anEmptyJournalHasNothingWaitingOrOpen(@TempDir Path dir) {
        JournalDatabase database = new JournalDatabase.SqliteFile(dir.resolve("journal"));
        JournalSchema.create(database);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        new JournalGauges(new OpenEntities(new JournalQueries(database)), registry).run();

        assertEquals(0, registry.get("parley.calls.waiting").gauge().value());
        assertEquals(0, openTasks(registry, "working"));
        assertEquals(0, openTasks(registry, "input_required"));
    }

    @Test
    void aRunFollowsTheRowsWrittenSinceTheLastAndTheCountAfreshEveryFewMinutesForgetsDeletedEntities(@TempDir Path dir)
            throws Exception {
        JournalDatabase database = new JournalDatabase.SqliteFile(dir.resolve("journal"));
        JournalSchema.create(database);
        insert(database, "ToolCall|a", CALL_STARTED, CALL_ASKED);
        insert(database, "Task|t", TASK_CREATED);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MovableClock clock = new MovableClock();
        JournalGauges gauges = new JournalGauges(
                new OpenEntities(new JournalQueries(database), Duration.ofMinutes(5), clock), registry);

        gauges.run(); // counts afresh
        assertEquals(1, registry.get("parley.calls.waiting").gauge().value());

        append(database, "ToolCall|a", 3, CALL_ANSWERED, CALL_COMPLETED);
        insert(database, "ToolCall|b", CALL_STARTED);
        insert(database, "ToolCall|c", CALL_STARTED, CALL_ASKED);
        append(database, "Task|t", 2, TASK_ASKED);
        gauges.run(); // follows
        assertEquals(2, registry.get("parley.calls.waiting").gauge().value(), "b and c; a completed");
        assertEquals(0, openTasks(registry, "working"));
        assertEquals(1, openTasks(registry, "input_required"));

        delete(database, "ToolCall|b"); // as retention deletes an abandoned call
        clock.advance(Duration.ofMinutes(4));
        gauges.run(); // follows: a deleted row is not seen
        assertEquals(2, registry.get("parley.calls.waiting").gauge().value());
        clock.advance(Duration.ofMinutes(1));
        gauges.run(); // counts afresh
        assertEquals(1, registry.get("parley.calls.waiting").gauge().value(), "c");
    }

    private static double openTasks(SimpleMeterRegistry registry, String status) {
        return registry.get("parley.tasks.open").tag("status", status).gauge().value();
    }

    private static final class MovableClock extends Clock {
        private Instant now = Instant.parse("2026-12-03T10:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }

    private static void delete(JournalDatabase database, String persistenceId) throws SQLException {
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement delete =
                        connection.prepareStatement("DELETE FROM \"event_journal\" WHERE \"persistence_id\" = ?")) {
            delete.setString(1, persistenceId);
            delete.executeUpdate();
        }
    }

    /** Events 1..n of {@code persistenceId}, as pekko-persistence-jdbc writes them. */
    private static void insert(JournalDatabase database, String persistenceId, String... manifests)
            throws SQLException {
        append(database, persistenceId, 1, manifests);
    }

    /** Events from {@code firstSequenceNumber} on of {@code persistenceId}. */
    private static void append(
            JournalDatabase database, String persistenceId, long firstSequenceNumber, String... manifests)
            throws SQLException {
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement insert = connection.prepareStatement("INSERT INTO \"event_journal\" "
                        + "(\"persistence_id\", \"sequence_number\", \"writer\", \"write_timestamp\", "
                        + "\"adapter_manifest\", \"event_ser_id\", \"event_ser_manifest\", \"event_payload\") "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < manifests.length; i++) {
                insert.setString(1, persistenceId);
                insert.setLong(2, firstSequenceNumber + i);
                insert.setString(3, "test-writer");
                insert.setLong(4, 1_785_000_000_000L + i);
                insert.setString(5, "");
                insert.setInt(6, JournalEventSerializer.IDENTIFIER);
                insert.setString(7, manifests[i]);
                insert.setBytes(8, "{}".getBytes(StandardCharsets.UTF_8));
                insert.executeUpdate();
            }
        }
    }
}
