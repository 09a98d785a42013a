package dev.parley.actors.internal;

import dev.parley.persistence.JournalDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The restart contract on the default profile: an embedded H2 file in the data directory. */
class NodeRestartOnH2FileTest extends NodeRestartContract {
    @TempDir
    Path dataDirectory;

    @Override
    JournalDatabase database() {
        return new JournalDatabase.H2File(dataDirectory);
    }
}
