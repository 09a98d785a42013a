package dev.parley.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import dev.parley.persistence.JournalDatabase;
import java.nio.file.Path;
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
}
