package dev.parley.http.internal.ops;

import dev.parley.actors.internal.ops.NodeHealth;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * The readiness check pekko-management runs for {@code GET /ready} (configured in
 * {@code pekko.management.health-checks.readiness-checks}); see {@link NodeHealth#ready()}.
 */
public final class ReadinessCheck implements Supplier<CompletionStage<Boolean>> {
    private final NodeHealth health;

    public ReadinessCheck(ActorSystem system) {
        this.health = NodeHealth.get(Adapter.toTyped(system));
    }

    @Override
    public CompletionStage<Boolean> get() {
        return health.ready();
    }
}
