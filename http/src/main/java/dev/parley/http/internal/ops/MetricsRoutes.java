package dev.parley.http.internal.ops;

import dev.parley.actors.internal.ops.ParleyMetrics;
import java.nio.charset.StandardCharsets;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.management.javadsl.ManagementRouteProvider;
import org.apache.pekko.management.javadsl.ManagementRouteProviderSettings;

/**
 * {@code GET /metrics} on the management port: the node's Micrometer registry in the
 * Prometheus text format (configured in {@code pekko.management.http.routes}), for the hosts in
 * {@code parley.management.allowed-hosts} ({@link ManagementHosts}).
 */
public final class MetricsRoutes extends AllDirectives implements ManagementRouteProvider {
    private static final ContentType PROMETHEUS_TEXT = MediaTypes.TEXT_PLAIN.toContentType(HttpCharsets.UTF_8);

    private final ParleyMetrics metrics;
    private final ManagementHosts hosts;

    public MetricsRoutes(ExtendedActorSystem system) {
        this.metrics = ParleyMetrics.get(Adapter.toTyped(system));
        this.hosts = ManagementHosts.from(system.settings().config());
    }

    @Override
    public Route routes(ManagementRouteProviderSettings settings) {
        return hosts.guard(() -> path(
                "metrics",
                () -> get(() -> complete(HttpResponse.create()
                        .withEntity(HttpEntities.create(
                                PROMETHEUS_TEXT, metrics.scrape().getBytes(StandardCharsets.UTF_8)))))));
    }
}
