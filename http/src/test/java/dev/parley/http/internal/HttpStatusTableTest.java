package dev.parley.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.pipeline.McpReply.Origin;
import dev.parley.http.internal.HttpStatusTable.Refusal;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The status table, row by row, and the docs' edge table (docs/http-edge.md) generated from it. */
class HttpStatusTableTest {
    private static final String TABLE_START =
            "<!-- edge-table:start (generated from HttpStatusTable; a test checks it) -->\n";
    private static final String TABLE_END = "<!-- edge-table:end -->";

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        // spec §6.3: gate errors have fixed statuses
        "GATE, -32700, 400",
        "GATE, -32600, 400",
        "GATE, -32602, 400",
        "GATE, -32020, 400",
        "GATE, -32021, 400",
        "GATE, -32022, 400",
        "GATE, -32601, 404",
        "GATE, -32000, 400",
        // in-band: the request was understood; 200 unless the code has a fixed status
        "IN_BAND, -32602, 200",
        "IN_BAND, -32603, 200",
        "IN_BAND, -32001, 200",
        "IN_BAND, 42, 200",
        "IN_BAND, -32601, 404",
        "IN_BAND, -32021, 400",
        "IN_BAND, -32020, 400",
        "IN_BAND, -32022, 400",
        "IN_BAND, -32600, 400",
        "IN_BAND, -32700, 400"
    })
    void everyJsonRpcErrorHasTheStatusOfItsRow(Origin origin, int code, int status) {
        assertEquals(status, HttpStatusTable.statusOf(origin, code).intValue());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "NOT_ALLOWED_HOST_OR_ORIGIN, 403",
        "METHOD_NOT_POST, 405",
        "NOT_JSON_CONTENT, 415",
        "JSON_NOT_ACCEPTED, 406",
        "BODY_TOO_LARGE, 413",
        "BODY_UNREADABLE, 400",
        "NOTIFICATION_ACCEPTED, 202",
        "DRAINING, 503"
    })
    void everyRefusalOfTheHttpLayerHasItsStatus(Refusal refusal, int status) {
        assertEquals(status, HttpStatusTable.statusOf(refusal).intValue());
    }

    @Test
    void theDrainingRefusalIsARetryableInternalError() throws IOException {
        HttpResponse response = HttpReplies.refusal(Refusal.DRAINING, "The server is shutting down; retry the request");
        assertEquals(503, response.status().intValue());
        JsonNode body = Json.MAPPER.readTree(
                ((HttpEntity.Strict) response.entity()).getData().toArray());
        assertEquals(-32603, body.at("/error/code").asInt(), body::toString);
    }

    @Test
    void theDocsEdgeTableIsTheStatusTable() throws IOException {
        String readme = Files.readString(Path.of("..", "docs", "http-edge.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf(TABLE_START);
        int end = readme.indexOf(TABLE_END);
        assertTrue(start >= 0 && end > start, "docs/http-edge.md lacks the generated edge table markers");
        String table = readme.substring(start + TABLE_START.length(), end);
        assertEquals(
                HttpStatusTable.markdown(),
                table,
                "docs/http-edge.md's edge table differs from HttpStatusTable; paste HttpStatusTable.markdown() between the markers");
    }
}
