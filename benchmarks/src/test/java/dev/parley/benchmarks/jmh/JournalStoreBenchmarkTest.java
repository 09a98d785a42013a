package dev.parley.benchmarks.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalEventSerializer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each store of {@link JournalStoreBenchmark} starts, takes one flow through a node's entity and
 * one plain batch, and gives the flow's three events back in order.
 */
class JournalStoreBenchmarkTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite", "postgres", "postgres-async"})
    @Timeout(60)
    void aFlowThroughTheEntityAndAPlainBatchAreReadBack(String store) throws Exception {
        JournalStoreBenchmark bench = new JournalStoreBenchmark();
        bench.store = store;
        bench.start();
        try {
            JournalStoreBenchmark.EntityJournal entity = new JournalStoreBenchmark.EntityJournal();
            entity.start(bench); // runs one flow
            String callId = UUID.randomUUID().toString();
            try {
                bench.flow(entity.sharding, callId).get(30, TimeUnit.SECONDS);
            } finally {
                entity.stop();
            }
            JournalDatabase database = bench.storeUnderTestDatabase();
            assertDurabilitySettings(store, database);
            assertEquals(
                    List.of(
                            CallEvent.CallStarted.class,
                            CallEvent.AnswersReceived.class,
                            CallEvent.CallCompleted.class),
                    eventTypes(database, ToolCallEntity.ENTITY_TYPE_KEY.name() + "|" + callId));

            JournalStoreBenchmark.PlainJournal plain = new JournalStoreBenchmark.PlainJournal();
            plain.start(bench);
            String plainCall = "plain|" + UUID.randomUUID();
            try {
                String[] calls = {plainCall};
                JournalStoreBenchmark.insertBatch(plain, calls, 0, 1);
                JournalStoreBenchmark.insertBatch(plain, calls, 1, 3);
            } finally {
                plain.stop();
            }
            assertEquals(
                    List.of(
                            CallEvent.CallStarted.class,
                            CallEvent.AnswersReceived.class,
                            CallEvent.CallCompleted.class),
                    eventTypes(database, plainCall));
        } finally {
            bench.stop();
        }
    }

    /** The settings the guarantees in StoreUnderTest's description rest on are the ones in force. */
    private static void assertDurabilitySettings(String store, JournalDatabase database) throws Exception {
        List<String> settings = switch (store) {
            case "sqlite" -> List.of("PRAGMA journal_mode", "wal", "PRAGMA synchronous", "1"); // 1 is NORMAL
            case "postgres" -> List.of("SHOW synchronous_commit", "on", "SHOW fsync", "on");
            case "postgres-async" -> List.of("SHOW synchronous_commit", "off", "SHOW fsync", "on");
            default -> List.of();
        };
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                Statement statement = connection.createStatement()) {
            for (int i = 0; i < settings.size(); i += 2) {
                try (ResultSet value = statement.executeQuery(settings.get(i))) {
                    value.next();
                    assertEquals(settings.get(i + 1), value.getString(1), settings.get(i));
                }
            }
        }
    }

    private static List<Class<?>> eventTypes(JournalDatabase database, String persistenceId) throws Exception {
        JournalEventSerializer serializer = new JournalEventSerializer();
        List<Class<?>> types = new ArrayList<>();
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement select = connection.prepareStatement(
                        "SELECT \"event_payload\", \"event_ser_manifest\""
                                + " FROM \"event_journal\" WHERE \"persistence_id\" = ? ORDER BY \"sequence_number\"")) {
            select.setString(1, persistenceId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    types.add(serializer
                            .fromBinary(rows.getBytes(1), rows.getString(2))
                            .getClass());
                }
            }
        }
        return types;
    }
}
