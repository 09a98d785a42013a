package dev.parley.http.internal.auth;

import dev.parley.http.auth.AuthSettings;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Token buckets per principal, and per principal and tool. Held in memory on each node: a
 * refused request reaches nothing that persists. A bucket that is full again is forgotten
 * when the table grows large, so idle callers cost nothing.
 */
final class RateLimits {
    private static final int SWEEP_ABOVE = 50_000;

    private final AuthSettings.Limits limits;
    private final LongSupplier nanoTime;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    RateLimits(AuthSettings.Limits limits, LongSupplier nanoTime) {
        this.limits = limits;
        this.nanoTime = nanoTime;
    }

    /** 0 when the request may go on, else the whole seconds to wait before a retry may succeed. */
    long retryAfterSeconds(String principalId, String toolName) {
        if (!limits.enabled()) {
            return 0;
        }
        long now = nanoTime.getAsLong();
        sweepIfLarge(now);
        long wait = 0;
        if (limits.requestsPerSecond() > 0) {
            wait = bucket(principalId, limits.requestsPerSecond(), limits.burst(), now)
                    .take(now);
        }
        if (wait == 0 && toolName != null && limits.toolCallsPerSecond() > 0) {
            wait = bucket(principalId + "\u0000" + toolName, limits.toolCallsPerSecond(), limits.toolBurst(), now)
                    .take(now);
        }
        return wait == 0 ? 0 : Math.max(1, (wait + 999_999_999L) / 1_000_000_000L);
    }

    private Bucket bucket(String key, double perSecond, int burst, long now) {
        return buckets.computeIfAbsent(key, k -> new Bucket(perSecond, Math.max(1, burst), now));
    }

    private void sweepIfLarge(long now) {
        if (buckets.size() > SWEEP_ABOVE) {
            buckets.values().removeIf(bucket -> bucket.isFull(now));
        }
    }

    /** Holds up to {@code capacity} tokens, refilled continuously at {@code perSecond}. */
    private static final class Bucket {
        private final double perNano;
        private final double capacity;
        private double tokens;
        private long updated;

        Bucket(double perSecond, int capacity, long now) {
            this.perNano = perSecond / 1e9;
            this.capacity = capacity;
            this.tokens = capacity;
            this.updated = now;
        }

        /** Takes one token: 0, or the nanoseconds until one is there (nothing taken). */
        synchronized long take(long now) {
            refill(now);
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            return (long) Math.ceil((1 - tokens) / perNano);
        }

        synchronized boolean isFull(long now) {
            refill(now);
            return tokens >= capacity;
        }

        private void refill(long now) {
            if (now > updated) { // another thread may have read the clock earlier and come in later
                tokens = Math.min(capacity, tokens + (now - updated) * perNano);
                updated = now;
            }
        }
    }
}
