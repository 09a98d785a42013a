package dev.parley.actors.internal.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/** The plugin configuration given to entities is the system's, and Pekko's merges at each start leave it as it is. */
class EntityPluginConfigTest {

    @Test
    void holdsTheSystemsSettingsAndEndsEveryFallbackChain() {
        Config own = ConfigFactory.parseString(
                        "pekko.persistence.journal.plugin = \"pekko.persistence.journal.inmem\"\n"
                                + "pekko.persistence.journal.inmem.recovery-event-timeout = 7s")
                .withFallback(ConfigFactory.load());
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "entity-plugin-config-test", own);
        try {
            Config config = EntityPluginConfig.of(system).orElseThrow();
            Config systemConfig = system.settings().config();

            // what Persistence.journalFor and snapshotStoreFor do at every entity start
            assertSame(config, config.withFallback(systemConfig), "no merge: the same configuration comes back");
            assertSame(config, config.withFallback(ConfigFactory.parseString("extra = 1")));

            assertEquals(systemConfig.root().unwrapped(), config.root().unwrapped(), "the same settings");
            assertEquals(
                    7,
                    config.getConfig("pekko.persistence.journal.inmem")
                            .withFallback(config.getConfig("pekko.persistence.journal-plugin-fallback"))
                            .getDuration("recovery-event-timeout")
                            .toSeconds(),
                    "a plugin's section still takes the plugin fallback's settings under its own");
            assertSame(config, EntityPluginConfig.of(system).orElseThrow(), "made once per system");
        } finally {
            system.terminate();
        }
    }
}
