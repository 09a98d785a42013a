package dev.parley.actors.internal.pipeline;

import com.typesafe.config.Config;
import dev.parley.actors.ParleySettings;
import dev.parley.actors.internal.EntityAsks;
import dev.parley.actors.internal.PrincipalCapsEntity;
import dev.parley.actors.internal.PrincipalCapsEntity.Kind;
import dev.parley.actors.internal.TaskEntity;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.logging.RateLimitedLog;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 12: caps per principal on calls waiting for input and on tasks in flight
 * ({@code parley.auth.limits.max-waiting-calls}, {@code max-open-tasks}). A new durable call or
 * task takes a lease from the principal's {@link PrincipalCapsEntity} before anything is
 * journaled; over the cap the request gets {@link #OVER_CAP} (HTTP 429 with {@code Retry-After}).
 * Off unless {@code parley.auth.enabled} and {@code parley.auth.limits.enabled}.
 */
public final class CallCaps {
    /** Application-specific (outside the reserved -32768..-32000): a per-principal cap is reached. */
    public static final int OVER_CAP = -31429;

    private static final Logger log = LoggerFactory.getLogger(CallCaps.class);
    private static final RateLimitedLog askFailures = RateLimitedLog.perMinute(log, org.slf4j.event.Level.WARN, 10);

    /** What the refusal's {@code data} says: which cap, its size, and when to try again. */
    record OverCap(String limit, int max, long retryAfterSeconds) {}

    record Settings(boolean enabled, int maxWaitingCalls, int maxOpenTasks, Duration retryAfter) {
        static Settings from(Config config) {
            boolean on = config.hasPath("parley.auth.enabled")
                    && config.getBoolean("parley.auth.enabled")
                    && config.hasPath("parley.auth.limits.enabled")
                    && config.getBoolean("parley.auth.limits.enabled");
            Config limits = on ? config.getConfig("parley.auth.limits") : null;
            int waiting = on && limits.hasPath("max-waiting-calls") ? limits.getInt("max-waiting-calls") : 0;
            int tasks = on && limits.hasPath("max-open-tasks") ? limits.getInt("max-open-tasks") : 0;
            Duration retryAfter = on && limits.hasPath("cap-retry-after")
                    ? limits.getDuration("cap-retry-after")
                    : Duration.ofSeconds(5);
            return new Settings(on && (waiting > 0 || tasks > 0), waiting, tasks, retryAfter);
        }
    }

    private final Settings caps;
    private final ClusterSharding sharding;
    private final ParleySettings settings;
    private final TaskRequests tasks;
    private final Clock clock = Clock.systemUTC();

    private CallCaps(Settings caps, ClusterSharding sharding, ParleySettings settings, TaskRequests tasks) {
        this.caps = caps;
        this.sharding = sharding;
        this.settings = settings;
        this.tasks = tasks;
    }

    static CallCaps start(
            ActorSystem<?> system, ClusterSharding sharding, ParleySettings settings, TaskRequests tasks) {
        Settings caps = Settings.from(system.settings().config());
        if (caps.enabled()) {
            // The entity passivates itself once it holds no lease: idle passivation would forget open calls.
            sharding.init(Entity.of(
                            PrincipalCapsEntity.ENTITY_TYPE_KEY,
                            context -> PrincipalCapsEntity.create(
                                    context.getShard(), caps.maxWaitingCalls(), caps.maxOpenTasks(), Clock.systemUTC()))
                    .withSettings(ClusterShardingSettings.create(system).withNoPassivationStrategy()));
        }
        return new CallCaps(caps, sharding, settings, tasks);
    }

    /**
     * A lease for the new call or task {@code id}: empty when granted (or caps are off), else the
     * error to answer. An unreachable caps entity admits (a limit must not take the server down).
     */
    CompletionStage<Optional<ErrorObject>> take(String principal, Kind kind, String id) {
        if (!caps.enabled() || max(kind) <= 0) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return ask(principal, kind, id)
                .thenCompose(verdict -> {
                    if (verdict instanceof PrincipalCapsEntity.Refused refused
                            && !refused.toVerify().isEmpty()) {
                        return releaseEnded(principal, refused.toVerify())
                                .thenCompose(checked -> ask(principal, kind, id));
                    }
                    return CompletableFuture.completedFuture(verdict);
                })
                .handle((verdict, failure) -> {
                    if (failure != null) {
                        askFailures.log("caps of {} not reachable, admitting: {}", principal, failure.toString());
                        return Optional.empty();
                    }
                    return verdict instanceof PrincipalCapsEntity.Refused refused
                            ? Optional.of(overCap(kind, refused.max()))
                            : Optional.empty();
                });
    }

    /**
     * After a round of waiting call {@code callId}: it goes on waiting (renewed), or it ended
     * (released). A refused answer or requestState leaves the call waiting, so an
     * {@code INVALID_PARAMS} error keeps the lease (it runs out with the requestState).
     */
    BiConsumer<McpReply.Final, Throwable> afterRound(String principal, String callId) {
        return (reply, failure) -> {
            if (!caps.enabled() || max(Kind.WAITING_CALL) <= 0) {
                return;
            }
            if (reply instanceof McpReply.InputRequired) {
                entity(principal)
                        .tell(new PrincipalCapsEntity.Hold(Kind.WAITING_CALL, callId, until(Kind.WAITING_CALL)));
            } else if (failure != null
                    || !(reply instanceof McpReply.Error error)
                    || error.error().code() != ErrorCodes.INVALID_PARAMS) {
                release(principal, Kind.WAITING_CALL, callId);
            }
        };
    }

    void release(String principal, Kind kind, String id) {
        if (caps.enabled() && max(kind) > 0) {
            entity(principal).tell(new PrincipalCapsEntity.Release(kind, id));
        }
    }

    /** Asks the held tasks' entities (the journal's truth) and releases those that ended or are gone. */
    private CompletionStage<Void> releaseEnded(String principal, List<String> taskIds) {
        CompletableFuture<?>[] checks = taskIds.stream()
                .map(taskId -> tasks.ask(tasks.task(taskId), replyTo -> new TaskEntity.Get(principal, replyTo))
                        .thenAccept(reply -> {
                            if (!(reply instanceof TaskEntity.TaskView view)
                                    || view.status() == TaskEntity.Status.COMPLETED
                                    || view.status() == TaskEntity.Status.FAILED
                                    || view.status() == TaskEntity.Status.CANCELLED) {
                                release(principal, Kind.OPEN_TASK, taskId);
                            }
                        })
                        .exceptionally(failure -> null) // unknown: the lease stays
                        .toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(checks);
    }

    private CompletionStage<PrincipalCapsEntity.Verdict> ask(String principal, Kind kind, String id) {
        long until = until(kind);
        return EntityAsks.<PrincipalCapsEntity.Command, PrincipalCapsEntity.Verdict>ask(
                entity(principal),
                replyTo -> new PrincipalCapsEntity.Take(kind, id, until, replyTo),
                settings.askAttemptTimeout(),
                settings.askTimeout());
    }

    private ErrorObject overCap(Kind kind, int max) {
        String limit = kind == Kind.WAITING_CALL ? "waiting-calls" : "open-tasks";
        String what = kind == Kind.WAITING_CALL ? "calls waiting for input" : "tasks in flight";
        long retryAfter = Math.max(1, caps.retryAfter().toSeconds());
        return new ErrorObject(
                OVER_CAP,
                "Too many " + what + " (at most " + max + "); retry later",
                Json.tree(new OverCap(limit, max, retryAfter)));
    }

    /** A waiting call can go on while its requestState is valid; a task until its ttl. */
    private long until(Kind kind) {
        Duration lease = kind == Kind.WAITING_CALL
                ? settings.requestStateLifetime()
                : settings.tasks().ttl();
        return clock.millis() + lease.toMillis();
    }

    private int max(Kind kind) {
        return kind == Kind.WAITING_CALL ? caps.maxWaitingCalls() : caps.maxOpenTasks();
    }

    private EntityRef<PrincipalCapsEntity.Command> entity(String principal) {
        return sharding.entityRefFor(PrincipalCapsEntity.ENTITY_TYPE_KEY, principal);
    }
}
