package dev.parley.actors.internal.ops;

import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalEvent;
import dev.parley.persistence.internal.JournalQueries;
import dev.parley.persistence.internal.TaskEvent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cluster-wide gauges read from the journal (what an entity in memory cannot tell: most waiting
 * calls have left memory): calls waiting for input, and open tasks by status. Run periodically
 * on the housekeeping thread; a scrape reads the last values. One run is one query: the journal
 * counts entities by their latest event's manifest, and each gauge sums the counts of the
 * manifests that leave the status it shows ({@link CallEvent#TYPES}, {@link TaskEvent#TYPES}).
 */
public final class JournalGauges implements Runnable {
    private static final String CALLS = "ToolCall|";
    private static final String TASKS = "Task|";
    /** A call whose latest event is one of these waits for answers. */
    private static final Set<String> CALL_WAITING =
            JournalEvent.storedNames(CallEvent.TYPES, status -> status == CallEvent.Status.WAITING);

    private static final Set<String> TASK_WORKING =
            JournalEvent.storedNames(TaskEvent.TYPES, status -> status == TaskEvent.Status.WORKING);
    private static final Set<String> TASK_INPUT_REQUIRED =
            JournalEvent.storedNames(TaskEvent.TYPES, status -> status == TaskEvent.Status.INPUT_REQUIRED);

    private final JournalQueries journal;
    private final AtomicLong waitingCalls = new AtomicLong();
    private final AtomicLong workingTasks = new AtomicLong();
    private final AtomicLong inputRequiredTasks = new AtomicLong();

    public JournalGauges(JournalQueries journal, MeterRegistry registry) {
        this.journal = journal;
        Gauge.builder("parley.calls.waiting", waitingCalls, AtomicLong::get)
                .description("Durable calls waiting for the client's answers, cluster-wide (from the journal)")
                .register(registry);
        Gauge.builder("parley.tasks.open", workingTasks, AtomicLong::get)
                .description("Open tasks by status, cluster-wide (from the journal)")
                .tag("status", TaskEvent.Status.WORKING.label())
                .register(registry);
        Gauge.builder("parley.tasks.open", inputRequiredTasks, AtomicLong::get)
                .description("Open tasks by status, cluster-wide (from the journal)")
                .tag("status", TaskEvent.Status.INPUT_REQUIRED.label())
                .register(registry);
    }

    @Override
    public void run() {
        Map<String, Map<String, Long>> latest = journal.latestManifestCounts(List.of(CALLS, TASKS));
        waitingCalls.set(countIn(latest.get(CALLS), CALL_WAITING));
        workingTasks.set(countIn(latest.get(TASKS), TASK_WORKING));
        inputRequiredTasks.set(countIn(latest.get(TASKS), TASK_INPUT_REQUIRED));
    }

    /** Entities whose latest event is one of {@code manifests}. */
    private static long countIn(Map<String, Long> entitiesByLatestManifest, Set<String> manifests) {
        return entitiesByLatestManifest.entrySet().stream()
                .filter(entry -> manifests.contains(entry.getKey()))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }
}
