package dev.parley.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import dev.parley.actors.internal.alone.NoWireSerializer;
import dev.parley.persistence.JournalDatabase;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one place that layers the configuration a node runs with. Strongest first:
 *
 * <ol>
 *   <li>system properties ({@code -Dparley.http.port=9090});
 *   <li>the journal database's connection ({@link JournalDatabase#config()});
 *   <li>the application's settings: {@code application.conf}, a profile, a test's overrides
 *       (without reference.conf);
 *   <li>the journal database's defaults ({@link JournalDatabase#defaults()});
 *   <li>Parley's settings for the libraries it runs on, each in the module that needs them:
 *       {@code parley-http.conf} (pekko-http, pekko-management and the {@code parley.management},
 *       {@code parley.lifecycle} and {@code parley.tracing} keys that feed them; only when the http
 *       module is on the class path), {@code parley-node.conf} (Pekko) and
 *       {@code parley-persistence.conf} (pekko-persistence-jdbc);
 *   <li>every library's {@code reference.conf}, with each Parley module's own {@code parley.*}
 *       defaults.
 * </ol>
 *
 * The library layers are not reference.conf files because a library's reference.conf cannot
 * override another library's defaults reliably once jars are merged.
 */
public final class NodeConfig {
    /** The library layers, strongest first; a missing one (its module not on the class path) is empty. */
    private static final List<String> LIBRARY_LAYERS =
            List.of("parley-http.conf", "parley-node.conf", "parley-persistence.conf");

    private NodeConfig() {}

    /**
     * The configuration a node runs with on {@code database}, resolved.
     *
     * @param application the application's settings, without reference.conf
     */
    public static Config load(Config application, JournalDatabase database) {
        Config loaded = ConfigFactory.load(database.config()
                .withFallback(application)
                .withFallback(database.defaults())
                .withFallback(libraryLayers()));
        if (!alone(loaded, database)) {
            return loaded;
        }
        Config local =
                ConfigFactory.parseMap(Map.of("pekko.actor.provider", "local")).withFallback(loaded);
        return local.getBoolean("pekko.actor.serialize-messages") ? local : withoutWireSerializers(local);
    }

    /** The serializer packages whose formats only carry messages between nodes. */
    private static final List<String> WIRE_SERIALIZERS =
            List.of("org.apache.pekko.remote.", "org.apache.pekko.cluster.", "org.apache.pekko.serialization.jackson.");

    /**
     * A node alone sends no message over a wire, and its journal has its own serializers, while
     * Pekko makes every configured serializer as its actor system starts (about 230 lambda classes
     * and a CBOR mapper). So the remoting, cluster and Jackson serializers become a {@link
     * NoWireSerializer}, and the libraries' bindings to them (reference.conf, Parley's layers)
     * {@code none}. A serializer an application binds its own classes to stays, and all stay when
     * Pekko is asked to serialize every message ({@code pekko.actor.serialize-messages}, a test's
     * check). Pekko adds its reference settings back under the node's, so an entry can only be
     * overridden, not removed.
     */
    static Config withoutWireSerializers(Config config) {
        Set<String> wire = new HashSet<>();
        config.getConfig("pekko.actor.serializers").root().forEach((alias, type) -> {
            if (WIRE_SERIALIZERS.stream().anyMatch(String.valueOf(type.unwrapped())::startsWith)) {
                wire.add(alias);
            }
        });
        ConfigObject bindings =
                config.getConfig("pekko.actor.serialization-bindings").root();
        bindings.values().stream()
                .filter(value -> !fromALibrary(value))
                .forEach(value -> wire.remove(String.valueOf(value.unwrapped()))); // the application's stay
        Map<String, String> overrides = new HashMap<>();
        bindings.forEach((type, value) -> {
            if (wire.contains(String.valueOf(value.unwrapped()))) {
                overrides.put(ConfigUtil.joinPath("pekko", "actor", "serialization-bindings", type), "none");
            }
        });
        for (String alias : wire) {
            overrides.put(
                    ConfigUtil.joinPath("pekko", "actor", "serializers", alias), NoWireSerializer.class.getName());
        }
        return ConfigFactory.parseMap(overrides).withFallback(config);
    }

    /** Whether {@code value} comes from a library's reference.conf or one of Parley's library layers. */
    private static boolean fromALibrary(ConfigValue value) {
        String resource = value.origin().resource();
        return resource != null && (resource.equals("reference.conf") || LIBRARY_LAYERS.contains(resource));
    }

    /**
     * Whether the node runs alone, without remoting, a cluster or sharding ({@code
     * parley.cluster.mode}): {@code auto} runs alone on an embedded journal (no other node can
     * share its files) without seed nodes, unless something else forms the cluster ({@code
     * parley.cluster.join-self = off}: the kubernetes profile's Cluster Bootstrap).
     */
    static boolean alone(Config config, JournalDatabase database) {
        String mode = config.getString("parley.cluster.mode");
        return switch (mode) {
            case "cluster" -> false;
            case "alone" -> true;
            case "auto" ->
                !(database instanceof JournalDatabase.Postgres)
                        && config.getStringList("pekko.cluster.seed-nodes").isEmpty()
                        && config.getBoolean("parley.cluster.join-self");
            default ->
                throw new ConfigException.BadValue(
                        "parley.cluster.mode", "is " + mode + "; one of auto, cluster, alone");
        };
    }

    /**
     * The same layers without a journal database's, resolved: enough to choose the database
     * ({@link JournalDatabase#fromConfig}) before the node starts.
     */
    public static Config load(Config application) {
        return ConfigFactory.load(application.withFallback(libraryLayers()));
    }

    private static Config libraryLayers() {
        Config layers = ConfigFactory.empty();
        for (String resource : LIBRARY_LAYERS) {
            layers = layers.withFallback(ConfigFactory.parseResources(resource));
        }
        return layers;
    }
}
