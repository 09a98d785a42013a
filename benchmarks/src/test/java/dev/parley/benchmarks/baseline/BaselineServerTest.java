package dev.parley.benchmarks.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The baseline's MRTR flow answers as the fixture's tool does, and on a journal commits its rows. */
class BaselineServerTest {
    private final HttpClient client = HttpClient.newHttpClient();

    @ParameterizedTest
    @EnumSource(BaselineJournal.Store.class)
    @Timeout(60)
    void mrtrFlowOnTheJournalWritesOneRowThenTwo(BaselineJournal.Store store, @TempDir Path data) throws Exception {
        try (BaselineServer server = BaselineServer.start("127.0.0.1", 0, store, data, false)) {
            String state = mrtrFlow("http://127.0.0.1:" + server.port() + "/mcp");
            assertEquals(3, rows(store, data, "ToolCall|" + state));
        }
    }

    @Test
    @Timeout(60)
    void mrtrFlowThroughAnEntityPerCallWritesThreeEvents(@TempDir Path data) throws Exception {
        try (BaselineServer server = BaselineServer.start("127.0.0.1", 0, BaselineJournal.Store.SQLITE, data, true)) {
            String state = mrtrFlow("http://127.0.0.1:" + server.port() + "/mcp");
            // The retry is answered after its two events; the first round's event was written before them.
            assertEquals(3, rows(BaselineJournal.Store.SQLITE, data, "BareCall|" + state));
        }
    }

    /** Runs the MRTR flow and a one-round call; returns the flow's {@code requestState} (its call id). */
    private String mrtrFlow(String url) throws Exception {
        JsonNode first = call(url, """
            {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_input_required_result_elicitation","arguments":{}}}""");
        assertEquals("input_required", first.path("resultType").asText());
        assertEquals(
                "elicitation/create",
                first.path("inputRequests").path("user_name").path("method").asText());
        String state = first.path("requestState").asText();
        JsonNode second = call(url, """
            {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_input_required_result_elicitation",
             "arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},
             "requestState":"%s"}}""".formatted(state));
        assertEquals("complete", second.path("resultType").asText());
        assertEquals(
                "Hello, Alice!", second.path("content").path(0).path("text").asText());
        assertEquals(
                "This is a simple text response for testing.",
                call(url, """
                    {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}""").path("content").path(0).path("text").asText());
        return state;
    }

    private JsonNode call(String url, String body) throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create(url))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return Json.parse(response.body()).path("result");
    }

    /** Read while the server runs: every round was answered only after its commit. */
    private static int rows(BaselineJournal.Store store, Path data, String persistenceId) throws Exception {
        JournalDatabase h2 = new JournalDatabase.H2File(data);
        try (Connection connection = store == BaselineJournal.Store.H2
                        ? DriverManager.getConnection(h2.jdbcUrl(), h2.user(), h2.password())
                        : DriverManager.getConnection("jdbc:sqlite:" + data.resolve("journal.sqlite"));
                var query = connection.prepareStatement(
                        "SELECT count(*) FROM \"event_journal\" WHERE \"persistence_id\" = ?")) {
            query.setString(1, persistenceId);
            try (ResultSet result = query.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        }
    }
}
