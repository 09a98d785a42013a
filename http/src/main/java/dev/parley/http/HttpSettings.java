package dev.parley.http;

import com.typesafe.config.Config;
import dev.parley.runtime.RequestLimits;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The {@code parley.http} block of the configuration, read once at start.
 *
 * @param forwardedForHops {@code client-address.forwarded-for-hops}: how many trusted proxies
 *     append to {@code X-Forwarded-For} (0 ignores the header)
 * @param legacyStreams {@code legacy-streams}: a 2025-11-25 call stream's polling hints
 */
public record HttpSettings(
        String host,
        int port,
        String path,
        long maxBodyBytes,
        Set<String> allowedHosts,
        Set<String> allowedOriginHosts,
        Duration keepAlive,
        RequestLimits requestLimits,
        Connections connections,
        int forwardedForHops,
        LegacyStreams legacyStreams) {

    /**
     * The {@code parley.http.legacy-streams} block: how long a 2025-11-25 call stream stays open
     * before the client is told to poll ({@code poll-after}), and the SSE {@code retry} it is given.
     */
    public record LegacyStreams(Duration pollAfter, Duration retry) {}

    /**
     * The {@code parley.http.connections} block: how many connections the MCP port holds, from
     * one address and in all, and how long a connection may take to send a request.
     */
    public record Connections(
            int maxTotal,
            int maxPerAddress,
            Duration idleTimeout,
            Duration busyIdleTimeout,
            double busyAt,
            Duration bodyTimeout,
            Duration refusalWait,
            Duration retryAfter) {

        public Connections {
            if (maxTotal < 1 || maxPerAddress < 1 || busyAt <= 0 || busyAt > 1) {
                throw new IllegalArgumentException("parley.http.connections: max-total and max-per-address must be"
                        + " positive, busy-at in (0, 1]: " + this);
            }
        }

        static Connections from(Config connections) {
            return new Connections(
                    connections.getInt("max-total"),
                    connections.getInt("max-per-address"),
                    connections.getDuration("idle-timeout"),
                    connections.getDuration("busy-idle-timeout"),
                    connections.getDouble("busy-at"),
                    connections.getDuration("body-timeout"),
                    connections.getDuration("refusal-wait"),
                    connections.getDuration("retry-after"));
        }
    }

    /** The settings in {@code config}'s {@code parley.http} block. */
    public static HttpSettings from(Config config) {
        Config http = config.getConfig("parley.http");
        return new HttpSettings(
                http.getString("host"),
                http.getInt("port"),
                http.getString("path"),
                http.getBytes("max-body-bytes"),
                lower(http.getStringList("allowed-hosts")),
                lower(http.getStringList("allowed-origin-hosts")),
                http.getDuration("keep-alive"),
                new RequestLimits(
                        http.getInt("request-limits.max-depth"),
                        http.getInt("request-limits.max-string-length"),
                        http.getInt("request-limits.max-array-length"),
                        http.getInt("request-limits.max-members")),
                Connections.from(http.getConfig("connections")),
                http.getInt("client-address.forwarded-for-hops"),
                new LegacyStreams(
                        http.getDuration("legacy-streams.poll-after"), http.getDuration("legacy-streams.retry")));
    }

    private static Set<String> lower(List<String> values) {
        return Set.copyOf(
                values.stream().map(v -> v.toLowerCase(java.util.Locale.ROOT)).toList());
    }
}
