package dev.parley.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import dev.parley.actors.internal.alone.NoWireSerializer;
import dev.parley.persistence.JournalDatabase;
import java.nio.file.Path;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.Test;

/** A node on an embedded journal runs alone unless something says it is one of many. */
class NodeConfigTest {
    private static final JournalDatabase SQLITE = new JournalDatabase.SqliteFile(Path.of("unused"));
    private static final JournalDatabase H2 = new JournalDatabase.H2File(Path.of("unused"));
    private static final JournalDatabase POSTGRES =
            new JournalDatabase.Postgres("jdbc:postgresql://127.0.0.1:1/parley", "parley", "parley");

    private static String provider(String application, JournalDatabase database) {
        return NodeConfig.load(ConfigFactory.parseString(application), database).getString("pekko.actor.provider");
    }

    @Test
    void anEmbeddedJournalWithoutSeedNodesRunsAlone() {
        assertEquals("local", provider("", SQLITE));
        assertEquals("local", provider("", H2));
    }

    @Test
    void aSharedJournalSeedNodesOrABootstrapMakeAClusterMember() {
        assertEquals("cluster", provider("", POSTGRES));
        assertEquals("cluster", provider("pekko.cluster.seed-nodes = [\"pekko://parley@127.0.0.1:25520\"]", SQLITE));
        assertEquals("cluster", provider("parley.cluster.join-self = off", SQLITE));
    }

    @Test
    void theModeOverridesTheChoice() {
        assertEquals("cluster", provider("parley.cluster.mode = cluster", SQLITE));
        assertEquals("local", provider("parley.cluster.mode = alone", POSTGRES));
        Config config = ConfigFactory.parseString("parley.cluster.mode = sometimes");
        assertThrows(ConfigException.BadValue.class, () -> NodeConfig.load(config, SQLITE));
    }

    /** pekko-persistence-jdbc's reference.conf nests this setting where Pekko does not read it. */
    @Test
    void theJournalPluginsRunOnTheDefaultDispatcherNotAPinnedThread() {
        for (JournalDatabase database : new JournalDatabase[] {SQLITE, H2, POSTGRES}) {
            Config config = NodeConfig.load(ConfigFactory.empty(), database);
            assertEquals("pekko.actor.default-dispatcher", config.getString("jdbc-journal.plugin-dispatcher"));
            assertEquals("pekko.actor.default-dispatcher", config.getString("jdbc-snapshot-store.plugin-dispatcher"));
        }
    }

    /** Pekko makes every configured serializer at start; a node alone needs none of the wire formats. */
    @Test
    void aNodeAloneReplacesTheWireSerializersButKeepsAnApplicationsAndTheJournals() {
        Config alone = NodeConfig.load(
                ConfigFactory.parseString(
                        "pekko.actor.serialization-bindings { \"com.example.Event\" = jackson-json }"),
                SQLITE);
        String none = NoWireSerializer.class.getName();
        assertEquals(none, alone.getString("pekko.actor.serializers.pekko-sharding"));
        assertEquals(none, alone.getString("pekko.actor.serializers.pekko-misc"));
        assertEquals(none, alone.getString("pekko.actor.serializers.jackson-cbor"));
        assertEquals("none", alone.getString(binding("dev.parley.actors.internal.CborSerializable")));
        assertEquals("none", alone.getString(binding("org.apache.pekko.Done")));
        assertEquals("none", alone.getString(binding("java.util.Optional")));
        assertEquals("jackson-json", alone.getString(binding("com.example.Event")));
        assertEquals(
                "org.apache.pekko.serialization.jackson.JacksonJsonSerializer",
                alone.getString("pekko.actor.serializers.jackson-json"));
        assertEquals(
                "dev.parley.persistence.internal.JournalEventSerializer",
                alone.getString("pekko.actor.serializers.parley-journal"));
        assertEquals(
                "org.apache.pekko.persistence.serialization.SnapshotSerializer",
                alone.getString("pekko.actor.serializers.pekko-persistence-snapshot"));

        Config verifying = NodeConfig.load(ConfigFactory.parseString("pekko.actor.serialize-messages = on"), SQLITE);
        assertEquals("local", verifying.getString("pekko.actor.provider"));
        assertEquals("jackson-cbor", verifying.getString(binding("dev.parley.actors.internal.CborSerializable")));
        Config member = NodeConfig.load(ConfigFactory.empty(), POSTGRES);
        assertEquals(
                "org.apache.pekko.cluster.sharding.protobuf.ClusterShardingMessageSerializer",
                member.getString("pekko.actor.serializers.pekko-sharding"));
    }

    /** A running node alone: every start makes the serializers; a use of a replaced one says why it fails. */
    @Test
    void aNodeAlonesActorSystemStartsWithThemAndAWireFormatIsRefused() throws Exception {
        ActorSystem<Void> system =
                ActorSystem.create(Behaviors.empty(), "alone", NodeConfig.load(ConfigFactory.empty(), SQLITE));
        try {
            Serialization serialization = SerializationExtension.get(system);
            assertEquals(
                    "dev.parley.persistence.internal.JournalEventSerializer",
                    serialization
                            .serializerFor(dev.parley.persistence.internal.JournalEvent.class)
                            .getClass()
                            .getName());
            Serializer sharding = serialization
                    .serializerByIdentity()
                    .get(new NoWireSerializer(null, "pekko-sharding").identifier())
                    .get();
            assertTrue(sharding instanceof NoWireSerializer, sharding.getClass().getName());
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> sharding.toBinary("x"));
            assertTrue(refused.getMessage().contains("runs alone"), refused.getMessage());
        } finally {
            system.terminate();
        }
    }

    private static String binding(String type) {
        return ConfigUtil.joinPath("pekko", "actor", "serialization-bindings", type);
    }
}
