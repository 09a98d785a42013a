package dev.parley.http.internal.ops;

import com.typesafe.config.Config;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code parley.management} block (parley-http.conf): {@link dev.parley.http.McpHttpServer}
 * reads it at start, and each route provider on the management port when pekko-management creates
 * it (from the actor system alone). Its {@code port} is pekko-management's own setting
 * ({@code pekko.management.http.port} follows it), so it is not here.
 *
 * @param enabled off: no management port
 * @param host the address the management port binds to
 * @param callHistory whether {@code GET /calls/{id}/history} answers
 * @param allowedHosts the Host header names (lower case) the management port answers; "*" for any
 */
public record ManagementSettings(boolean enabled, String host, boolean callHistory, Set<String> allowedHosts) {

    /** The settings in {@code config}'s {@code parley.management} block. */
    public static ManagementSettings from(Config config) {
        Config management = config.getConfig("parley.management");
        return new ManagementSettings(
                management.getBoolean("enabled"),
                management.getString("host"),
                management.getBoolean("call-history"),
                Set.copyOf(management.getStringList("allowed-hosts").stream()
                        .map(host -> host.toLowerCase(Locale.ROOT))
                        .toList()));
    }
}
