package dev.parley.persistence.internal;

import dev.parley.persistence.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStore;

/**
 * Gives the space of deleted journal rows back to the file system, so that disk use follows
 * what the journal holds. H2 otherwise shrinks its file only when the database closes: its
 * store is compacted online for at most {@code maxTime} (commits wait meanwhile, so it runs
 * only after retention deleted something, and once more when H2's retention time has passed, for
 * the space it kept until then). SQLite returns the free pages of a file created
 * with {@code auto_vacuum = INCREMENTAL} (as JournalSchema makes it). PostgreSQL's autovacuum does its own.
 */
public final class JournalCompaction {
    private final JournalDatabase database;
    private final Duration maxTime;

    public JournalCompaction(JournalDatabase database, Duration maxTime) {
        this.database = database;
        this.maxTime = maxTime;
    }

    public void run() {
        if (database instanceof JournalDatabase.Postgres) {
            return;
        }
        try (Connection connection =
                DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
            if (database instanceof JournalDatabase.H2File) {
                // The embedded database is open in this JVM: this connection reaches its store.
                SessionLocal session =
                        (SessionLocal) connection.unwrap(JdbcConnection.class).getSession();
                MVStore store = session.getDatabase().getStore().getMvStore();
                // Compaction drops the retention time to 0 (as at close); the running store gets its own back.
                int retention = store.getRetentionTime();
                try {
                    store.compactFile((int) maxTime.toMillis());
                } finally {
                    store.setRetentionTime(retention);
                }
            } else {
                // Each step of the statement frees a page: executeUpdate runs it to its end (execute steps once).
                try (Statement statement = connection.createStatement()) {
                    statement.executeUpdate("PRAGMA incremental_vacuum");
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("journal compaction failed: " + e.getMessage(), e);
        }
    }
}
