package dev.parley.actors.internal.journal;

import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalEvent;
import dev.parley.persistence.internal.JournalQueries;
import dev.parley.persistence.internal.JournalQueries.EventRow;
import dev.parley.persistence.internal.TaskEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The calls and tasks the journal says are open, cluster-wide, by the status their latest event
 * leaves them in ({@link CallEvent#TYPES}, {@link TaskEvent#TYPES}): what the journal-backed
 * gauges show and the task resumer wakes.
 *
 * <p>It follows the journal: a {@link #refresh()} reads only the rows written since the one
 * before, so its cost follows the write rate, not the journal's size. Every {@code countEvery}
 * it counts afresh from each entity's latest event, which also forgets entities that retention
 * deleted and, on PostgreSQL, catches a row committed after a row with a higher ordering had
 * been read. Used from the housekeeping thread.
 */
public final class OpenEntities {
    /** How often the open entities are counted afresh from the whole journal. */
    public static final Duration COUNT_EVERY = Duration.ofMinutes(5);

    private static final int ROWS_PER_READ = 10_000;
    /** A refresh stops after this many full reads and goes on at the next one. */
    private static final int READS_PER_REFRESH = 20;

    public enum Status {
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

    /** An open entity's latest event, as far as this has read. */
    private record Open(long sequenceNumber, Status status) {}

    private final JournalQueries journal;
    private final Duration countEvery;
    private final Clock clock;
    private final Map<String, Open> open = new HashMap<>();
    private long readUpTo;
    private Instant countedAt;

    public OpenEntities(JournalQueries journal) {
        this(journal, COUNT_EVERY, Clock.systemUTC());
    }

    public OpenEntities(JournalQueries journal, Duration countEvery, Clock clock) {
        this.journal = journal;
        this.countEvery = countEvery;
        this.clock = clock;
    }

    /** Reads what the journal took since the last refresh (counts afresh when due). */
    public synchronized void refresh() {
        Instant now = clock.instant();
        if (countedAt == null || !now.isBefore(countedAt.plus(countEvery))) {
            countAfresh();
            countedAt = now;
        }
        for (int reads = 0; reads < READS_PER_REFRESH; reads++) {
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

    /** How many entities are in each status. */
    public synchronized Map<Status, Long> counts() {
        Map<Status, Long> counts = new EnumMap<>(Status.class);
        for (Status status : Status.values()) {
            counts.put(status, 0L);
        }
        open.values().forEach(entity -> counts.merge(entity.status(), 1L, Long::sum));
        return counts;
    }

    /** The entity ids (after the prefix) in {@code status}. */
    public synchronized List<String> ids(Status status) {
        return open.entrySet().stream()
                .filter(entry -> entry.getValue().status() == status)
                .map(entry -> entry.getKey().substring(status.prefix.length()))
                .toList();
    }

    private void countAfresh() {
        // Rows written after this ordering are read again by the refresh; applying them twice is harmless.
        long upTo = journal.highestOrdering();
        open.clear();
        for (Status status : Status.values()) {
            journal.latestRowsOf(status.prefix, status.manifests).forEach(this::apply);
        }
        readUpTo = upTo;
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
