package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.ParleyServer.Flags;
import dev.parley.testing.McpTestClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line of a server's main, and {@link ParleyServer#start} on a real socket. */
class ParleyServerTest {
    @TempDir
    Path dir;

    @Test
    void flagsReadEachOptionAndLeaveTheRestToTheConfiguration() {
        assertEquals(new Flags(OptionalInt.empty(), Optional.empty(), Optional.empty(), false), Flags.parse());
        assertEquals(
                new Flags(OptionalInt.of(9000), Optional.of(Path.of("d")), Optional.of("x.conf"), false),
                Flags.parse("--port", "9000", "--data", "d", "--config", "x.conf"));
    }

    @Test
    void stdioServesHttpOnAFreePortUnlessOneIsGivenAndKeepsPekkoOffStdout() {
        Flags stdio = Flags.parse("--stdio");
        assertEquals(OptionalInt.of(0), stdio.port());
        assertEquals("OFF", stdio.config().getString("pekko.stdout-loglevel"));
        assertEquals(
                OptionalInt.of(7000), Flags.parse("--port", "7000", "--stdio").port());
        assertFalse(Flags.parse().config().hasPath("pekko.stdout-loglevel"));
    }

    @Test
    void aBadCommandLineIsAClearError() {
        assertEquals("unknown flag --prot", error("--prot", "80"));
        assertEquals("missing value for --data", error("--data"));
        assertEquals("--port needs a number, not eighty", error("--port", "eighty"));
        assertEquals(
                "no configuration at nowhere.conf",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> Flags.parse("--config", "nowhere.conf").config())
                        .getMessage());
    }

    @Test
    void aConfigFileIsReadOverApplicationConf() throws Exception {
        Path file = Files.writeString(dir.resolve("node.conf"), "parley.lists.page-size = 3\n");
        assertEquals(3, Flags.parse("--config", file.toString()).config().getInt("parley.lists.page-size"));
    }

    @Test
    void startServesTheDefinitionOnThePortAndDataDirectoryTheFlagsName() throws Exception {
        Path data = dir.resolve("data");
        Path conf = Files.writeString(dir.resolve("node.conf"), TestTools.CONFIG);
        try (McpHttpServer server = ParleyServer.start(
                new TestTools().definition(), "--port", "0", "--data", data.toString(), "--config", conf.toString())) {
            McpTestClient client = new McpTestClient(server.port());
            ObjectNode request = client.request("tools/list", null, "{}");
            JsonNode result = assertResult(client.send(request), request, "ListToolsResult");
            assertEquals(2, result.path("tools").size(), "page size from the --config file: " + result);
            assertTrue(Files.exists(data.resolve("request-state.key")), "the state key is kept in --data");
        }
    }

    private static String error(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> Flags.parse(args))
                .getMessage();
    }
}
