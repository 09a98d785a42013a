package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.parley.actors.ParleySettings;
import dev.parley.actors.QuotaSettings;
import dev.parley.actors.internal.CborSerializable;
import dev.parley.actors.internal.EntityAsks;
import dev.parley.actors.internal.NodeSharding;
import dev.parley.actors.internal.PrincipalCapsEntity;
import dev.parley.actors.internal.PrincipalCapsEntity.Kind;
import dev.parley.actors.internal.ServerNotifications;
import dev.parley.actors.internal.TaskEntity;
import dev.parley.actors.internal.journal.DiskWatermark;
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.logging.RateLimitedLog;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Quotas on durable state ({@code parley.quotas}): how many calls waiting for input, tasks in
 * flight and 2025-11-25 sessions one principal may hold (cluster-wide, in the principal's
 * {@link PrincipalCapsEntity}), how many this node holds for all principals together, how many
 * bytes one call or session may journal, and the disk watermark. A new call, task or session takes
 * a lease before anything is journaled; refused, the request gets {@link #OVER_CAP} (HTTP 429),
 * {@link #NODE_FULL} (503) or {@link #TOO_LARGE} (413), each naming the limit in {@code data}.
 */
public final class CallCaps {
    /** Application-specific (outside the reserved -32768..-32000): a per-principal cap is reached. */
    public static final int OVER_CAP = -31429;
    /** A node-wide ceiling is reached, or the journal's disk is below its watermark. */
    public static final int NODE_FULL = -31503;
    /** A durable call or session would journal more bytes than one may. */
    public static final int TOO_LARGE = -31413;

    private static final Logger log = LoggerFactory.getLogger(CallCaps.class);
    private static final RateLimitedLog askFailures = RateLimitedLog.perMinute(log, org.slf4j.event.Level.WARN, 10);

    /** What a refusal's {@code data} says: which limit, its size, and (when a retry can help) when to try again. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record OverLimit(String limit, long max, Long size, Long retryAfterSeconds) {}

    /** Call or session {@code id} (of {@code kind}) ended: every node that holds its lease frees it. */
    public record LeaseEnded(Kind kind, String id) implements CborSerializable {}

    /** The wire names of the statuses a task ends in (the journal's vocabulary says which). */
    private static final Set<String> ENDED_TASK = Stream.of(TaskEvent.Status.values())
            .filter(status -> !status.open)
            .map(TaskEvent.Status::label)
            .collect(Collectors.toUnmodifiableSet());

    private final QuotaSettings quotas;
    /** The per-principal caps, by kind. */
    private final Map<Kind, Integer> perPrincipal;

    private final ClusterSharding sharding;
    private final ParleySettings settings;
    private final TaskRequests tasks;
    private final DiskWatermark disk;
    private final NodeLeases node;
    private final Clock clock = Clock.systemUTC();
    /** Null on a node alone. */
    private final Cluster cluster;
    /** Where a call or session that ended tells the other nodes, which may hold its lease. */
    private final ActorRef<Topic.Command<LeaseEnded>> leaseEnds;

    private CallCaps(
            ActorSystem<?> system,
            ClusterSharding sharding,
            ParleySettings settings,
            TaskRequests tasks,
            DiskWatermark disk) {
        this.quotas = settings.quotas();
        this.perPrincipal = perKind(quotas.perPrincipal());
        this.sharding = sharding;
        this.settings = settings;
        this.tasks = tasks;
        this.disk = disk;
        this.node = new NodeLeases(perKind(quotas.perNode()), clock);
        // A call's rounds and a session's requests may be served by any node, and each node that
        // served a waiting round or opened the session holds a lease: the node where it ends tells them.
        this.cluster = NodeSharding.clustered(system) ? Cluster.get(system) : null;
        this.leaseEnds = NodeTopics.join(
                system, LeaseEnded.class, "parley-lease-ends", ended -> node.release(ended.kind(), ended.id()));
    }

    private static Map<Kind, Integer> perKind(QuotaSettings.Caps caps) {
        Map<Kind, Integer> max = new EnumMap<>(Kind.class);
        max.put(Kind.WAITING_CALL, caps.waitingCalls());
        max.put(Kind.OPEN_TASK, caps.openTasks());
        max.put(Kind.SESSION, caps.sessions());
        return max;
    }

    static CallCaps start(
            ActorSystem<?> system,
            ClusterSharding sharding,
            ParleySettings settings,
            TaskRequests tasks,
            ServerNotifications notifications) {
        CallCaps callCaps = new CallCaps(system, sharding, settings, tasks, DiskWatermark.get(system));
        if (settings.quotas().enabled()) {
            // Every node hears of every task's end: the node that created it frees its place at once,
            // not when its lease runs out (the task's ttl).
            notifications.onTaskNotice(notice -> {
                if (ENDED_TASK.contains(notice.task().status())) {
                    callCaps.node.release(Kind.OPEN_TASK, notice.taskId());
                }
            });
            // The entity passivates itself once it holds no lease: idle passivation would forget open calls.
            sharding.init(Entity.of(
                            PrincipalCapsEntity.ENTITY_TYPE_KEY,
                            context -> PrincipalCapsEntity.create(
                                    context.getShard(), callCaps.perPrincipal, Clock.systemUTC()))
                    .withSettings(ClusterShardingSettings.create(system).withNoPassivationStrategy()));
        }
        return callCaps;
    }

    /**
     * The refusal of a new durable call or task whose journaled {@code parts} (arguments and
     * questions, or answers) take more than {@code max-call-bytes}; empty when it fits.
     */
    Optional<ErrorObject> oversizedCall(Object... parts) {
        return oversized("call-bytes", quotas.maxCallBytes(), "A durable call", parts);
    }

    /** The refusal of a session whose capabilities and clientInfo take more than {@code max-session-bytes}. */
    Optional<ErrorObject> oversizedSession(Object... parts) {
        return oversized("session-bytes", quotas.maxSessionBytes(), "A session", parts);
    }

    private Optional<ErrorObject> oversized(String limit, long max, String what, Object... parts) {
        if (!quotas.enabled() || max <= 0) {
            return Optional.empty();
        }
        long size = 0;
        for (Object part : parts) {
            size += Json.size(part);
        }
        return size <= max
                ? Optional.empty()
                : Optional.of(new ErrorObject(
                        TOO_LARGE,
                        what + " may journal at most " + max + " bytes (parley.quotas.max-" + limit
                                + "); this one takes " + size,
                        Json.tree(new OverLimit(limit, max, size, null))));
    }

    /**
     * A lease for the new call, task or session {@code id}: empty when granted (or quotas are off),
     * else the error to answer. An unreachable caps entity admits (a limit must not take the server down).
     */
    CompletionStage<Optional<ErrorObject>> take(String principal, Kind kind, String id) {
        if (!quotas.enabled()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        if (disk.low()) {
            long retryAfter = Math.max(1, quotas.disk().retryAfter().toSeconds());
            return CompletableFuture.completedFuture(Optional.of(new ErrorObject(
                    NODE_FULL,
                    "The server is low on disk space; retry later",
                    Json.tree(new OverLimit("disk-min-free", disk.minFreeBytes(), null, retryAfter)))));
        }
        long until = until(kind);
        int nodeMax = node.take(kind, id, until);
        if (nodeMax > 0) {
            return CompletableFuture.completedFuture(Optional.of(new ErrorObject(
                    NODE_FULL,
                    "The server holds too many " + what(kind) + " (at most " + nodeMax + "); retry later",
                    Json.tree(new OverLimit("node-" + name(kind), nodeMax, null, retryAfterSeconds())))));
        }
        if (max(kind) <= 0) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return ask(principal, kind, id, until)
                .thenCompose(verdict -> {
                    if (verdict instanceof PrincipalCapsEntity.Refused refused
                            && !refused.toVerify().isEmpty()) {
                        return releaseEnded(principal, refused.toVerify())
                                .thenCompose(checked -> ask(principal, kind, id, until));
                    }
                    return CompletableFuture.completedFuture(verdict);
                })
                .handle((verdict, failure) -> {
                    if (failure != null) {
                        askFailures.log("caps of {} not reachable, admitting: {}", principal, failure.toString());
                        return Optional.empty();
                    }
                    if (verdict instanceof PrincipalCapsEntity.Refused refused) {
                        node.release(kind, id);
                        return Optional.of(overCap(kind, refused.max()));
                    }
                    return Optional.empty();
                });
    }

    /**
     * After a round of waiting call {@code callId}: it goes on waiting (renewed), or it ended
     * (released). A refused answer or requestState leaves the call waiting, so an
     * {@code INVALID_PARAMS} error keeps the lease (it runs out with the requestState).
     */
    BiConsumer<McpReply.Final, Throwable> afterRound(String principal, String callId) {
        return (reply, failure) -> {
            if (!quotas.enabled()) {
                return;
            }
            if (reply instanceof McpReply.InputRequired) {
                long until = until(Kind.WAITING_CALL);
                node.hold(Kind.WAITING_CALL, callId, until);
                if (max(Kind.WAITING_CALL) > 0) {
                    entity(principal).tell(new PrincipalCapsEntity.Hold(Kind.WAITING_CALL, callId, until));
                }
            } else if (failure != null
                    || !(reply instanceof McpReply.Error error)
                    || error.error().code() != ErrorCodes.INVALID_PARAMS) {
                release(principal, Kind.WAITING_CALL, callId);
            }
        };
    }

    void release(String principal, Kind kind, String id) {
        if (!quotas.enabled()) {
            return;
        }
        node.release(kind, id);
        if (kind != Kind.OPEN_TASK && clusterOfMany()) {
            leaseEnds.tell(Topic.publish(new LeaseEnded(kind, id))); // (every node hears a task's end already)
        }
        if (max(kind) > 0) {
            entity(principal).tell(new PrincipalCapsEntity.Release(kind, id));
        }
    }

    /** Whether other members may hold leases (a node alone publishes nothing per call). */
    private boolean clusterOfMany() {
        if (cluster == null) {
            return false;
        }
        Iterator<Member> members = cluster.state().getMembers().iterator();
        if (!members.hasNext()) {
            return false;
        }
        members.next();
        return members.hasNext();
    }

    /** Asks the held tasks' entities (the journal's truth) and releases those that ended or are gone. */
    private CompletionStage<Void> releaseEnded(String principal, List<String> taskIds) {
        CompletableFuture<?>[] checks = taskIds.stream()
                .map(taskId -> tasks.ask(tasks.task(taskId), replyTo -> new TaskEntity.Get(principal, replyTo))
                        .thenAccept(reply -> {
                            if (!(reply instanceof TaskEntity.TaskView view)
                                    || ENDED_TASK.contains(view.status().wireName)) {
                                release(principal, Kind.OPEN_TASK, taskId);
                            }
                        })
                        .exceptionally(failure -> null) // unknown: the lease stays
                        .toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(checks);
    }

    private CompletionStage<PrincipalCapsEntity.Verdict> ask(String principal, Kind kind, String id, long until) {
        return EntityAsks.<PrincipalCapsEntity.Command, PrincipalCapsEntity.Verdict>ask(
                entity(principal),
                replyTo -> new PrincipalCapsEntity.Take(kind, id, until, replyTo),
                settings.askAttemptTimeout(),
                settings.askTimeout());
    }

    private ErrorObject overCap(Kind kind, int max) {
        return new ErrorObject(
                OVER_CAP,
                "Too many " + what(kind) + " (at most " + max + "); retry later",
                Json.tree(new OverLimit(name(kind), max, null, retryAfterSeconds())));
    }

    private long retryAfterSeconds() {
        return Math.max(1, quotas.retryAfter().toSeconds());
    }

    /** The limit's name in a refusal's {@code data}, as its key under {@code parley.quotas.per-principal}. */
    private static String name(Kind kind) {
        return switch (kind) {
            case WAITING_CALL -> "waiting-calls";
            case OPEN_TASK -> "open-tasks";
            case SESSION -> "sessions";
        };
    }

    private static String what(Kind kind) {
        return switch (kind) {
            case WAITING_CALL -> "calls waiting for input";
            case OPEN_TASK -> "tasks in flight";
            case SESSION -> "sessions";
        };
    }

    /** A waiting call can go on while its requestState is valid; a task until its ttl; a session for its lease. */
    private long until(Kind kind) {
        Duration lease = switch (kind) {
            case WAITING_CALL -> settings.requestStateLifetime();
            case OPEN_TASK -> settings.tasks().ttl();
            case SESSION -> quotas.sessionLease();
        };
        return clock.millis() + lease.toMillis();
    }

    private int max(Kind kind) {
        return perPrincipal.get(kind);
    }

    private EntityRef<PrincipalCapsEntity.Command> entity(String principal) {
        return sharding.entityRefFor(PrincipalCapsEntity.ENTITY_TYPE_KEY, principal);
    }
}
