package dev.parley.benchmarks.baseline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.Response;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.Materializer;

/**
 * The practical ceiling for a one-round {@code tools/call}: a bare pekko-http route that reads
 * the body the way Parley's endpoint does, parses it with the same codec
 * ({@link JsonRpc#parse}) and answers a fixed {@code CallToolResult} written with the same
 * mapper ({@link Json#MAPPER}). No gate, no headers checked, no pipeline, no tool, no actor.
 * {@code tools/list} gets a fixed list naming the demo's {@code check_availability}; every other
 * request gets the fixed result; a notification gets 202.
 */
public final class BaselineServer extends AllDirectives implements AutoCloseable {
    private static final long BODY_READ_TIMEOUT_MS = 10_000;
    private static final long MAX_BODY_BYTES = 1024 * 1024;

    private final ActorSystem<Void> system;
    private final Materializer materializer;
    private final ObjectNode callResult;
    private final ObjectNode toolsList;
    private ServerBinding binding;

    private BaselineServer(ActorSystem<Void> system) {
        this.system = system;
        this.materializer = Materializer.matFromSystem(system);
        this.callResult = Json.object().put("resultType", "complete");
        this.callResult
                .putArray("content")
                .addObject()
                .put("type", "text")
                .put("text", "The venue is free on 2026-12-20.");
        this.toolsList = (ObjectNode) Json.parse("""
        {"resultType":"complete","tools":[{"name":"check_availability","title":"Check venue availability",
         "description":"Tells whether the venue is free on a date.",
         "inputSchema":{"type":"object","properties":{"date":{"type":"string","format":"date",
           "description":"Event date, YYYY-MM-DD"}},"required":["date"]},
         "annotations":{"readOnlyHint":true}}]}""");
    }

    /** Starts on {@code host:port} (port 0 picks one); blocks until bound. */
    public static BaselineServer start(String host, int port) {
        Config config = ConfigFactory.parseString("""
        pekko.loglevel = "WARNING"
        pekko.actor.provider = local
        pekko.http.server.request-timeout = 90 seconds
        pekko.http.server.idle-timeout = 120 seconds
        """).withFallback(ConfigFactory.load());
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "parley-baseline", config);
        BaselineServer server = new BaselineServer(system);
        try {
            server.binding = Http.get(system)
                    .newServerAt(host, port)
                    .bind(server.route())
                    .toCompletableFuture()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            system.terminate();
            throw new IllegalStateException(
                    "could not bind the baseline on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        return server;
    }

    public int port() {
        return binding.localAddress().getPort();
    }

    public Route route() {
        return path("mcp", () -> extractRequest(request -> completeWithFuture(handle(request))));
    }

    private CompletionStage<HttpResponse> handle(HttpRequest request) {
        if (!request.method().equals(HttpMethods.POST)) {
            return CompletableFuture.completedFuture(HttpResponse.create().withStatus(StatusCodes.METHOD_NOT_ALLOWED));
        }
        // Continued on the completing thread, as Parley's routes do (see PekkoStages).
        return PekkoStages.direct(
                        request.entity().withSizeLimit(MAX_BODY_BYTES).toStrict(BODY_READ_TIMEOUT_MS, materializer))
                .thenApply(strict -> answer(strict.getData().toArray()));
    }

    private HttpResponse answer(byte[] body) {
        try {
            JsonRpc.Message message = JsonRpc.parse(body);
            if (message.isNotification()) {
                return HttpResponse.create().withStatus(StatusCodes.ACCEPTED);
            }
            ObjectNode result = message.method().equals("tools/list") ? toolsList : callResult;
            return json(200, Response.result(message.id(), result));
        } catch (McpException e) {
            return json(400, Response.error(null, e.toError()));
        }
    }

    private static HttpResponse json(int status, Response response) {
        try {
            return HttpResponse.create()
                    .withStatus(status)
                    .withEntity(ContentTypes.APPLICATION_JSON, Json.MAPPER.writeValueAsBytes(response));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            binding.terminate(Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // stopping anyway
        }
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // the JVM is going away
        }
    }

    /** {@code baseline [--host H] [--port P]}: serves until the process is stopped. */
    public static void main(String[] args) throws InterruptedException {
        org.slf4j.LoggerFactory.getILoggerFactory();
        String host = "127.0.0.1";
        int port = 18090;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--host" -> host = args[++i];
                default -> {
                    System.err.println("usage: java -jar parley-load.jar baseline [--host 127.0.0.1] [--port 18090]");
                    System.exit(2);
                }
            }
        }
        long started = System.nanoTime();
        BaselineServer server = start(host, port);
        System.out.printf(
                "Parley baseline (bare pekko-http route, fixed CallToolResult) ready in %d ms: http://%s:%d/mcp%n",
                (System.nanoTime() - started) / 1_000_000, host, server.port());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.close();
                            stopped.countDown();
                        },
                        "baseline-shutdown"));
        stopped.await();
    }
}
