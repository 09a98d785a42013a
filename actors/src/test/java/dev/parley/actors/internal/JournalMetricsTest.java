package dev.parley.actors.internal;

import static dev.parley.actors.internal.NodeDriver.ELICITATION;
import static dev.parley.actors.internal.NodeDriver.dispatch;
import static dev.parley.actors.internal.NodeDriver.toolsCall;
import static dev.parley.actors.internal.TestTools.VENUE_ARGS;
import static dev.parley.actors.internal.TestTools.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.internal.state.RequestStateKey;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's meters (MeteredJdbcJournal, MeteredJournalDao) on both journal databases:
 * the events written, the rows of the database batches and the events replayed on recovery
 * equal the rows the journal table really holds.
 */
class JournalMetricsTest {
    @TempDir
    Path data;

    @Test
    void theJournalMetersCountEveryEventOnTheEmbeddedJournal() throws Exception {
        exactCountsOf(NodeDriver.configuredJournal(data));
    }

    @Test
    void theJournalMetersCountEveryEventOnPostgres() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
            try (Connection connection = postgres.getPostgresDatabase().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE parley_metrics");
            }
            exactCountsOf(new JournalDatabase.Postgres(
                    "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/parley_metrics", "postgres", "postgres"));
        }
    }

    private static void exactCountsOf(JournalDatabase database) throws Exception {
        TestTools.resetCounters();
        RequestStateKey key = RequestStateKey.generate();
        String dateAnswer = "{\"date\":" + accept("{\"date\":\"2026-09-12\"}") + "}";
        String confirmAnswer = "{\"confirm\":" + accept("{\"ok\":true}") + "}";
        String lastState;
        try (ParleyNode node = NodeDriver.start(database, key)) {
            MeterRegistry registry = ParleyMetrics.get(node.system()).registry();
            JsonNode asked = dispatch(node, toolsCall(1, "book_venue", VENUE_ARGS, null, null, ELICITATION), "alice");
            JsonNode confirm = dispatch(
                    node,
                    toolsCall(
                            2,
                            "book_venue",
                            VENUE_ARGS,
                            asked.at("/result/requestState").asText(),
                            dateAnswer,
                            ELICITATION),
                    "alice");
            lastState = confirm.at("/result/requestState").asText();
            JsonNode done = dispatch(
                    node, toolsCall(3, "book_venue", VENUE_ARGS, lastState, confirmAnswer, ELICITATION), "alice");
            assertEquals("complete", done.at("/result/resultType").asText(), done.toString());

            int rows = NodeDriver.journal(database).size();
            assertEquals(6, rows, "started, step, answers, input requested, answers, completed");
            awaitValue(
                    registry, "parley.journal.events.written", r -> r.counter().count(), rows);
            awaitValue(registry, "parley.journal.batch.rows", r -> r.summary().totalAmount(), rows);
            long batches = Search.in(registry)
                    .name("parley.journal.batch.rows")
                    .summary()
                    .count();
            assertTrue(batches >= 1 && batches <= rows, "database transactions: " + batches);
            long writes = Search.in(registry)
                    .name("parley.journal.write.duration")
                    .tag("outcome", "ok")
                    .timer()
                    .count();
            assertTrue(writes >= 1 && writes <= rows, "entity writes: " + writes);
            assertEquals(
                    0,
                    Search.in(registry)
                            .name("parley.journal.write.duration")
                            .tag("outcome", "failed")
                            .timer()
                            .count());
            assertTrue(Search.in(registry)
                            .name("parley.journal.write.duration")
                            .tag("outcome", "ok")
                            .timer()
                            .totalTime(TimeUnit.NANOSECONDS)
                    > 0);
        }

        // A new node recovers the call from the journal to answer the retry of its last round.
        try (ParleyNode node = NodeDriver.start(database, key)) {
            MeterRegistry registry = ParleyMetrics.get(node.system()).registry();
            JsonNode again = dispatch(
                    node, toolsCall(4, "book_venue", VENUE_ARGS, lastState, confirmAnswer, ELICITATION), "alice");
            assertEquals("complete", again.at("/result/resultType").asText(), again.toString());
            int rows = NodeDriver.journal(database).size();
            awaitValue(
                    registry, "parley.journal.events.replayed", r -> r.counter().count(), rows);
            assertTrue(Search.in(registry)
                            .name("parley.journal.replay.duration")
                            .tag("outcome", "ok")
                            .timer()
                            .count()
                    >= 1);
            assertEquals(
                    rows - 6,
                    Search.in(registry)
                            .name("parley.journal.events.written")
                            .counter()
                            .count(),
                    "the retry wrote only what the table gained");
        }
    }

    /**
     * The meters are updated when the journal's write completes, beside the entity's own
     * acknowledgement: wait (bounded) for the value, then check it is exactly the expected one.
     */
    private static void awaitValue(MeterRegistry registry, String name, ToDoubleFunction<Search> value, double expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        double seen = value.applyAsDouble(Search.in(registry).name(name));
        while (seen < expected && System.nanoTime() < deadline) {
            Thread.sleep(50);
            seen = value.applyAsDouble(Search.in(registry).name(name));
        }
        Thread.sleep(200); // nothing more arrives late
        assertEquals(expected, value.applyAsDouble(Search.in(registry).name(name)), name);
    }
}
