package dev.parley.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.parley.http.HttpSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A handler that throws, or whose answer fails, costs its request a 500, not its connection. */
class ConnectionGuardTest {
    private static ActorSystem<Void> system;
    private static ServerBinding binding;

    @BeforeAll
    static void start() throws Exception {
        system = ActorSystem.create(Behaviors.empty(), "connection-guard-test");
        HttpSettings.Connections settings = new HttpSettings.Connections(
                16,
                16,
                Duration.ofSeconds(10),
                Duration.ofSeconds(1),
                0.8,
                Duration.ofSeconds(10),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1));
        binding = Http.get(system)
                .newServerAt("127.0.0.1", 0)
                .bindFlow(ConnectionGuard.flow(
                        new ConnectionLimits(settings),
                        request -> switch (request.getUri().path()) {
                            case "/throws" -> throw new IllegalStateException("thrown before any answer");
                            case "/fails" ->
                                CompletableFuture.<org.apache.pekko.http.javadsl.model.HttpResponse>failedFuture(
                                        new IllegalStateException("failed"));
                            default ->
                                CompletableFuture.completedFuture(
                                        org.apache.pekko.http.javadsl.model.HttpResponse.create()
                                                .withStatus(StatusCodes.OK));
                        },
                        () -> {}))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (system != null) {
            system.terminate();
        }
    }

    @Test
    @Timeout(30)
    void aThrowingOrFailingHandlerIsA500OnAConnectionThatServesOn() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", binding.localAddress().getPort())) {
            socket.setSoTimeout(10_000);
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            // One keep-alive connection: each answer must come on it, after the ones before.
            for (String path : new String[] {"/throws", "/fails", "/throws", "/ok"}) {
                out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String status = in.readLine();
                assertEquals(
                        path.equals("/ok") ? "HTTP/1.1 200 OK" : "HTTP/1.1 500 Internal Server Error", status, path);
                int length = 0;
                for (String line = in.readLine(); !line.isEmpty(); line = in.readLine()) {
                    assertFalse(line.equalsIgnoreCase("connection: close"), path + " closes the connection");
                    if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                        length = Integer.parseInt(
                                line.substring("content-length:".length()).trim());
                    }
                }
                in.skip(length);
            }
        }
    }
}
