package dev.parley.actors.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An ended task is counted and timed under its own status, however many tasks ended before it. */
class TaskMetricsTest {
    private final ActorTestKit kit = ActorTestKit.create(
            ConfigFactory.parseString("pekko.actor.provider = local").withFallback(ConfigFactory.load()));

    @AfterEach
    void stop() {
        kit.shutdownTestKit();
    }

    @Test
    void eachStatusHasItsOwnDurationTimer() {
        ParleyMetrics metrics = ParleyMetrics.get(kit.system());
        metrics.taskEnded("completed", Duration.ofMillis(5));
        metrics.taskEnded("failed", Duration.ofMillis(40));
        metrics.taskEnded("completed", Duration.ofMillis(7));
        metrics.taskEnded("cancelled", Duration.ofMillis(-1)); // a clock step back counts as zero

        MeterRegistry registry = metrics.registry();
        assertEquals(2, timerCount(registry, "completed"));
        assertEquals(12, timerTotalMillis(registry, "completed"));
        assertEquals(1, timerCount(registry, "failed"));
        assertEquals(40, timerTotalMillis(registry, "failed"));
        assertEquals(1, timerCount(registry, "cancelled"));
        assertEquals(0, timerTotalMillis(registry, "cancelled"));
        assertEquals(
                2,
                registry.get("parley.tasks")
                        .tag("status", "completed")
                        .counter()
                        .count());
    }

    private static long timerCount(MeterRegistry registry, String status) {
        return registry.get("parley.task.duration")
                .tag("status", status)
                .timer()
                .count();
    }

    private static double timerTotalMillis(MeterRegistry registry, String status) {
        return registry.get("parley.task.duration")
                .tag("status", status)
                .timer()
                .totalTime(TimeUnit.MILLISECONDS);
    }
}
