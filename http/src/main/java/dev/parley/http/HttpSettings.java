package dev.parley.http;

import com.typesafe.config.Config;
import dev.parley.runtime.internal.wire.RequestLimits;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** The {@code parley.http} block of the configuration, read once at start. */
public record HttpSettings(
        String host,
        int port,
        String path,
        long maxBodyBytes,
        Set<String> allowedHosts,
        Set<String> allowedOriginHosts,
        Duration keepAlive,
        RequestLimits requestLimits) {

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
                        http.getInt("request-limits.max-members")));
    }

    private static Set<String> lower(List<String> values) {
        return Set.copyOf(
                values.stream().map(v -> v.toLowerCase(java.util.Locale.ROOT)).toList());
    }
}
