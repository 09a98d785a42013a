package dev.parley.actors.internal;

import dev.parley.persistence.internal.JournalEvent;
import dev.parley.persistence.internal.JournalQueries;
import dev.parley.persistence.internal.TaskEvent;
import java.util.List;
import java.util.Set;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds tasks whose journal says they are working and wakes them through sharding, so a task
 * whose node died (or a whole server that was killed) goes on by itself, without waiting for a
 * client to poll. Waking a task that already runs does nothing; every node may scan.
 */
public final class TaskResumer implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(TaskResumer.class);
    /** While the journal is away every scan fails; a few lines a minute say so. */
    private static final dev.parley.runtime.internal.logging.RateLimitedLog scanFailures =
            dev.parley.runtime.internal.logging.RateLimitedLog.perMinute(log, org.slf4j.event.Level.WARN, 2);
    /** A task whose latest event is one of these is waiting or done: nothing to resume. */
    private static final Set<String> RESTING =
            JournalEvent.storedNames(TaskEvent.TYPES, status -> status != TaskEvent.Status.WORKING);

    private final JournalQueries journal;
    private final ClusterSharding sharding;

    public TaskResumer(JournalQueries journal, ClusterSharding sharding) {
        this.journal = journal;
        this.sharding = sharding;
    }

    @Override
    public void run() {
        try {
            List<String> working = journal.busyEntityIds(TaskEntity.ENTITY_TYPE_KEY.name() + "|", RESTING);
            working.forEach(taskId ->
                    sharding.entityRefFor(TaskEntity.ENTITY_TYPE_KEY, taskId).tell(new TaskEntity.Wake()));
            if (!working.isEmpty()) {
                log.debug("woke {} working task(s)", working.size());
            }
        } catch (RuntimeException e) {
            scanFailures.log("scanning for working tasks failed; will retry: {}", e.toString());
        }
    }
}
