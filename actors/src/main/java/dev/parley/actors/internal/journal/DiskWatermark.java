package dev.parley.actors.internal.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Free space on the file system that holds the journal, checked every few seconds: below
 * {@code parley.quotas.disk.min-free} the node refuses new durable calls, tasks and sessions
 * (the journal fails far less gracefully once the disk is full), and admits them again as soon
 * as space is freed. Nothing is watched until {@link #watch} names a directory (an embedded
 * journal's, or {@code parley.quotas.disk.path}).
 */
public final class DiskWatermark implements Extension {
    private static final Logger log = LoggerFactory.getLogger(DiskWatermark.class);

    private static final ExtensionId<DiskWatermark> ID = new ExtensionId<>() {
        @Override
        public DiskWatermark createExtension(ActorSystem<?> system) {
            return new DiskWatermark(system);
        }
    };

    private final ActorSystem<?> system;
    private volatile long minFreeBytes;
    private volatile boolean low;

    private DiskWatermark(ActorSystem<?> system) {
        this.system = system;
    }

    public static DiskWatermark get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    /** Checks {@code directory}'s file system now and every {@code interval}; {@code minFreeBytes} 0: never. */
    public void watch(Path directory, long minFreeBytes, Duration interval) {
        if (minFreeBytes <= 0) {
            return;
        }
        this.minFreeBytes = minFreeBytes;
        check(directory);
        system.scheduler()
                .scheduleWithFixedDelay(interval, interval, () -> check(directory), system.executionContext());
    }

    /** Whether free space is below the watermark (as last checked). */
    public boolean low() {
        return low;
    }

    public long minFreeBytes() {
        return minFreeBytes;
    }

    private void check(Path directory) {
        long free;
        try {
            Files.createDirectories(directory);
            free = Files.getFileStore(directory).getUsableSpace();
        } catch (IOException e) {
            return; // unknown: the last verdict stands
        }
        boolean wasLow = low;
        low = free < minFreeBytes;
        if (low != wasLow) {
            if (low) {
                log.warn(
                        "free space for {} is {} bytes, below the watermark of {}: new durable calls and sessions"
                                + " are refused until space is freed",
                        directory,
                        free,
                        minFreeBytes);
            } else {
                log.info(
                        "free space for {} is {} bytes again: new durable calls and sessions are admitted",
                        directory,
                        free);
            }
        }
    }
}
