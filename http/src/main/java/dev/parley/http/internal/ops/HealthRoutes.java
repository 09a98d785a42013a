package dev.parley.http.internal.ops;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.management.HealthCheckSettings;
import org.apache.pekko.management.javadsl.CheckResult;
import org.apache.pekko.management.javadsl.HealthChecks;
import org.apache.pekko.management.javadsl.ManagementRouteProvider;
import org.apache.pekko.management.javadsl.ManagementRouteProviderSettings;

/**
 * {@code GET /ready}, {@code /alive} and {@code /startup} on the management port, in place of
 * pekko-management's own routes (configured in {@code pekko.management.http.routes.health-checks}):
 * the same checks, but a check that fails, fails to answer or times out is 503 Service
 * Unavailable, as load balancers expect of a node that should get no traffic, not 500. All three
 * answer only under the management port's Host rule ({@link ManagementHosts}).
 */
public final class HealthRoutes extends AllDirectives implements ManagementRouteProvider {
    private final HealthChecks checks;
    private final HealthCheckSettings settings;
    private final ManagementHosts hosts;

    public HealthRoutes(ExtendedActorSystem system) {
        this.settings =
                HealthCheckSettings.create(system.settings().config().getConfig("pekko.management.health-checks"));
        this.checks = new HealthChecks(system, settings);
        this.hosts = ManagementHosts.from(system.settings().config());
    }

    @Override
    public Route routes(ManagementRouteProviderSettings routeSettings) {
        return hosts.guard(() -> concat(
                path(settings.readinessPath(), () -> get(() -> answer(checks::readyResult))),
                path(settings.livenessPath(), () -> get(() -> answer(checks::aliveResult))),
                path(settings.startupPath(), () -> get(() -> answer(checks::startupResult)))));
    }

    private Route answer(Supplier<CompletionStage<CheckResult>> check) {
        return onComplete(check.get(), result -> {
            if (result.isSuccess() && result.get().isSuccess()) {
                return complete(StatusCodes.OK, "OK");
            }
            String reason = result.isSuccess()
                    ? result.get().failure().orElse("not ok")
                    : result.failed().get().getMessage();
            return complete(StatusCodes.SERVICE_UNAVAILABLE, "Not Healthy: " + reason);
        });
    }
}
