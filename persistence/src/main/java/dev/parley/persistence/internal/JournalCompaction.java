package dev.parley.persistence.internal;

import dev.parley.persistence.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStore;

/**
 * Gives the space of deleted journal rows back to the file system, so that disk use follows
 * what the journal holds. H2 otherwise shrinks its file only when the database closes: its
 * store is compacted online for at most {@code maxTime} (commits wait meanwhile). H2 counts a
 * deleted row's pages as free only once no open read still sees the version that deleted them,
 * so one compaction right after a deletion may give little back: {@link #afterRetention} compacts
 * after a run that deleted rows and at every later run until the file is mostly live data again.
 * SQLite (the default store) returns the free pages of a file created with
 * {@code auto_vacuum = INCREMENTAL} (as JournalSchema makes it) with {@code PRAGMA incremental_vacuum},
 * and a {@code TRUNCATE} checkpoint writes them out of the file and empties the WAL; writers wait
 * meanwhile, as they do for H2's compaction. PostgreSQL's autovacuum does its own.
 */
public final class JournalCompaction {
    private static final int MOSTLY_LIVE_PERCENT = 80;

    private final JournalDatabase database;
    private final Duration maxTime;
    /** Set by a deletion; cleared by a compaction that left the H2 file mostly live data. */
    private boolean pending;

    public JournalCompaction(JournalDatabase database, Duration maxTime) {
        this.database = database;
        this.maxTime = maxTime;
    }

    /** Called by one housekeeping thread after each retention run, with the rows it deleted. */
    public void afterRetention(int deleted) {
        if (deleted > 0 || pending) {
            pending = !run();
        }
    }

    /** Compacts now; true when the file holds little free space afterwards. */
    public boolean run() {
        if (database instanceof JournalDatabase.Postgres) {
            return true;
        }
        try (Connection connection =
                DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
            if (database instanceof JournalDatabase.H2File) {
                // The embedded database is open in this JVM: this connection reaches its store.
                SessionLocal session =
                        (SessionLocal) connection.unwrap(JdbcConnection.class).getSession();
                MVStore store = session.getDatabase().getStore().getMvStore();
                // The newest chunk is never rewritten: a new version (an unchanged setting) ends it.
                store.setStoreVersion(store.getStoreVersion());
                store.commit();
                // Compaction drops the retention time to 0 (as at close); the running store gets its own back.
                int retention = store.getRetentionTime();
                try {
                    store.compactFile((int) maxTime.toMillis());
                } finally {
                    store.setRetentionTime(retention);
                }
                return store.getFileStore().getChunksFillRate() >= MOSTLY_LIVE_PERCENT;
            } else {
                try (Statement statement = connection.createStatement()) {
                    // Each step of the statement frees a page: executeUpdate runs it to its end (execute steps once).
                    statement.executeUpdate("PRAGMA incremental_vacuum");
                    // The file shrinks when the WAL is written back into it; TRUNCATE then empties the WAL,
                    // which otherwise keeps the size of its largest run between checkpoints.
                    try (ResultSet checkpoint = statement.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
                        return checkpoint.next() && checkpoint.getInt(1) == 0; // 1: busy, again at the next run
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("journal compaction failed: " + e.getMessage(), e);
        }
    }
}
