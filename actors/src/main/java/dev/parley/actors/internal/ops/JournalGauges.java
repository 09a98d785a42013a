package dev.parley.actors.internal.ops;

import dev.parley.actors.internal.journal.OpenEntities;
import dev.parley.actors.internal.journal.OpenEntities.Status;
import dev.parley.persistence.internal.TaskEvent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cluster-wide gauges read from the journal (what an entity in memory cannot tell: most waiting
 * calls have left memory): calls waiting for input, and open tasks by status. Run periodically
 * on the housekeeping thread; a scrape reads the last values.
 */
public final class JournalGauges implements Runnable {
    private final OpenEntities open;
    private final Map<Status, AtomicLong> gauges = new EnumMap<>(Status.class);

    public JournalGauges(OpenEntities open, MeterRegistry registry) {
        this.open = open;
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
    public void run() {
        open.refresh();
        open.counts().forEach((status, count) -> gauges.get(status).set(count));
    }
}
