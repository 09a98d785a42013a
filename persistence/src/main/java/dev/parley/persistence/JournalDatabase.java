package dev.parley.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/** Where the journal lives: an embedded SQLite file (the default), an embedded H2 file, or a shared PostgreSQL. */
public sealed interface JournalDatabase {

    String jdbcUrl();

    String user();

    String password();

    /** The Slick profile object pekko-persistence-jdbc uses for this database. */
    String slickProfile();

    String driver();

    /** The DDL script (from this module's resources) that creates the journal tables. */
    String schemaResource();

    /**
     * The database {@code parley.journal} names: {@code database = sqlite} (the default) or {@code h2} (a file in
     * {@code dataDirectory}) or {@code database = postgres} with {@code postgres.url}, {@code user}
     * and {@code password} (from PG_URL, PG_USER and PG_PASSWORD by default).
     */
    static JournalDatabase fromConfig(Config config, Path dataDirectory) {
        Config journal = config.getConfig("parley.journal");
        return switch (journal.getString("database")) {
            case "h2" -> new H2File(dataDirectory);
            case "sqlite" -> new SqliteFile(dataDirectory);
            case "postgres" ->
                new Postgres(
                        journal.getString("postgres.url"),
                        journal.getString("postgres.user"),
                        journal.getString("postgres.password"));
            default ->
                throw new IllegalArgumentException(
                        "parley.journal.database must be h2, sqlite or postgres, not " + journal.getString("database"));
        };
    }

    /** A table or column name as SQL must spell it for this database's journal tables. */
    default String identifier(String name) {
        return name;
    }

    /** Configuration that points pekko-persistence-jdbc's shared database at this one. */
    default Config config() {
        String db = "pekko-persistence-jdbc.shared-databases.slick.";
        return ConfigFactory.parseMap(Map.of(
                db + "profile", slickProfile(),
                db + "db.url", jdbcUrl(),
                db + "db.driver", driver(),
                db + "db.user", user(),
                db + "db.password", password()));
    }

    /** Settings this database works best with; a node's own configuration overrides them. */
    default Config defaults() {
        return ConfigFactory.empty();
    }

    /**
     * An H2 file database in {@code directory}. {@code WRITE_DELAY=0} makes every commit reach the
     * file before it is acknowledged, so a SIGKILL loses nothing that was answered.
     * {@code DB_CLOSE_ON_EXIT=FALSE}: H2's own JVM shutdown hook would close the database while
     * a SIGTERM's coordinated shutdown still drains requests into it; the journal's pool closes
     * it instead, once the actor system has stopped.
     */
    record H2File(Path directory) implements JournalDatabase {
        public H2File {
            Objects.requireNonNull(directory, "directory");
        }

        @Override
        public String jdbcUrl() {
            return "jdbc:h2:file:" + directory.toAbsolutePath().resolve("journal")
                    + ";DATABASE_TO_UPPER=false;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
        }

        /** The file H2 keeps the journal in: {@code journal.mv.db}. */
        public Path file() {
            return directory.resolve("journal.mv.db");
        }

        /**
         * One journal write transaction at a time: H2 serializes every commit's changed pages on the
         * committing thread, so concurrent small transactions cost more than one larger batch of the
         * writes queued meanwhile (JournalWriteBenchmark: 12.2k events/s with 8, 16.7k with 1).
         */
        /*
         * connectionTestQuery: H2 closes the database when a write fails (a full disk),
         * but its connections still say they are valid; a query is what shows the pool that they
         * are not, so it replaces them with connections that open the database again.
         */
        @Override
        public Config defaults() {
            return ConfigFactory.parseMap(Map.of(
                    "jdbc-journal.parallelism",
                    1,
                    "pekko-persistence-jdbc.shared-databases.slick.db.connectionTestQuery",
                    "SELECT 1"));
        }

        @Override
        public String user() {
            return "sa";
        }

        @Override
        public String password() {
            return "";
        }

        @Override
        public String slickProfile() {
            return "slick.jdbc.H2Profile$";
        }

        @Override
        public String driver() {
            return "org.h2.Driver";
        }

        @Override
        public String schemaResource() {
            return "parley/schema/h2.sql";
        }

        /** The H2 tables were created with quoted lower-case names. */
        @Override
        public String identifier(String name) {
            return "\"" + name + "\"";
        }
    }

    /**
     * A SQLite file database in {@code directory} ({@code parley.journal.database = sqlite}). WAL mode with {@code synchronous=NORMAL}: a
     * commit is written to the WAL file before it is acknowledged, and the WAL is synced only at
     * checkpoints, so a SIGKILL loses nothing that was answered and an OS crash may lose the last
     * commits, as with {@link H2File}.
     */
    record SqliteFile(Path directory) implements JournalDatabase {
        public SqliteFile {
            Objects.requireNonNull(directory, "directory");
        }

        /**
         * The pragmas ride in the URL: sqlite-jdbc applies them to every connection the pool opens.
         * {@code case_sensitive_like}: the journal's prefix queries ({@code LIKE 'Task|%'}) must not
         * match {@code task|...}, as they do not on H2 and PostgreSQL.
         */
        @Override
        public String jdbcUrl() {
            return "jdbc:sqlite:" + file().toAbsolutePath()
                    + "?journal_mode=WAL&synchronous=NORMAL&busy_timeout=10000&case_sensitive_like=true";
        }

        /** The journal's file: {@code journal.sqlite} (beside it, while it is open, its WAL and shared-memory files). */
        public Path file() {
            return directory.resolve("journal.sqlite");
        }

        /**
         * One journal write transaction at a time: SQLite allows one writer per database file, so a
         * second writing connection would only wait for the first one's lock.
         */
        @Override
        public Config defaults() {
            return ConfigFactory.parseMap(Map.of("jdbc-journal.parallelism", 1));
        }

        @Override
        public String user() {
            return "";
        }

        @Override
        public String password() {
            return "";
        }

        @Override
        public String slickProfile() {
            return "slick.jdbc.SQLiteProfile$";
        }

        @Override
        public String driver() {
            return "org.sqlite.JDBC";
        }

        @Override
        public String schemaResource() {
            return "parley/schema/sqlite.sql";
        }
    }

    record Postgres(String jdbcUrl, String user, String password) implements JournalDatabase {
        public Postgres {
            Objects.requireNonNull(jdbcUrl, "jdbcUrl");
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(password, "password");
        }

        @Override
        public String slickProfile() {
            return "slick.jdbc.PostgresProfile$";
        }

        @Override
        public String driver() {
            return "org.postgresql.Driver";
        }

        @Override
        public String schemaResource() {
            return "parley/schema/postgres.sql";
        }

        @Override
        public String toString() {
            return "Postgres[" + jdbcUrl + ", user=" + user + "]";
        }
    }
}
