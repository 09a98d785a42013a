package dev.parley.http.internal;

import dev.parley.http.HttpSettings;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The connections the MCP port holds, in all and by the peer's IP address, shared by every
 * connection's {@link ConnectionGuard}. A connection is counted from its admission to its close.
 */
public final class ConnectionLimits {
    private final HttpSettings.Connections settings;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> byAddress = new ConcurrentHashMap<>();

    public ConnectionLimits(HttpSettings.Connections settings) {
        this.settings = settings;
    }

    HttpSettings.Connections settings() {
        return settings;
    }

    /**
     * Counts a new connection from {@code address} (null: unknown, counted in the total only);
     * null when it may stay, else why it may not.
     */
    String admit(InetAddress address) {
        if (total.incrementAndGet() > settings.maxTotal()) {
            total.decrementAndGet();
            return "The server holds its maximum of " + settings.maxTotal()
                    + " connections (parley.http.connections.max-total); retry later";
        }
        if (address == null) {
            return null;
        }
        boolean[] admitted = {false};
        byAddress.compute(address, (key, held) -> {
            int now = held == null ? 0 : held;
            if (now >= settings.maxPerAddress()) {
                return held;
            }
            admitted[0] = true;
            return now + 1;
        });
        if (!admitted[0]) {
            total.decrementAndGet();
            return "Too many connections from your address: at most " + settings.maxPerAddress()
                    + " (parley.http.connections.max-per-address); close one or retry later";
        }
        return null;
    }

    /** An admitted connection from {@code address} closed. */
    void release(InetAddress address) {
        if (address != null) {
            byAddress.computeIfPresent(address, (key, held) -> held <= 1 ? null : held - 1);
        }
        total.decrementAndGet();
    }

    /** How long a connection may wait for its next request head: shorter once the node is busy. */
    Duration idleTimeout() {
        return total.get() >= settings.busyAt() * settings.maxTotal()
                ? settings.busyIdleTimeout()
                : settings.idleTimeout();
    }

    /** Connections held now (admitted, not yet closed). */
    public int held() {
        return total.get();
    }
}
