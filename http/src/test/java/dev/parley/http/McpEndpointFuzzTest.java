package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generated hostile traffic against a real server over HTTP: every method, mutated bodies
 * (members dropped, values swapped for other types, invalid Unicode, non-finite numbers, deep
 * nesting, truncated or garbled bytes), mutated headers and mutated {@code requestState}s;
 * 2025-11-25 session messages too ({@code initialize}, requests on a session, answers to a
 * server→client request, mutated {@code Mcp-Session-Id} values).
 * Every reply is checked: no 5xx, a well-formed JSON-RPC answer whose id is the request's (or
 * null when the request had none readable), nothing journaled for a refused request, and the
 * server answers a normal call afterwards.
 *
 * <p>Seeded: {@code -Dparley.fuzz.seed=N} repeats a run, {@code -Dparley.fuzz.tries=N} (default
 * 2000) sets its size; a run also stops after {@code -Dparley.fuzz.seconds} (default 40).
 */
class McpEndpointFuzzTest {
    private static final long SEED = Long.getLong("parley.fuzz.seed", System.nanoTime());
    private static final int TRIES = Integer.getInteger("parley.fuzz.tries", 2000);
    private static final long SECONDS = Long.getLong("parley.fuzz.seconds", 40);
    private static final Duration REPLY_LIMIT = Duration.ofSeconds(20);

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final TestTools tools = new TestTools();

    @BeforeAll
    static void start() {
        // Thousands of generated calls from one client: its per-principal caps are not what is fuzzed here.
        // The journal's rows are counted around each request: every first round is written before its answer.
        server = TestTools.start(
                tools, data, "parley.quotas.per-principal.waiting-calls = 0\nparley.first-round-behind-reply = off");
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (waitingStream != null) {
            waitingStream.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** One generated request: its body bytes, its headers, and whether it must be refused. */
    private record Attempt(String what, byte[] body, Map<String, String> headers, boolean mustBeRefused) {}

    /** A message to mutate and its headers (null: the standard 2026-07-28 headers of the message). */
    private record Base(ObjectNode message, Map<String, String> headers) {}

    /** Keeps a 2025-11-25 call waiting, so that answers to its question can be fuzzed. */
    private static SseConnection waitingStream;

    @Test
    void generatedMalformedAndMutatedRequestsAreAnsweredWellAndRefusedOnesPersistNothing() {
        Random random = new Random(SEED);
        List<Base> bases = bases();
        Map<String, Integer> statuses = new TreeMap<>();
        Map<String, Integer> codes = new TreeMap<>();
        List<String> findings = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        int tries = 0;
        for (; tries < TRIES && System.nanoTime() < deadline; tries++) {
            Base base = bases.get(random.nextInt(bases.size()));
            Attempt attempt = mutate(base.message().deepCopy(), base.headers(), random);
            long journaledBefore = JournalRows.count(data);
            Answer answer = send(attempt);
            statuses.merge(Integer.toString(answer.status), 1, Integer::sum);
            String problem = check(attempt, answer);
            if (problem == null && answer.refused() && JournalRows.count(data) != journaledBefore) {
                problem = "a refused request journaled something";
            }
            if (answer.code != null) {
                codes.merge(answer.code.toString(), 1, Integer::sum);
            }
            if (problem != null) {
                findings.add(problem + " [" + attempt.what() + "] status " + answer.status + " body "
                        + abbreviate(answer.body) + " request "
                        + abbreviate(new String(attempt.body(), StandardCharsets.UTF_8)));
            }
        }
        System.out.printf(
                "fuzz: seed %d, %d tries, statuses %s, JSON-RPC error codes %s, %d findings%n",
                SEED, tries, statuses, codes, findings.size());
        assertEquals(List.of(), findings.subList(0, Math.min(20, findings.size())), "seed " + SEED);
        assertTrue(tries >= Math.min(TRIES, 500), () -> "the run got going (seed " + SEED + ")");

        // The server is alive and works normally afterwards.
        ObjectNode greet = client.toolCall("greet", Json.object().put("greeting", "Still here"));
        Reply first = client.send(greet);
        assertInputRequired(first, greet);
        ObjectNode retry = client.retry(
                greet,
                first.requestState(),
                McpTestClient.accept("who", Json.object().put("name", "Eve").put("age", 30)));
        assertTrue(assertCompleted(client.send(retry), retry).toString().contains("Still here, Eve (30)!"));
    }

    // --- what is sent ---------------------------------------------------------------------------

    /**
     * A valid request of every method, retries of real calls waiting for answers, and 2025-11-25
     * session messages: {@code initialize}, requests on a real session, and answers to a real
     * server→client request.
     */
    private static List<Base> bases() {
        List<ObjectNode> bases = new ArrayList<>();
        bases.add(client.request("server/discover", null));
        bases.add(client.request("tools/list", null));
        bases.add(client.request("tools/list", McpTestClient.object("{\"cursor\":\"offset:2\"}")));
        bases.add(client.request("prompts/list", null));
        bases.add(client.request("resources/list", null));
        bases.add(client.request("resources/templates/list", null));
        bases.add(
                client.request(
                        "completion/complete",
                        McpTestClient.object(
                                "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"p\"},\"argument\":{\"name\":\"a\",\"value\":\"b\"}}")));
        bases.add(client.toolCall("echo", Json.object().put("text", "hello")));
        bases.add(client.toolCall("greet", Json.object().put("greeting", "Hi")));
        bases.add(client.toolCall("plan_trip", Json.object().put("travellers", 2)));
        bases.add(client.toolCall("pay_online", Json.object().put("cents", 100)));
        bases.add(client.toolCall("noop", Json.object()));
        bases.add(client.request("prompts/get", McpTestClient.object("{\"name\":\"p\",\"arguments\":{}}")));
        bases.add(client.request("resources/read", McpTestClient.object("{\"uri\":\"test://r\"}")));
        bases.add(client.taskRequest("tasks/get", "t-1"));
        bases.add(client.taskUpdate("t-1", McpTestClient.answer("q", "decline")));
        bases.add(client.taskRequest("tasks/cancel", "t-1"));
        bases.add(client.request("subscriptions/listen", null));
        for (int i = 0; i < 3; i++) {
            ObjectNode trip = client.toolCall("plan_trip", Json.object().put("travellers", 1 + i));
            Reply asked = client.send(trip);
            assertInputRequired(asked, trip);
            bases.add(client.retry(
                    trip,
                    asked.requestState(),
                    McpTestClient.accept("destination", Json.object().put("city", "Oslo"))));
            ObjectNode greet = client.toolCall("greet", Json.object().put("greeting", "Hey " + i));
            Reply greeted = client.send(greet);
            assertInputRequired(greeted, greet);
            bases.add(client.retry(
                    greet,
                    greeted.requestState(),
                    McpTestClient.accept("who", Json.object().put("name", "Ann").put("age", 40))));
        }
        List<Base> all = new ArrayList<>(
                bases.stream().map(message -> new Base(message, null)).toList());
        all.addAll(sessionBases());
        return all;
    }

    /** 2025-11-25: initialize, a session's requests (none that asks), and answers to a waiting call's question. */
    private static List<Base> sessionBases() {
        List<Base> bases = new ArrayList<>();
        Map<String, String> plain = new java.util.LinkedHashMap<>();
        plain.put("Content-Type", "application/json");
        plain.put("Accept", "application/json, text/event-stream");
        ObjectNode initialize =
                McpTestClient.object("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                        + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
                        + "\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}");
        bases.add(new Base(initialize, plain));
        String session = client.post(Json.write(initialize), plain)
                .headers()
                .firstValue("mcp-session-id")
                .orElseThrow();
        Map<String, String> onSession = new java.util.LinkedHashMap<>(plain);
        onSession.put("Accept", "application/json");
        onSession.put("Mcp-Session-Id", session);
        onSession.put("MCP-Protocol-Version", "2025-11-25");
        for (String message : List.of(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")) {
            bases.add(new Base(McpTestClient.object(message), onSession));
        }
        Map<String, String> streaming = new java.util.LinkedHashMap<>(onSession);
        streaming.put("Accept", "application/json, text/event-stream");
        waitingStream = SseConnection.open(
                server.port(),
                McpTestClient.object(
                        "{\"jsonrpc\":\"2.0\",\"id\":6,"
                                + "\"method\":\"tools/call\",\"params\":{\"name\":\"greet\",\"arguments\":{\"greeting\":\"Hi\"}}}"),
                streaming);
        JsonNode question = waitingStream.nextMessage();
        ObjectNode answer = Json.object().put("jsonrpc", "2.0");
        answer.set("id", question.path("id"));
        answer.set("result", McpTestClient.object("{\"action\":\"accept\",\"content\":{\"name\":\"Ann\",\"age\":40}}"));
        bases.add(new Base(answer, onSession));
        return bases;
    }

    private static Attempt mutate(ObjectNode request, Map<String, String> baseHeaders, Random random) {
        List<String> what = new ArrayList<>();
        boolean mustBeRefused = false;
        String hostileText = null;
        int treeMutations = random.nextInt(3);
        for (int i = 0; i < treeMutations; i++) {
            what.add(mutateTree(request, random));
        }
        if (random.nextInt(4) == 0 && request.path("params").has("requestState")) {
            ((ObjectNode) request.get("params"))
                    .put(
                            "requestState",
                            mutateState(
                                    request.path("params").path("requestState").asText(), random));
            what.add("requestState");
        }
        Map<String, String> headers = baseHeaders != null
                ? new java.util.LinkedHashMap<>(baseHeaders)
                : McpTestClient.standardHeaders(request);
        String text = Json.write(request);
        switch (random.nextInt(6)) {
            case 0 -> {
                // A value JSON allows and MCP refuses, somewhere in the tree.
                String[] hostile = {"\"\\ud800\"", "\"x\\udfff\"", "1e309", "-1e400", "1" + "0".repeat(320)};
                hostileText = hostile[random.nextInt(hostile.length)];
                String placed = placeHostile(request, random, hostileText);
                if (placed != null) {
                    text = placed;
                    mustBeRefused = true;
                    what.add("hostile " + hostileText.substring(0, Math.min(12, hostileText.length())));
                }
            }
            case 1 -> {
                text = mutateText(text, random);
                what.add("text");
            }
            default -> {}
        }
        if (random.nextInt(3) == 0) {
            what.add(mutateHeaders(headers, random));
        }
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(25) == 0) {
            body = garble(body, random);
            what.add("bytes");
        }
        return new Attempt(String.join(", ", what), body, headers, mustBeRefused);
    }

    private static final String[] KEYS = {
        "name",
        "arguments",
        "requestState",
        "inputResponses",
        "cursor",
        "_meta",
        "uri",
        "taskId",
        "ref",
        "argument",
        "id",
        "method",
        "jsonrpc",
        "params"
    };

    /** Removes, replaces or adds one member somewhere in the request. */
    private static String mutateTree(ObjectNode request, Random random) {
        List<ObjectNode> objects = new ArrayList<>();
        collectObjects(request, objects);
        ObjectNode target = objects.get(random.nextInt(objects.size()));
        List<String> names = new ArrayList<>();
        target.fieldNames().forEachRemaining(names::add);
        switch (random.nextInt(3)) {
            case 0 -> {
                if (!names.isEmpty()) {
                    String name = names.get(random.nextInt(names.size()));
                    target.remove(name);
                    return "drop " + name;
                }
                return "none";
            }
            case 1 -> {
                if (!names.isEmpty()) {
                    String name = names.get(random.nextInt(names.size()));
                    target.set(name, randomValue(random, 0));
                    return "replace " + name;
                }
                return "none";
            }
            default -> {
                String name = KEYS[random.nextInt(KEYS.length)];
                target.set(name, randomValue(random, 0));
                return "add " + name;
            }
        }
    }

    private static void collectObjects(JsonNode node, List<ObjectNode> into) {
        if (node instanceof ObjectNode object) {
            into.add(object);
        }
        node.elements().forEachRemaining(child -> collectObjects(child, into));
    }

    private static JsonNode randomValue(Random random, int depth) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        return switch (random.nextInt(depth > 3 ? 9 : 12)) {
            case 0 -> f.nullNode();
            case 1 -> f.booleanNode(random.nextBoolean());
            case 2 -> f.numberNode(random.nextInt());
            case 3 -> f.numberNode(random.nextLong());
            case 4 -> f.numberNode(random.nextDouble() * Math.pow(10, random.nextInt(300)));
            case 5 -> f.textNode("");
            case 6 -> f.textNode(randomText(random, 1 + random.nextInt(40)));
            case 7 -> f.textNode(Base64.getEncoder().encodeToString(randomBytes(random, random.nextInt(120))));
            case 8 -> f.numberNode(new java.math.BigInteger(200, random));
            case 9 -> {
                ObjectNode object = f.objectNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    object.set(KEYS[random.nextInt(KEYS.length)], randomValue(random, depth + 1));
                }
                yield object;
            }
            case 10 -> {
                ArrayNode array = f.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    array.add(randomValue(random, depth + 1));
                }
                yield array;
            }
            default -> {
                // deep nesting
                JsonNode nested = f.textNode("bottom");
                for (int i = random.nextInt(120); i > 0; i--) {
                    nested = random.nextBoolean()
                            ? f.arrayNode().add(nested)
                            : f.objectNode().set("n", nested);
                }
                yield nested;
            }
        };
    }

    /** Valid Unicode with quotes, escapes, controls, line separators and pairs (hostile values come elsewhere). */
    private static String randomText(Random random, int length) {
        StringBuilder text = new StringBuilder();
        String alphabet = "aZ09 -_/.:?#%&=+\"\\'<>{}[]\n\r\t\u00e9\u4e2d\u2028\u0000\u007f";
        for (int i = 0; i < length; i++) {
            if (random.nextInt(10) == 0) {
                text.appendCodePoint(0x1F600 + random.nextInt(50));
            } else {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
        }
        return text.toString();
    }

    private static byte[] randomBytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /** Puts {@code hostile} (JSON text) in place of a random string or number of the request, in its text. */
    private static String placeHostile(ObjectNode request, Random random, String hostile) {
        List<ObjectNode> objects = new ArrayList<>();
        collectObjects(request, objects);
        ObjectNode target = objects.get(random.nextInt(objects.size()));
        String marker = "@@hostile-" + random.nextInt(1_000_000) + "@@";
        target.put(random.nextBoolean() ? "vendor/x" : firstName(target, random), marker);
        return Json.write(request).replace("\"" + marker + "\"", hostile);
    }

    private static String firstName(ObjectNode target, Random random) {
        Iterator<String> names = target.fieldNames();
        List<String> all = new ArrayList<>();
        names.forEachRemaining(all::add);
        return all.isEmpty() ? "x" : all.get(random.nextInt(all.size()));
    }

    private static String mutateState(String state, Random random) {
        if (state.isEmpty()) {
            return "AQ";
        }
        return switch (random.nextInt(6)) {
            case 0 -> state.substring(0, random.nextInt(state.length()));
            case 1 -> state + "A";
            case 2 -> {
                char[] chars = state.toCharArray();
                int at = random.nextInt(chars.length);
                chars[at] = chars[at] == 'A' ? 'B' : 'A';
                yield new String(chars);
            }
            case 3 ->
                Base64.getUrlEncoder().withoutPadding().encodeToString(randomBytes(random, 10 + random.nextInt(200)));
            case 4 -> "";
            default -> new StringBuilder(state).reverse().toString();
        };
    }

    private static String mutateText(String text, Random random) {
        int at = random.nextInt(text.length() + 1);
        return switch (random.nextInt(6)) {
            case 0 -> text.substring(0, at);
            case 1 -> text.substring(0, at) + "}" + text.substring(at);
            case 2 -> text.substring(0, at) + "\"" + text.substring(at);
            case 3 -> "[" + text + "]";
            case 4 -> text + text;
            default -> text.substring(0, at) + randomText(random, 3) + text.substring(at);
        };
    }

    private static byte[] garble(byte[] body, Random random) {
        byte[] garbled = body.clone();
        for (int i = 1 + random.nextInt(4); i > 0 && garbled.length > 0; i--) {
            garbled[random.nextInt(garbled.length)] = (byte) (0x80 + random.nextInt(0x80));
        }
        return garbled;
    }

    private static String mutateHeaders(Map<String, String> headers, Random random) {
        String[] names = {
            "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Content-Type", "Accept", "Origin", "Mcp-Session-Id"
        };
        String name = names[random.nextInt(headers.containsKey("Mcp-Session-Id") ? names.length : names.length - 1)];
        String value = switch (random.nextInt(7)) {
            case 0 -> null;
            case 1 -> "";
            case 2 -> "2025-06-18";
            case 3 -> "=?base64?" + Base64.getEncoder().encodeToString(randomBytes(random, random.nextInt(30))) + "?=";
            case 4 -> "=?base64?not base64!?=";
            case 5 -> name.equals("Origin") ? "http://evil.example" : "text/plain";
            default ->
                randomText(random, 1 + random.nextInt(20)).replaceAll("[\\r\\n\\u0000-\\u001f\\u007f-\\uffff]", "_");
        };
        headers.put(name, value);
        return "header " + name;
    }

    // --- what comes back ------------------------------------------------------------------------

    private record Answer(int status, String contentType, String body, JsonNode json, Integer code) {
        boolean refused() {
            return status >= 400 || json != null && json.has("error");
        }
    }

    private static Answer send(Attempt attempt) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/mcp"))
                .timeout(REPLY_LIMIT)
                .POST(HttpRequest.BodyPublishers.ofByteArray(attempt.body()));
        attempt.headers().forEach((name, value) -> {
            if (value != null) {
                try {
                    request.header(name, value);
                } catch (IllegalArgumentException notSendable) {
                    // a header value the JDK client refuses to send: leave it out
                }
            }
        });
        try {
            HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            String contentType = response.headers().firstValue("content-type").orElse("");
            String body;
            try (InputStream in = response.body()) {
                body = contentType.startsWith("text/event-stream")
                        ? firstEvent(in)
                        : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            JsonNode json = null;
            Integer code = null;
            if (contentType.startsWith("application/json") && !body.isEmpty()) {
                try {
                    json = Json.MAPPER.readTree(body);
                    code = json.path("error").has("code")
                            ? json.path("error").path("code").asInt()
                            : null;
                } catch (Exception notJson) {
                    json = null;
                }
            }
            return new Answer(response.statusCode(), contentType, body, json, code);
        } catch (Exception e) {
            return new Answer(-1, "", e.toString(), null, null);
        }
    }

    /** The first event of a stream (a listen stream stays open and quiet): what arrives within 150 ms. */
    private static String firstEvent(InputStream in) {
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
            StringBuilder text = new StringBuilder();
            try {
                for (int b = in.read(); b >= 0; b = in.read()) {
                    text.append((char) b);
                    if (text.toString().endsWith("\n\n") && text.toString().contains("data:")) {
                        break;
                    }
                }
            } catch (Exception closed) {
                // closed below
            }
            return text.toString();
        });
        try {
            return first.get(150, TimeUnit.MILLISECONDS);
        } catch (Exception quiet) {
            return "";
        }
    }

    /** Null when the answer is right for the attempt, else what is wrong. */
    private static String check(Attempt attempt, Answer answer) {
        if (answer.status < 0) {
            return "no answer (" + answer.body + ")";
        }
        if (answer.status >= 500) {
            return "a 5xx";
        }
        if (answer.status == 202 || answer.status == 405) {
            return null;
        }
        if (answer.contentType.startsWith("text/event-stream")) {
            return answer.status == 200 ? null : "an event stream with status " + answer.status;
        }
        if (answer.json == null) {
            return answer.body.isEmpty() && answer.status >= 400 ? null : "not a JSON answer";
        }
        JsonNode json = answer.json;
        if (!"2.0".equals(json.path("jsonrpc").asText()) || json.has("result") == json.has("error")) {
            return "not a JSON-RPC response";
        }
        if (json.has("error")
                && (!json.path("error").path("code").isInt()
                        || !json.path("error").path("message").isTextual())) {
            return "a malformed error object";
        }
        if (answer.code != null && answer.code == -32603) {
            return "an internal error";
        }
        JsonNode sentId = readableId(attempt.body());
        JsonNode gotId = json.get("id");
        boolean gotNone = gotId == null || gotId.isNull();
        if (sentId != null
                ? !gotNone && !Json.write(sentId).equals(Json.write(gotId)) || gotNone && answer.status == 200
                : !gotNone) {
            return "the wrong id (sent " + sentId + ", got " + gotId + ")";
        }
        if (attempt.mustBeRefused() && !answer.refused()) {
            return "a hostile value was accepted";
        }
        return null;
    }

    /** The request's id when its body is one JSON object with a valid id. */
    private static JsonNode readableId(byte[] body) {
        try {
            JsonNode root = Json.MAPPER.readTree(body);
            JsonNode id = root == null ? null : root.get("id");
            return id != null && (id.isIntegralNumber() || id.isTextual()) ? id : null;
        } catch (Exception e) {
            return null;
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 300 ? text : text.substring(0, 300) + "...";
    }
}
