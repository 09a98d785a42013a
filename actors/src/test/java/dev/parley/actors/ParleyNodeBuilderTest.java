package dev.parley.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.McpServerDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link ParleyNode.Builder} refuses before anything starts. */
class ParleyNodeBuilderTest {
    private static final McpServerDefinition SERVER =
            McpServerDefinition.builder("parley-builder-test", "0.0.1").build();

    @TempDir
    Path data;

    @Test
    void aNodeNeedsAJournal() {
        IllegalStateException refused = assertThrows(
                IllegalStateException.class, () -> ParleyNode.builder(SERVER).start());
        assertTrue(refused.getMessage().contains("journal"), refused.getMessage());
    }

    @Test
    void aNodeWithoutConfiguredKeysOrAKeyFileStopsBeforeItTouchesTheJournal() throws Exception {
        IllegalStateException refused = assertThrows(
                IllegalStateException.class,
                () -> ParleyNode.builder(SERVER)
                        .journal(JournalDatabase.fromConfig(NodeConfig.load(ConfigFactory.empty()), data))
                        .start());
        assertTrue(refused.getMessage().contains("parley.request-state.keys"), refused.getMessage());
        try (Stream<Path> files = Files.list(data)) {
            assertEquals(0, files.count(), "no journal file was created");
        }
    }
}
