package dev.parley.actors.internal;

import dev.parley.actors.internal.journal.OpenEntities;
import java.util.List;
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

    private final OpenEntities open;
    private final ClusterSharding sharding;

    public TaskResumer(OpenEntities open, ClusterSharding sharding) {
        this.open = open;
        this.sharding = sharding;
    }

    @Override
    public void run() {
        try {
            open.refresh();
            List<String> working = open.ids(OpenEntities.Status.WORKING_TASK);
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
