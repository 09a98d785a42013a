package dev.parley.actors.internal.journal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The journal and snapshot plugin configuration every event-sourced entity of the node hands to
 * Pekko ({@code journalPluginConfig()}, {@code snapshotPluginConfig()}): the system's own
 * configuration, marked so that nothing falls back behind it.
 *
 * <p>Why: at every entity start Pekko checks that its plugins are configured by merging the
 * entity's plugin configuration (empty unless given) with the whole system configuration, three
 * times (the journal, the snapshot store, the journal again for its recovery timeout). With one
 * entity started per call, those merges were about 2 % of the server's CPU under MRTR load. A
 * configuration that ignores fallbacks is its own merge with anything, at no cost, and it holds
 * exactly the system's settings, so the checks and the plugins (should an entity be the first to
 * start one) see what they saw before.
 */
public final class EntityPluginConfig implements Extension {

    private static final ExtensionId<EntityPluginConfig> ID = new ExtensionId<>() {
        @Override
        public EntityPluginConfig createExtension(ActorSystem<?> system) {
            return new EntityPluginConfig(system.settings().config());
        }
    };

    private final Optional<Config> config;

    private EntityPluginConfig(Config system) {
        // Falling back to a value that is not an object ends the fallback chain (Config.withFallback):
        // every later withFallback returns this configuration as it is.
        this.config = Optional.of(system.withFallback(ConfigValueFactory.fromAnyRef("no further fallbacks")));
    }

    public static Optional<Config> of(ActorSystem<?> system) {
        return ID.apply(system).config;
    }
}
