package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.NodeConfig;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.state.RequestStateKey;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.McpNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Drives a {@link ParleyNode} the way the HTTP edge does: JSON-RPC bodies parsed and gated by
 * {@link McpRequest#from}, then handed to the request pipeline. Also reads the journal with plain JDBC.
 */
final class NodeDriver {
    static {
        // Initialise SLF4J before any actor system logs (STACK.md G10).
        org.slf4j.LoggerFactory.getILoggerFactory();
    }

    /** A random artery port, so nodes started one after the other never collide. */
    static final Config OVERRIDES = ConfigFactory.parseString("""
      pekko.remote.artery.canonical.port = 0
      pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
      """);

    static final String ELICITATION = "{\"elicitation\":{}}";
    static final String NO_CAPABILITIES = "{}";

    private NodeDriver() {}

    /** The journal a node on the configured store keeps in {@code dataDirectory} (SQLite unless configured). */
    static JournalDatabase configuredJournal(Path dataDirectory) {
        return JournalDatabase.fromConfig(NodeConfig.load(ConfigFactory.empty()), dataDirectory);
    }

    /** A node on {@code database} with {@code key} as its one configured requestState key. */
    static ParleyNode start(JournalDatabase database, RequestStateKey key) {
        Config withKey = ConfigFactory.parseMap(Map.of(
                        "parley.request-state.keys",
                        List.of(Map.of(
                                "id", key.id(), "secret", Base64.getEncoder().encodeToString(key.secret())))))
                .withFallback(OVERRIDES);
        return ParleyNode.builder(TestTools.SERVER)
                .config(withKey)
                .journal(database)
                .start();
    }

    /** A {@code tools/call} body; {@code requestState} and {@code inputResponsesJson} may be null. */
    static byte[] toolsCall(
            int id,
            String tool,
            String argumentsJson,
            String requestState,
            String inputResponsesJson,
            String capabilitiesJson) {
        ObjectNode body = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", "tools/call");
        ObjectNode params = body.putObject("params");
        params.put("name", tool);
        params.set("arguments", Json.parse(argumentsJson));
        if (requestState != null) {
            params.put("requestState", requestState);
        }
        if (inputResponsesJson != null) {
            params.set("inputResponses", Json.parse(inputResponsesJson));
        }
        ObjectNode meta = params.putObject("_meta");
        meta.put(McpNames.Meta.PROTOCOL_VERSION, "2026-07-28");
        meta.set(McpNames.Meta.CLIENT_CAPABILITIES, Json.parse(capabilitiesJson));
        return Json.write(body).getBytes(StandardCharsets.UTF_8);
    }

    /** Dispatches one body for {@code principal} and returns the JSON-RPC response as JSON. */
    static JsonNode dispatch(ParleyNode node, byte[] body, String principal) throws Exception {
        McpRequest request = McpRequest.from(JsonRpc.parse(body), principal);
        JsonRpc.Response response = node.pipeline()
                .handle(request)
                .toCompletableFuture()
                .get(60, TimeUnit.SECONDS)
                .response();
        return Json.tree(response);
    }

    /** One row of {@code event_journal}. */
    record JournalRow(String persistenceId, long sequenceNumber, int serializerId, String manifest) {}

    static List<JournalRow> journal(JournalDatabase database) throws SQLException {
        List<JournalRow> rows = new ArrayList<>();
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT persistence_id, sequence_number, event_ser_id, "
                        + "event_ser_manifest FROM event_journal ORDER BY persistence_id, sequence_number")) {
            while (result.next()) {
                rows.add(new JournalRow(result.getString(1), result.getLong(2), result.getInt(3), result.getString(4)));
            }
        }
        return rows;
    }

    /** Deletes every event of {@code persistenceId}, as if its writes had never landed. */
    static void deleteEvents(JournalDatabase database, String persistenceId) throws SQLException {
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
                PreparedStatement tags = connection.prepareStatement("DELETE FROM event_tag WHERE event_id IN "
                        + "(SELECT ordering FROM event_journal WHERE persistence_id = ?)");
                PreparedStatement events =
                        connection.prepareStatement("DELETE FROM event_journal WHERE persistence_id = ?")) {
            tags.setString(1, persistenceId);
            tags.executeUpdate();
            events.setString(1, persistenceId);
            events.executeUpdate();
        }
    }
}
