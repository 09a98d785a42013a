package dev.parley.actors;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The {@code parley.quotas} block: what one principal, and the whole node, may keep in the
 * journal, and the disk watermark. Read once at start, with the rest of {@link ParleySettings}.
 *
 * @param enabled off: no quota refuses anything and no disk is watched
 * @param perPrincipal caps per principal, cluster-wide
 * @param perNode ceilings for this node, whatever the number of principals
 * @param maxCallBytes journaled bytes of one durable call or task; 0 turns the limit off
 * @param maxSessionBytes journaled bytes of one 2025-11-25 session; 0 turns the limit off
 * @param sessionLease how long a session counts against its caps unless deleted
 * @param retryAfter the Retry-After of a refusal over a cap or ceiling
 * @param disk the disk watermark
 */
public record QuotaSettings(
        boolean enabled,
        Caps perPrincipal,
        Caps perNode,
        long maxCallBytes,
        long maxSessionBytes,
        Duration sessionLease,
        Duration retryAfter,
        Disk disk) {

    /** How many of each a principal or the node may hold at once; 0 turns one off. */
    public record Caps(int waitingCalls, int openTasks, int sessions) {
        static Caps from(Config caps) {
            return new Caps(caps.getInt("waiting-calls"), caps.getInt("open-tasks"), caps.getInt("sessions"));
        }
    }

    /**
     * Below {@code minFreeBytes} free on the file system of {@code path} (empty: the embedded
     * journal's directory), new durable calls, tasks and sessions are refused.
     *
     * @param minFreeBytes 0 turns the watermark off
     */
    public record Disk(String path, long minFreeBytes, Duration checkInterval, Duration retryAfter) {}

    /** The settings in {@code quotas}, the {@code parley.quotas} block. */
    public static QuotaSettings from(Config quotas) {
        return new QuotaSettings(
                quotas.getBoolean("enabled"),
                Caps.from(quotas.getConfig("per-principal")),
                Caps.from(quotas.getConfig("per-node")),
                quotas.getBytes("max-call-bytes"),
                quotas.getBytes("max-session-bytes"),
                quotas.getDuration("session-lease"),
                quotas.getDuration("retry-after"),
                new Disk(
                        quotas.getString("disk.path"),
                        quotas.getBytes("disk.min-free"),
                        quotas.getDuration("disk.check-interval"),
                        quotas.getDuration("disk.retry-after")));
    }
}
