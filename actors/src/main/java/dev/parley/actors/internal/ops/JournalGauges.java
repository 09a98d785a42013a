package dev.parley.actors.internal.ops;

import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalEvent;
import dev.parley.persistence.internal.JournalQueries;
import dev.parley.persistence.internal.JournalQueries.EventRow;
import dev.parley.persistence.internal.TaskEvent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cluster-wide gauges read from the journal (what an entity in memory cannot tell: most waiting
 * calls have left memory): calls waiting for input, and open tasks by status. Run periodically
 * on the housekeeping thread; a scrape reads the last values.
 *
 * <p>An entity's status is that of its latest event ({@link CallEvent#TYPES}, {@link
 * TaskEvent#TYPES}). The gauges keep the open entities in memory and follow the journal: a run
 * reads only the rows written since the one before, so its cost follows the write rate, not the
 * journal's size. Every {@link #RUNS_PER_COUNT}th run counts afresh from each entity's latest
 * event, which also forgets entities that retention deleted and, on PostgreSQL, catches a row
 * that was committed after a row with a higher ordering had been read.
 */
public final class JournalGauges implements Runnable {
    static final int RUNS_PER_COUNT = 20;
    private static final int ROWS_PER_READ = 10_000;
    /** A run stops following the journal after this many full reads and goes on at the next run. */
    private static final int READS_PER_RUN = 20;

    private enum Status {
        WAITING_CALL("ToolCall|", JournalEvent.storedNames(CallEvent.TYPES, s -> s == CallEvent.Status.WAITING)),
        WORKING_TASK("Task|", JournalEvent.storedNames(TaskEvent.TYPES, s -> s == TaskEvent.Status.WORKING)),
        INPUT_REQUIRED_TASK(
                "Task|", JournalEvent.storedNames(TaskEvent.TYPES, s -> s == TaskEvent.Status.INPUT_REQUIRED));

        final String prefix;
        /** The manifests of the events that leave an entity under {@link #prefix} in this status. */
        final Set<String> manifests;

        Status(String prefix, Set<String> manifests) {
            this.prefix = prefix;
            this.manifests = manifests;
        }

        static Status of(String persistenceId, String manifest) {
            for (Status status : values()) {
                if (persistenceId.startsWith(status.prefix) && status.manifests.contains(manifest)) {
                    return status;
                }
            }
            return null;
        }
    }

    /** An open entity's latest event, as far as the gauges have read. */
    private record Open(long sequenceNumber, Status status) {}

    private final JournalQueries journal;
    private final int runsPerCount;
    private final Map<Status, AtomicLong> gauges = new EnumMap<>(Status.class);
    private final Map<String, Open> open = new HashMap<>();
    private long readUpTo;
    private int runsUntilCount;

    public JournalGauges(JournalQueries journal, MeterRegistry registry) {
        this(journal, registry, RUNS_PER_COUNT);
    }

    JournalGauges(JournalQueries journal, MeterRegistry registry, int runsPerCount) {
        this.journal = journal;
        this.runsPerCount = runsPerCount;
        for (Status status : Status.values()) {
            gauges.put(status, new AtomicLong());
        }
        Gauge.builder("parley.calls.waiting", gauges.get(Status.WAITING_CALL), AtomicLong::get)
                .description("Durable calls waiting for the client's answers, cluster-wide (from the journal)")
                .register(registry);
        Gauge.builder("parley.tasks.open", gauges.get(Status.WORKING_TASK), AtomicLong::get)
                .description("Open tasks by status, cluster-wide (from the journal)")
                .tag("status", TaskEvent.Status.WORKING.label())
                .register(registry);
        Gauge.builder("parley.tasks.open", gauges.get(Status.INPUT_REQUIRED_TASK), AtomicLong::get)
                .description("Open tasks by status, cluster-wide (from the journal)")
                .tag("status", TaskEvent.Status.INPUT_REQUIRED.label())
                .register(registry);
    }

    @Override
    public synchronized void run() {
        if (runsUntilCount-- <= 0) {
            countAfresh();
            runsUntilCount = runsPerCount - 1;
        }
        readNewRows();
        Map<Status, Long> counts = new EnumMap<>(Status.class);
        open.values().forEach(entity -> counts.merge(entity.status(), 1L, Long::sum));
        gauges.forEach((status, gauge) -> gauge.set(counts.getOrDefault(status, 0L)));
    }

    private void countAfresh() {
        // Rows written after this ordering are read again below; applying them twice is harmless.
        long upTo = journal.highestOrdering();
        open.clear();
        for (Status status : Status.values()) {
            journal.latestRowsOf(status.prefix, status.manifests).forEach(this::apply);
        }
        readUpTo = upTo;
    }

    private void readNewRows() {
        for (int reads = 0; reads < READS_PER_RUN; reads++) {
            List<EventRow> rows = journal.rowsAfter(readUpTo, ROWS_PER_READ);
            for (EventRow row : rows) {
                apply(row);
                readUpTo = row.ordering();
            }
            if (rows.size() < ROWS_PER_READ) {
                return;
            }
        }
    }

    private void apply(EventRow row) {
        Open known = open.get(row.persistenceId());
        if (known != null && row.sequenceNumber() < known.sequenceNumber()) {
            return; // an event older than the one already read
        }
        Status status = Status.of(row.persistenceId(), row.manifest());
        if (status == null) {
            open.remove(row.persistenceId());
        } else {
            open.put(row.persistenceId(), new Open(row.sequenceNumber(), status));
        }
    }
}
