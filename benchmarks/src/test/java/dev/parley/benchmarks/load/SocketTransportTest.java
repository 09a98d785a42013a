package dev.parley.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The socket client against the JDK's own HTTP server on loopback: a few bounded exchanges. */
class SocketTransportTest {
    private HttpServer server;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/fixed", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            byte[] answer = ("echo:" + new String(body, StandardCharsets.UTF_8) + ":"
                            + exchange.getRequestHeaders().getFirst("X-Test"))
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.createContext("/chunked", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0); // 0 = chunked
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("data: one\n\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                out.write("data: two\n\n".getBytes(StandardCharsets.UTF_8));
            }
        });
        server.createContext("/accepted", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(202, -1);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    @Test
    void readsContentLengthBodiesOnOneKeptAliveConnection() throws Exception {
        try (SocketTransport transport = new SocketTransport(url("/fixed"), Duration.ofSeconds(10))) {
            for (int i = 0; i < 3; i++) {
                HttpTransport.Response response =
                        transport.post(Map.of("X-Test", "t" + i), ("b" + i).getBytes(StandardCharsets.UTF_8));
                assertEquals(200, response.status());
                assertEquals("echo:b" + i + ":t" + i, new String(response.body(), StandardCharsets.UTF_8));
                assertEquals("application/json", response.contentType());
            }
            assertEquals(1, transport.connects());
        }
    }

    @Test
    void readsChunkedBodiesAndEmptyResponses() throws Exception {
        try (SocketTransport chunked = new SocketTransport(url("/chunked"), Duration.ofSeconds(10));
                SocketTransport accepted = new SocketTransport(url("/accepted"), Duration.ofSeconds(10))) {
            HttpTransport.Response response = chunked.post(Map.of(), new byte[0]);
            assertEquals("data: one\n\ndata: two\n\n", new String(response.body(), StandardCharsets.UTF_8));
            HttpTransport.Response empty = accepted.post(Map.of(), "{}".getBytes(StandardCharsets.UTF_8));
            assertEquals(202, empty.status());
            assertEquals(0, empty.body().length);
        }
    }
}
