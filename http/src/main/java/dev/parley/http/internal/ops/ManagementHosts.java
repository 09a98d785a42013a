package dev.parley.http.internal.ops;

import com.typesafe.config.Config;
import dev.parley.http.internal.console.ConsoleApi.Problem;
import dev.parley.runtime.Json;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The one access rule in front of everything on the management port ({@code /ready},
 * {@code /alive}, {@code /metrics}, the console, the call-history export): the request's Host
 * header must name one of {@code parley.management.allowed-hosts}, so a page on another site that
 * rebinds its DNS name to the node's address gets 403 (as the MCP endpoint's
 * {@code allowed-hosts} rule does). A Prometheus scraper's Host is added there.
 */
public final class ManagementHosts extends AllDirectives {
    private final Set<String> allowed;

    ManagementHosts(Set<String> allowed) {
        this.allowed = allowed;
    }

    /** The rule for {@code config}'s {@code parley.management.allowed-hosts}. */
    public static ManagementHosts from(Config config) {
        return from(ManagementSettings.from(config));
    }

    static ManagementHosts from(ManagementSettings settings) {
        return new ManagementHosts(settings.allowedHosts());
    }

    /** {@code inner} for a request whose Host is allowed; 403 with the reason for any other. */
    public Route guard(Supplier<Route> inner) {
        Route allowedRoute = inner.get();
        return extractRequest(request -> allows(request) ? allowedRoute : complete(refusal()));
    }

    boolean allows(HttpRequest request) {
        return allowed.contains("*") || allowed.contains(hostName(request));
    }

    private static HttpResponse refusal() {
        return HttpResponse.create()
                .withStatus(StatusCodes.FORBIDDEN)
                .withEntity(HttpEntities.create(
                        ContentTypes.APPLICATION_JSON,
                        Json.write(new Problem("The management port answers requests for the hosts in"
                                + " parley.management.allowed-hosts only (Host header)"))));
    }

    /** The Host header's name without its port, lower case; empty when absent. */
    public static String hostName(HttpRequest request) {
        String host = request.getHeader("host")
                .map(HttpHeader::value)
                .orElse("")
                .trim()
                .toLowerCase(Locale.ROOT);
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? host : host.substring(0, end + 1);
        }
        int colon = host.indexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
