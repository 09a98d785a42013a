package dev.parley.actors.internal.ops;

import dev.parley.persistence.internal.CallEvent.CallStarted;
import dev.parley.persistence.internal.TaskEvent.TaskCreated;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one INFO line of each durable call and task, when it ends (outcome, rounds, duration),
 * with the call's MDC fields alone. Single requests log nothing at INFO: the metrics count them.
 */
public final class CallLog {
    private static final Logger log = LoggerFactory.getLogger(CallLog.class);

    private CallLog() {}

    public static void callEnded(String callId, CallStarted call, String outcome, int rounds) {
        try (CallMdc.Alone mdc = CallMdc.alone(call.method(), call.name(), callId, rounds, null, call.principal())) {
            log.info(
                    "call ended: {} after {} rounds in {} ms",
                    outcome,
                    rounds,
                    Duration.between(call.startedAt(), Instant.now()).toMillis());
        }
    }

    public static void taskEnded(String taskId, TaskCreated task, String status, Duration took) {
        try (CallMdc.Alone mdc = CallMdc.alone(task.method(), task.name(), null, null, taskId, task.principal())) {
            log.info("task ended: {} in {} ms", status, took.toMillis());
        }
    }
}
