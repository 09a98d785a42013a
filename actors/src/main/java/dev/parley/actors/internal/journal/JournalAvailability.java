package dev.parley.actors.internal.journal;

import com.typesafe.config.Config;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.logging.RateLimitedLog;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.BackoffSupervisorStrategy;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.persistence.jdbc.db.SlickExtension;
import org.apache.pekko.persistence.jdbc.db.SlickExtensionImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Whether this node's journal can be used, as the node last saw it (the journal goes
 * away and comes back). Entities report every failed write and failed recovery; each report
 * runs a probe (a query through the journal plugin's own connection pool) and only a failing
 * probe marks the journal unavailable, so one bad event does not look like an outage. While it
 * is unavailable:
 * <ul>
 *   <li>requests that need the journal are refused at once with {@link #error()} (the HTTP
 *       transport answers 503 with {@code Retry-After}); the asks that were waiting when it went
 *       away end with that answer too, instead of waiting out {@code parley.ask-timeout};</li>
 *   <li>the node reports not ready;</li>
 *   <li>the probe runs every {@code probe-interval}; the first one that succeeds makes the
 *       journal available again.</li>
 * </ul>
 * Entities that failed restart with {@link #restartStrategy()} and recover from the journal.
 */
public final class JournalAvailability implements Extension {
    private static final Logger log = LoggerFactory.getLogger(JournalAvailability.class);

    private static final ExtensionId<JournalAvailability> ID = new ExtensionId<>() {
        @Override
        public JournalAvailability createExtension(ActorSystem<?> system) {
            // Pekko creates an extension from the actor system alone: the settings are read here, once,
            // from the system's configuration (the one NodeConfig layered).
            return new JournalAvailability(
                    system, Settings.from(system.settings().config()));
        }
    };

    /** The {@code parley.journal-outage} block. */
    public record Settings(
            Duration retryAfter,
            Duration probeInterval,
            Duration probeTimeout,
            Duration restartMinBackoff,
            Duration restartMaxBackoff,
            double restartRandomFactor) {
        public static Settings from(Config config) {
            Config outage = config.getConfig("parley.journal-outage");
            return new Settings(
                    outage.getDuration("retry-after"),
                    outage.getDuration("probe-interval"),
                    outage.getDuration("probe-timeout"),
                    outage.getDuration("restart-backoff.min"),
                    outage.getDuration("restart-backoff.max"),
                    outage.getDouble("restart-backoff.random-factor"));
        }
    }

    /** The answer to a request that needs the journal while it is unavailable; retryable. */
    public static final class Unavailable extends RuntimeException {
        public Unavailable() {
            super("the journal is unavailable", null, false, false);
        }
    }

    /** {@code data} of the error: how long the client should wait before it retries. */
    public record RetryData(long retryAfterSeconds) {}

    private final ActorSystem<?> system;
    private final Settings settings;
    private final Executor blocking;
    private final ErrorObject error;
    // One line per outage and one when it ends; the failure reports behind it are rate-limited.
    private final RateLimitedLog failureLines;
    private final Set<CompletableFuture<?>> waiting = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile boolean unavailable;
    private volatile long unavailableSince;

    private JournalAvailability(ActorSystem<?> system, Settings settings) {
        this.system = system;
        this.settings = settings;
        this.blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
        long retryAfterSeconds = Math.max(1, settings.retryAfter().toSeconds());
        this.error = new ErrorObject(
                ErrorCodes.JOURNAL_UNAVAILABLE,
                "The journal is unavailable; retry the request",
                Json.tree(new RetryData(retryAfterSeconds)));
        this.failureLines = RateLimitedLog.perMinute(log, Level.WARN, 5);
    }

    public static JournalAvailability get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    public Settings settings() {
        return settings;
    }

    /** False from a failed probe until a probe succeeds. */
    public boolean available() {
        return !unavailable;
    }

    /** The JSON-RPC error for a request that needs the journal now ({@code data.retryAfterSeconds}). */
    public ErrorObject error() {
        return error;
    }

    /** Whether {@code failure} (or its cause) says the journal was unavailable. */
    public static boolean isUnavailable(Throwable failure) {
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < 8; depth++, cause = cause.getCause()) {
            if (cause instanceof Unavailable) {
                return true;
            }
        }
        return false;
    }

    /**
     * The supervision of an entity whose write or recovery failed: restart, later and later. The
     * supervisor's own line (an ERROR with a stack trace per entity and restart) is off: in an
     * outage every entity fails, and {@link #journalFailed} reports them, rate-limited.
     */
    public BackoffSupervisorStrategy restartStrategy() {
        return SupervisorStrategy.restartWithBackoff(
                        settings.restartMinBackoff(), settings.restartMaxBackoff(), settings.restartRandomFactor())
                .withLoggingEnabled(false);
    }

    /**
     * An ask whose answer needs the journal: refused at once while the journal is unavailable,
     * else {@code ask}, which ends with {@link Unavailable} if the journal becomes unavailable first.
     */
    public <R> CompletableFuture<R> guard(
            java.util.function.Supplier<? extends java.util.concurrent.CompletionStage<R>> ask) {
        if (unavailable) {
            return CompletableFuture.failedFuture(new Unavailable());
        }
        CompletableFuture<R> result = new CompletableFuture<>();
        waiting.add(result);
        result.whenComplete((value, failure) -> waiting.remove(result));
        if (unavailable) { // went away between the check and the registration
            result.completeExceptionally(new Unavailable());
            return result;
        }
        ask.get().whenComplete((value, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        });
        return result;
    }

    /** An entity could not write to or recover from the journal: probe it now. */
    public void journalFailed(String persistenceId, Throwable cause) {
        failureLines.log("journal failure for {}: {}", persistenceId, cause == null ? "unknown" : cause.toString());
        probeSoon(Duration.ZERO);
    }

    private void probeSoon(Duration delay) {
        if (!probing.compareAndSet(false, true)) {
            return; // one probe at a time; its result covers every report made meanwhile
        }
        Runnable probe = () -> {
            Exception failure;
            try {
                failure = probeFailure();
            } finally {
                probing.set(false);
            }
            if (failure == null) {
                becameAvailable();
            } else {
                becameUnavailable(failure);
                probeSoon(settings.probeInterval());
            }
        };
        if (delay.isZero()) {
            blocking.execute(probe);
        } else {
            system.scheduler().scheduleOnce(delay, probe, system.executionContext());
        }
    }

    /**
     * The probe's own failure goes in the line: an entity's failure can hide the cause (on a full
     * disk, SQLite rolls the transaction back and the driver reports only "cannot commit - no
     * transaction is active"), while the probe's write names it ("database or disk is full").
     */
    private void becameUnavailable(Exception cause) {
        if (unavailable) {
            return;
        }
        unavailableSince = System.nanoTime();
        unavailable = true;
        log.error(
                "journal unavailable ({}): requests that need it are answered 503 (Retry-After {} s) until it answers"
                        + " again",
                cause.toString(),
                Math.max(1, settings.retryAfter().toSeconds()));
        Unavailable failure = new Unavailable();
        waiting.forEach(ask -> ask.completeExceptionally(failure));
    }

    private void becameAvailable() {
        if (!unavailable) {
            return;
        }
        unavailable = false;
        log.warn(
                "journal available again after {} ms",
                Duration.ofNanos(System.nanoTime() - unavailableSince).toMillis());
    }

    /** The node's readiness probe saw the journal fail: the same as an entity's report. */
    public void probeFailed(Throwable cause) {
        journalFailed("readiness probe", cause);
    }

    /**
     * A write that must reach the database through the journal plugin's own pool (the one every
     * entity writes through): a connection, then one committed update of a one-row table, within
     * {@code probe-timeout}. A read would pass on a full disk, where every journal write fails.
     */
    /** Null when the journal took the probe's write; else why it did not. */
    private Exception probeFailure() {
        try {
            SlickExtensionImpl slick = (SlickExtensionImpl) SlickExtension.get(system.classicSystem());
            try (Connection connection = slick.database(
                                    system.settings().config().getConfig("jdbc-journal"))
                            .database()
                            .source()
                            .createConnection();
                    Statement statement = connection.createStatement()) {
                connection.setAutoCommit(true);
                statement.setQueryTimeout(
                        (int) Math.max(1, settings.probeTimeout().toSeconds()));
                statement.execute("CREATE TABLE IF NOT EXISTS " + PROBE_TABLE
                        + " (id INT PRIMARY KEY, probed_at BIGINT NOT NULL)");
                long now = System.currentTimeMillis();
                if (statement.executeUpdate("UPDATE " + PROBE_TABLE + " SET probed_at = " + now + " WHERE id = 1")
                        == 0) {
                    statement.executeUpdate("INSERT INTO " + PROBE_TABLE + " (id, probed_at) VALUES (1, " + now + ")");
                }
                return null;
            }
        } catch (Exception e) {
            log.debug("journal probe failed: {}", e.toString());
            return e;
        }
    }

    /** One row, updated by every probe; nothing else reads it. */
    static final String PROBE_TABLE = "parley_journal_probe";
}
