package dev.parley.actors.internal.ops;

import dev.parley.persistence.internal.JournalEventSerializer;
import dev.parley.persistence.internal.JournalQueries;
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
 * counts entities by their latest event's manifest, and the three gauges are sums of those counts.
 */
public final class JournalGauges implements Runnable {
    private static final String CALLS = "ToolCall|";
    private static final String TASKS = "Task|";
    /** A call whose latest event is not one of these waits for answers (CallStarted or InputRequested). */
    private static final Set<String> CALL_NOT_WAITING = Set.of(
            "parley.call.completed.v1",
            "parley.call.failed.v1",
            "parley.call.became-task.v1",
            "parley.call.step-recorded.v1",
            "parley.call.answers-received.v1");
    /** A task whose latest event is not one of these is working. */
    private static final Set<String> TASK_NOT_WORKING = Set.of(
            JournalEventSerializer.TASK_INPUT_REQUESTED,
            JournalEventSerializer.TASK_COMPLETED,
            JournalEventSerializer.TASK_FAILED,
            JournalEventSerializer.TASK_CANCELLED);
    /** A task whose latest event is not one of these waits for input. */
    private static final Set<String> TASK_NOT_INPUT_REQUIRED = Set.of(
            JournalEventSerializer.TASK_CREATED,
            "parley.task.step-recorded.v1",
            "parley.task.answers-received.v1",
            JournalEventSerializer.TASK_COMPLETED,
            JournalEventSerializer.TASK_FAILED,
            JournalEventSerializer.TASK_CANCELLED);

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
                .tag("status", "working")
                .register(registry);
        Gauge.builder("parley.tasks.open", inputRequiredTasks, AtomicLong::get)
                .description("Open tasks by status, cluster-wide (from the journal)")
                .tag("status", "input_required")
                .register(registry);
    }

    @Override
    public void run() {
        Map<String, Map<String, Long>> latest = journal.latestManifestCounts(List.of(CALLS, TASKS));
        waitingCalls.set(countNotIn(latest.get(CALLS), CALL_NOT_WAITING));
        workingTasks.set(countNotIn(latest.get(TASKS), TASK_NOT_WORKING));
        inputRequiredTasks.set(countNotIn(latest.get(TASKS), TASK_NOT_INPUT_REQUIRED));
    }

    /** Entities whose latest event is none of {@code excluded}. */
    private static long countNotIn(Map<String, Long> entitiesByLatestManifest, Set<String> excluded) {
        return entitiesByLatestManifest.entrySet().stream()
                .filter(entry -> !excluded.contains(entry.getKey()))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }
}
