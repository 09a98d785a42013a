package dev.parley.benchmarks.baseline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.NodeConfig;
import dev.parley.actors.internal.EntityIds;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.Response;
import dev.parley.runtime.internal.wire.McpNames;
import dev.parley.runtime.internal.wire.Mrtr;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * {@code tools/list} gets a fixed list naming the demo's {@code check_availability}; a
 * notification gets 202; a call of the fixture's {@code test_simple_text} gets its text, and every
 * other request the demo's availability text.
 *
 * <p>The same floor for an MRTR flow: {@code test_input_required_result_elicitation} asks for a
 * name ({@code input_required}, the call's id as {@code requestState}) and the retry that carries it
 * gets {@code Hello, NAME!}, like the fixture's tool. In memory nothing is kept between the rounds;
 * with a journal ({@link BaselineJournal}) round 1 commits one row and the retry two before they are
 * answered, as many rows as Parley's journal writes for that flow. Call ids are time-ordered, as
 * Parley's are, so that a commit's rows land in index order.
 */
public final class BaselineServer extends AllDirectives implements AutoCloseable {
    private static final long BODY_READ_TIMEOUT_MS = 10_000;
    private static final long MAX_BODY_BYTES = 1024 * 1024;

    private final ActorSystem<Void> system;
    private final Materializer materializer;
    private final ObjectNode callResult;
    private final ObjectNode toolsList;
    private final ObjectNode simpleTextResult;
    private final Map<String, Mrtr.InputRequest> nameQuestion;
    private final BaselineJournal journal;
    private final BaselineEntities entities;
    private ServerBinding binding;

    private BaselineServer(ActorSystem<Void> system, BaselineJournal journal, boolean entities) {
        this.system = system;
        this.journal = journal;
        this.entities = entities ? new BaselineEntities(system) : null;
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
        this.simpleTextResult = textResult("This is a simple text response for testing.");
        this.nameQuestion =
                Map.of("user_name", new Mrtr.InputRequest(McpNames.Methods.ELICITATION_CREATE, Json.parse("""
                {"mode":"form","message":"What is your name?","requestedSchema":{"type":"object",
                 "properties":{"name":{"type":"string"}},"required":["name"]}}""")));
    }

    private static ObjectNode textResult(String text) {
        ObjectNode result = Json.object().put("resultType", "complete");
        result.putArray("content").addObject().put("type", "text").put("text", text);
        return result;
    }

    /** Starts on {@code host:port} (port 0 picks one), in memory; blocks until bound. */
    public static BaselineServer start(String host, int port) {
        return start(host, port, BaselineJournal.Store.H2, null, false);
    }

    /**
     * Starts on {@code host:port} (port 0 picks one); with {@code journalDirectory}, MRTR rounds
     * are committed to a journal on {@code store} there before they are answered; with {@code entities},
     * through an event-sourced actor per call on Parley's default journal (SQLite) there instead.
     * Blocks until bound.
     */
    public static BaselineServer start(
            String host, int port, BaselineJournal.Store store, Path journalDirectory, boolean entities) {
        Config settings = ConfigFactory.parseString("""
        pekko.loglevel = "WARNING"
        pekko.actor.provider = local
        pekko.http.server.request-timeout = 90 seconds
        pekko.http.server.idle-timeout = 120 seconds
        """);
        BaselineJournal journal = null;
        Config config;
        if (entities) {
            // Parley's node configuration (dispatchers, journal plugin, metered journal) on its default store.
            JournalDatabase database = new JournalDatabase.SqliteFile(journalDirectory);
            JournalSchema.create(database);
            config = NodeConfig.load(settings, database);
        } else {
            config = settings.withFallback(ConfigFactory.load());
            try {
                journal = journalDirectory == null ? null : new BaselineJournal(store, journalDirectory);
            } catch (SQLException e) {
                throw new IllegalStateException("could not open the baseline journal: " + e.getMessage(), e);
            }
        }
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "parley-baseline", config);
        BaselineServer server = new BaselineServer(system, journal, entities);
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
                .thenCompose(strict -> answer(strict.getData().toArray()));
    }

    private CompletionStage<HttpResponse> answer(byte[] body) {
        JsonRpc.Message message;
        try {
            message = JsonRpc.parse(body);
        } catch (McpException e) {
            return done(json(400, Response.error(null, JsonRpc.ErrorObject.of(e))));
        }
        if (message.isNotification()) {
            return done(HttpResponse.create().withStatus(StatusCodes.ACCEPTED));
        }
        if (message.method().equals("tools/list")) {
            return done(json(200, Response.result(message.id(), toolsList)));
        }
        String tool = message.method().equals("tools/call")
                ? message.params().path("name").asText()
                : "";
        return switch (tool) {
            case "test_simple_text" -> done(json(200, Response.result(message.id(), simpleTextResult)));
            case "test_input_required_result_elicitation" -> mrtrRound(message);
            default -> done(json(200, Response.result(message.id(), callResult)));
        };
    }

    /** Round 1 asks for a name; the retry (its {@code requestState} is the call's id) greets it. */
    private CompletionStage<HttpResponse> mrtrRound(JsonRpc.Message message) {
        JsonNode name = message.params()
                .path("inputResponses")
                .path("user_name")
                .path("content")
                .path("name");
        if (entities != null) {
            return entityRound(message, name);
        }
        if (name.isMissingNode()) {
            String callId = EntityIds.next();
            return written(callId, 1, List.of(message.params()))
                    .thenApply(written -> json(
                            200, Response.result(message.id(), new Mrtr.InputRequiredResult(nameQuestion, callId))));
        }
        String callId = message.params().path("requestState").asText();
        ObjectNode result = textResult("Hello, " + name.asText() + "!");
        return written(callId, 2, List.of(message.params().path("inputResponses"), result))
                .thenApply(written -> json(200, Response.result(message.id(), result)));
    }

    private CompletionStage<HttpResponse> entityRound(JsonRpc.Message message, JsonNode name) {
        if (name.isMissingNode()) {
            String callId = EntityIds.next();
            return entities.start(callId, message.params().toString())
                    .thenApply(started -> json(
                            200, Response.result(message.id(), new Mrtr.InputRequiredResult(nameQuestion, callId))));
        }
        ObjectNode result = textResult("Hello, " + name.asText() + "!");
        return entities.finish(
                        message.params().path("requestState").asText(),
                        message.params().path("inputResponses").toString(),
                        result.toString())
                .thenApply(finished -> json(200, Response.result(message.id(), result)));
    }

    private CompletionStage<Void> written(String callId, long firstSequenceNr, List<JsonNode> events) {
        if (journal == null) {
            return CompletableFuture.completedFuture(null);
        }
        List<byte[]> payloads = new ArrayList<>(events.size());
        for (JsonNode event : events) {
            payloads.add(event.toString().getBytes(StandardCharsets.UTF_8));
        }
        return journal.append("ToolCall|" + callId, firstSequenceNr, payloads);
    }

    private static CompletionStage<HttpResponse> done(HttpResponse response) {
        return CompletableFuture.completedFuture(response);
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
        if (journal != null) {
            journal.close();
        }
        try {
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // the JVM is going away
        }
    }

    /**
     * {@code baseline [--host H] [--port P] [--journal DIR [--store h2|sqlite | --entities]]}: serves until the
     * process is stopped.
     */
    public static void main(String[] args) throws InterruptedException {
        org.slf4j.LoggerFactory.getILoggerFactory();
        String host = "127.0.0.1";
        int port = 18090;
        Path journalDirectory = null;
        BaselineJournal.Store store = BaselineJournal.Store.H2;
        boolean entities = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--host" -> host = args[++i];
                case "--journal", "--data" -> journalDirectory = Path.of(args[++i]);
                case "--entities" -> entities = true;
                case "--store" -> store = BaselineJournal.Store.valueOf(args[++i].toUpperCase(java.util.Locale.ROOT));
                default -> {
                    System.err.println("usage: java -jar parley-load.jar baseline [--host 127.0.0.1] [--port 18090]"
                            + " [--journal DIR [--store h2|sqlite | --entities]]");
                    System.exit(2);
                }
            }
        }
        if (entities && journalDirectory == null) {
            System.err.println("--entities needs --journal DIR");
            System.exit(2);
        }
        long started = System.nanoTime();
        BaselineServer server = start(host, port, store, journalDirectory, entities);
        System.out.printf(
                "Parley baseline (bare pekko-http route, fixed results, MRTR %s) ready in %d ms: http://%s:%d/mcp%n",
                journalDirectory == null
                        ? "in memory"
                        : entities
                                ? "through an event-sourced actor per call on Parley's journal in " + journalDirectory
                                : "on a " + store + " journal in " + journalDirectory,
                (System.nanoTime() - started) / 1_000_000,
                host,
                server.port());
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
