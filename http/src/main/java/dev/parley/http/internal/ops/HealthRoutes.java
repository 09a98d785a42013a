package dev.parley.http.internal.ops;

import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.http.javadsl.server.directives.RouteAdapter;
import org.apache.pekko.http.scaladsl.server.RequestContext;
import org.apache.pekko.http.scaladsl.server.RouteResult;
import org.apache.pekko.management.HealthCheckRoutes;
import org.apache.pekko.management.scaladsl.ManagementRouteProviderSettings;
import scala.Function1;
import scala.concurrent.Future;

/**
 * pekko-management's {@code /ready} and {@code /alive} under the management port's Host rule
 * ({@link ManagementHosts}); configured in place of its own {@code health-checks} routes.
 */
public final class HealthRoutes extends HealthCheckRoutes {
    private final ManagementHosts hosts;

    public HealthRoutes(ExtendedActorSystem system) {
        super(system);
        this.hosts = ManagementHosts.from(system.settings().config());
    }

    @Override
    public Function1<RequestContext, Future<RouteResult>> routes(ManagementRouteProviderSettings settings) {
        Function1<RequestContext, Future<RouteResult>> checks = super.routes(settings);
        return hosts.guard(() -> RouteAdapter.asJava(checks)).asScala();
    }
}
