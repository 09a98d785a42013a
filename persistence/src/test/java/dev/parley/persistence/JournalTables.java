package dev.parley.persistence;

import dev.parley.persistence.internal.JournalEventSerializer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Plain JDBC looks at the journal tables, written in SQL that H2 and PostgreSQL both read. */
public final class JournalTables {
    public static final String[] TABLES = {"event_journal", "event_tag", "snapshot"};

    private JournalTables() {}

    public static Connection connect(JournalDatabase database) throws SQLException {
        return DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
    }

    public static long rows(JournalDatabase database, String table) throws SQLException {
        try (Connection connection = connect(database);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Writes one journal row the way pekko-persistence-jdbc does (ordering from the sequence). */
    public static void insertEvent(JournalDatabase database, String persistenceId, long sequenceNumber)
            throws SQLException {
        try (Connection connection = connect(database);
                PreparedStatement insert = connection.prepareStatement("INSERT INTO event_journal "
                        + "(persistence_id, sequence_number, writer, write_timestamp, adapter_manifest, "
                        + "event_ser_id, event_ser_manifest, event_payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, persistenceId);
            insert.setLong(2, sequenceNumber);
            insert.setString(3, "test-writer");
            insert.setLong(4, 1_785_000_000_000L);
            insert.setString(5, "");
            insert.setInt(6, JournalEventSerializer.IDENTIFIER);
            insert.setString(7, "parley.call.step-recorded.v1");
            insert.setBytes(8, "{\"name\":\"charge\",\"value\":1}".getBytes(StandardCharsets.UTF_8));
            insert.executeUpdate();
        }
    }
}
