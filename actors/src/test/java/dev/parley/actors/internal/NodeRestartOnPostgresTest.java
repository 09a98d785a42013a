package dev.parley.actors.internal;

import dev.parley.persistence.JournalDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The restart contract on the same journal in a real PostgreSQL (embedded; STACK.md §11.3). */
class NodeRestartOnPostgresTest extends NodeRestartContract {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void startPostgres() throws IOException {
        postgres = EmbeddedPostgres.start();
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    /** A fresh database per test, so the journal holds only that test's call. */
    @Override
    JournalDatabase database() {
        String name = "parley_" + DATABASES.incrementAndGet();
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        // Not getJdbcUrl(): it puts the user into the URL, where it would win over JournalDatabase.user().
        return new JournalDatabase.Postgres(
                "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + name, "postgres", "postgres");
    }
}
