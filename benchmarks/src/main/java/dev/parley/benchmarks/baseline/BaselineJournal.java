package dev.parley.benchmarks.baseline;

import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The least a durable MRTR server must do on an embedded store: rows inserted into an
 * {@code event_journal} table by one writer thread that commits whatever is queued in one
 * transaction (group commit), each write acknowledged only after its commit. No actor, no
 * serializer, no recovery read: what it costs is the floor under any journal on that store.
 *
 * <p>{@link Store#H2}: Parley's own H2 schema and file settings (a commit reaches the file before
 * it is acknowledged, without fsync). {@link Store#SQLITE}: the same columns and keys in SQLite in
 * WAL mode with {@code synchronous=NORMAL} (a commit reaches the WAL file before it is
 * acknowledged; the WAL is synced at checkpoints), the same guarantee: a killed process loses
 * nothing acknowledged, an OS crash may lose the last commits.
 */
final class BaselineJournal implements AutoCloseable {
    enum Store {
        H2,
        SQLITE
    }

    private static final String WRITER = "baseline";

    /** One round's rows of one call, written together. */
    private record Write(
            String persistenceId, long firstSequenceNr, List<byte[]> payloads, CompletableFuture<Void> done) {}

    private final BlockingQueue<Write> queue = new LinkedBlockingQueue<>();
    private final Connection connection;
    private final PreparedStatement insert;
    private final Thread writer;
    private volatile boolean open = true;

    BaselineJournal(Store store, Path directory) throws SQLException {
        connection = switch (store) {
            case H2 -> h2(directory);
            case SQLITE -> sqlite(directory);
        };
        connection.setAutoCommit(false);
        insert = connection.prepareStatement("INSERT INTO \"event_journal\" (\"deleted\", \"persistence_id\", "
                + "\"sequence_number\", \"writer\", \"write_timestamp\", \"adapter_manifest\", \"event_payload\", "
                + "\"event_ser_id\", \"event_ser_manifest\") VALUES (false, ?, ?, ?, ?, '', ?, 0, 'baseline')");
        writer = new Thread(this::writeLoop, "baseline-journal");
        writer.setDaemon(true);
        writer.start();
    }

    private static Connection h2(Path directory) throws SQLException {
        JournalDatabase database = new JournalDatabase.H2File(directory);
        JournalSchema.create(database);
        return DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
    }

    private static Connection sqlite(Path directory) throws SQLException {
        Connection connection = DriverManager.getConnection(
                "jdbc:sqlite:" + directory.toAbsolutePath().resolve("journal.sqlite"));
        try (Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA journal_mode=WAL");
            statement.execute("PRAGMA synchronous=NORMAL");
            statement.execute("CREATE TABLE IF NOT EXISTS \"event_journal\" ("
                    + "\"ordering\" INTEGER PRIMARY KEY AUTOINCREMENT, \"deleted\" BOOLEAN NOT NULL DEFAULT FALSE, "
                    + "\"persistence_id\" VARCHAR(255) NOT NULL, \"sequence_number\" BIGINT NOT NULL, "
                    + "\"writer\" TEXT NOT NULL, \"write_timestamp\" BIGINT, \"adapter_manifest\" TEXT, "
                    + "\"event_ser_id\" INTEGER NOT NULL, \"event_ser_manifest\" TEXT NOT NULL, "
                    + "\"event_payload\" BLOB NOT NULL, \"meta_ser_id\" INTEGER, \"meta_ser_manifest\" TEXT, "
                    + "\"meta_payload\" BLOB, UNIQUE (\"persistence_id\", \"sequence_number\"))");
        }
        return connection;
    }

    /** Completes once the rows are committed; fails if the commit did. */
    CompletableFuture<Void> append(String persistenceId, long firstSequenceNr, List<byte[]> payloads) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        queue.add(new Write(persistenceId, firstSequenceNr, payloads, done));
        return done;
    }

    private void writeLoop() {
        List<Write> batch = new ArrayList<>();
        while (open) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch);
            try {
                long now = System.currentTimeMillis();
                for (Write write : batch) {
                    for (int i = 0; i < write.payloads().size(); i++) {
                        insert.setString(1, write.persistenceId());
                        insert.setLong(2, write.firstSequenceNr() + i);
                        insert.setString(3, WRITER);
                        insert.setLong(4, now);
                        insert.setBytes(5, write.payloads().get(i));
                        insert.addBatch();
                    }
                }
                insert.executeBatch();
                connection.commit();
                batch.forEach(write -> write.done().complete(null));
            } catch (SQLException e) {
                try {
                    connection.rollback();
                } catch (SQLException ignored) {
                    // the failure below is what the callers need to see
                }
                batch.forEach(write -> write.done().completeExceptionally(e));
            }
            batch.clear();
        }
    }

    @Override
    public void close() {
        open = false;
        writer.interrupt();
        try {
            writer.join(5_000);
            insert.close();
            connection.close();
        } catch (InterruptedException | SQLException ignored) {
            // stopping anyway
        }
    }
}
