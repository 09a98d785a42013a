package dev.parley.actors.internal;

import dev.parley.persistence.JournalDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The restart contract on {@code parley.journal.database = sqlite}: a SQLite file in the data directory. */
class NodeRestartOnSqliteFileTest extends NodeRestartContract {
    @TempDir
    Path dataDirectory;

    @Override
    JournalDatabase database() {
        return new JournalDatabase.SqliteFile(dataDirectory);
    }
}
