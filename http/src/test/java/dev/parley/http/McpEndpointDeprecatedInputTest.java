package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static dev.parley.testing.McpTestClient.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deprecated sampling and roots input requests (spec §2.1, §2.3, §11) over HTTP: asked in an
 * {@code input_required} round only of a client that declared {@code sampling} / {@code roots}
 * in this request, answered on the retry, refused with -32602 when malformed.
 */
class McpEndpointDeprecatedInputTest {
    private static final String SAMPLING = "{\"sampling\":{}}";
    private static final String ROOTS = "{\"roots\":{}}";
    private static final String EVERYTHING = "{\"elicitation\":{},\"sampling\":{},\"roots\":{}}";

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;

    @BeforeAll
    static void start() {
        server = FeatureTools.start(new FeatureTools(), data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ObjectNode summarize(String capabilities) {
        return client.toolCall("summarize", Json.object().put("text", "a long story"), capabilities);
    }

    /** A {@code CreateMessageResult} under {@code key}. */
    private static ObjectNode sampled(String key, String text, String model) {
        ObjectNode responses = Json.object();
        ObjectNode result = responses.putObject(key).put("role", "assistant").put("model", model);
        result.putObject("content").put("type", "text").put("text", text);
        return responses;
    }

    private static ObjectNode roots(String key, String... uris) {
        ObjectNode responses = Json.object();
        var list = responses.putObject(key).putArray("roots");
        for (String uri : uris) {
            list.addObject().put("uri", uri).put("name", "root");
        }
        return responses;
    }

    private static List<String> methodsAsked(JsonNode inputRequired) {
        List<String> methods = new ArrayList<>();
        inputRequired
                .path("inputRequests")
                .forEach(request -> methods.add(request.path("method").asText()));
        return methods;
    }

    // --- sampling ----------------------------------------------------------------------------

    @Test
    void samplingIsAskedOfAClientThatDeclaredSamplingAndAnsweredOnTheRetry() {
        ObjectNode original = summarize(SAMPLING);
        JsonNode asked = assertInputRequired(client.send(original), original);
        JsonNode question = asked.path("inputRequests").path("summary");
        assertEquals("sampling/createMessage", question.path("method").asText());
        assertEquals(
                "Summarize: a long story",
                question.path("params")
                        .path("messages")
                        .path(0)
                        .path("content")
                        .path("text")
                        .asText());
        assertEquals(50, question.path("params").path("maxTokens").asInt());
        assertTrue(!question.has("jsonrpc") && !question.has("id"), "an input request is not a JSON-RPC request");

        ObjectNode retry =
                client.retry(original, asked.path("requestState").asText(), sampled("summary", "short", "model-1"));
        JsonNode result = assertCompleted(client.send(retry), retry);
        assertEquals(
                "summary: short (by model-1)",
                result.path("content").path(0).path("text").asText());
    }

    @Test
    void samplingOfAClientThatDidNotDeclareItIsMissingRequiredClientCapability() {
        ObjectNode request = summarize(McpTestClient.ALL_ELICITATION);
        JsonNode error = assertError(client.send(request), 400, -32021, request);
        assertTrue(
                error.path("data").path("requiredCapabilities").path("sampling").isObject(),
                () -> "names sampling: " + error);
    }

    @Test
    void malformedSamplingAnswerIsInvalidParamsAndTheSameStateStillWorks() {
        ObjectNode original = summarize(SAMPLING);
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();

        ObjectNode noModel = Json.object();
        noModel.putObject("summary")
                .put("role", "assistant")
                .putObject("content")
                .put("type", "text")
                .put("text", "x");
        ObjectNode bad = client.retry(original, state, noModel);
        JsonNode error = assertError(client.send(bad), 200, -32602, bad);
        assertTrue(error.path("message").asText().contains("summary"), () -> "names the key: " + error);

        ObjectNode notAnObject = client.retry(original, state, object("{\"summary\":\"just text\"}"));
        assertError(client.send(notAnObject), 200, -32602, notAnObject);

        ObjectNode good = client.retry(original, state, sampled("summary", "fine", "model-2"));
        assertEquals(
                "summary: fine (by model-2)",
                assertCompleted(client.send(good), good)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText());
    }

    @Test
    void retryThatNoLongerDeclaresSamplingStillUsesTheSamplingAnswerItCarries() {
        ObjectNode original = summarize(SAMPLING);
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        // The answer is there, so the handler need not ask again: the retry completes even though
        // this request declares no sampling (the capability gates asking, not answers).
        ObjectNode retry = client.retry(summarize("{}"), state, sampled("summary", "kept", "model-3"));
        assertEquals(
                "summary: kept (by model-3)",
                assertCompleted(client.send(retry), retry)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText());
    }

    // --- roots -------------------------------------------------------------------------------

    @Test
    void rootsAreAskedOfAClientThatDeclaredRootsAndAnsweredOnTheRetry() {
        ObjectNode original = client.toolCall("where_am_i", Json.object(), ROOTS);
        JsonNode asked = assertInputRequired(client.send(original), original);
        assertEquals(
                "roots/list",
                asked.path("inputRequests").path("roots").path("method").asText());

        ObjectNode retry = client.retry(
                original, asked.path("requestState").asText(), roots("roots", "file:///home/ada", "file:///srv/data"));
        assertEquals(
                "roots: file:///home/ada, file:///srv/data",
                assertCompleted(client.send(retry), retry)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText());
    }

    @Test
    void rootsOfAClientThatDidNotDeclareThemIsMissingRequiredClientCapability() {
        ObjectNode request = client.toolCall("where_am_i", Json.object(), SAMPLING);
        JsonNode error = assertError(client.send(request), 400, -32021, request);
        assertTrue(
                error.path("data").path("requiredCapabilities").path("roots").isObject(),
                () -> "names roots: " + error);
    }

    @Test
    void malformedRootsAnswerIsInvalidParams() {
        ObjectNode original = client.toolCall("where_am_i", Json.object(), ROOTS);
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        ObjectNode retry = client.retry(original, state, object("{\"roots\":{\"roots\":[{\"name\":\"no uri\"}]}}"));
        assertError(client.send(retry), 200, -32602, retry);
    }

    // --- several kinds in one round (askAll) --------------------------------------------------

    @Test
    void oneRoundAsksForSamplingAndRootsOnlyWhenTheClientDeclaredThem() {
        ObjectNode formOnly = client.toolCall("research", Json.object(), McpTestClient.FORM_ONLY);
        assertEquals(List.of("elicitation/create"), methodsAsked(assertInputRequired(client.send(formOnly), formOnly)));

        ObjectNode withSampling = client.toolCall("research", Json.object(), "{\"elicitation\":{},\"sampling\":{}}");
        assertEquals(
                List.of("elicitation/create", "sampling/createMessage"),
                methodsAsked(assertInputRequired(client.send(withSampling), withSampling)));

        ObjectNode everything = client.toolCall("research", Json.object(), EVERYTHING);
        assertEquals(
                List.of("elicitation/create", "sampling/createMessage", "roots/list"),
                methodsAsked(assertInputRequired(client.send(everything), everything)));
    }

    @Test
    void answersToEveryKindOfQuestionInOneRetryCompleteTheCall() {
        ObjectNode original = client.toolCall("research", Json.object(), EVERYTHING);
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();

        ObjectNode answers = accept("topic", Json.object().put("topic", "tides"));
        answers.setAll(sampled("draft", "an outline", "model-4"));
        answers.setAll(roots("workspace", "file:///work"));
        ObjectNode retry = client.retry(original, state, answers);
        assertEquals(
                "topic=tides draft=an outline roots=1",
                assertCompleted(client.send(retry), retry)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText());
    }

    @Test
    void partialAnswersGetTheSameQuestionsAskedAgainUntilAllAreAnswered() {
        ObjectNode original = client.toolCall("research", Json.object(), EVERYTHING);
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();

        ObjectNode onlyTopic =
                client.retry(original, state, accept("topic", Json.object().put("topic", "moons")));
        JsonNode again = assertInputRequired(client.send(onlyTopic), onlyTopic);
        assertTrue(
                methodsAsked(again).containsAll(List.of("sampling/createMessage", "roots/list")),
                () -> "the unanswered questions are asked again: " + again);

        ObjectNode rest = sampled("draft", "notes", "model-5");
        rest.setAll(roots("workspace", "file:///a", "file:///b"));
        ObjectNode finish = client.retry(original, again.path("requestState").asText(), rest);
        assertEquals(
                "topic=moons draft=notes roots=2",
                assertCompleted(client.send(finish), finish)
                        .path("content")
                        .path(0)
                        .path("text")
                        .asText());
    }
}
