package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertResult;
import static dev.parley.testing.McpTestClient.accept;
import static dev.parley.testing.McpTestClient.answer;
import static dev.parley.testing.McpTestClient.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prompts, resources and completion over HTTP: lists with cursors and caching hints (spec §7.3,
 * §7.4), {@code prompts/get} and {@code resources/read} of fixed and template URIs (§8), MRTR on
 * both exactly as on {@code tools/call} (§2.2), never on the other methods, and
 * {@code completion/complete} (§7.5). Page size 2: four prompts, three resources and three
 * templates make two pages each.
 */
class McpEndpointPromptsAndResourcesTest {
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

    // --- helpers -----------------------------------------------------------------------------

    private static ObjectNode getPrompt(String name, ObjectNode arguments) {
        ObjectNode params = Json.object().put("name", name);
        if (arguments != null) {
            params.set("arguments", arguments);
        }
        return client.request("prompts/get", params);
    }

    private static ObjectNode read(String uri) {
        return client.request("resources/read", Json.object().put("uri", uri));
    }

    private static ObjectNode completion(ObjectNode ref, String argument, String value, ObjectNode contextArguments) {
        ObjectNode params = Json.object();
        params.set("ref", ref);
        params.putObject("argument").put("name", argument).put("value", value);
        if (contextArguments != null) {
            params.putObject("context").set("arguments", contextArguments);
        }
        return client.request("completion/complete", params);
    }

    private static ObjectNode promptRef(String name) {
        return Json.object().put("type", "ref/prompt").put("name", name);
    }

    private static ObjectNode resourceRef(String uri) {
        return Json.object().put("type", "ref/resource").put("uri", uri);
    }

    /** A complete, cacheable result: {@code ttlMs} a non-negative integer, {@code cacheScope} public or private. */
    private static void assertCacheable(JsonNode result) {
        assertEquals("complete", result.path("resultType").asText(), () -> "resultType of " + result);
        assertTrue(
                result.path("ttlMs").isIntegralNumber() && result.path("ttlMs").asLong() >= 0,
                () -> "ttlMs in " + result);
        assertTrue(
                Set.of("public", "private").contains(result.path("cacheScope").asText()),
                () -> "cacheScope in " + result);
    }

    /** Follows nextCursor through every page of {@code method}; returns the pages' results. */
    private static List<JsonNode> pages(String method, String definition) {
        List<JsonNode> pages = new ArrayList<>();
        String cursor = null;
        do {
            ObjectNode params = Json.object();
            if (cursor != null) {
                params.put("cursor", cursor);
            }
            ObjectNode request = client.request(method, params);
            JsonNode result = assertResult(client.send(request), request, definition);
            assertCacheable(result);
            pages.add(result);
            cursor = result.path("nextCursor").asText(null);
            assertTrue(pages.size() <= 10, "the cursor chain ends");
        } while (cursor != null);
        return pages;
    }

    private static List<String> members(List<JsonNode> pages, String list, String member) {
        List<String> values = new ArrayList<>();
        pages.forEach(page ->
                page.path(list).forEach(item -> values.add(item.path(member).asText())));
        return values;
    }

    private static String flipOneCharacter(String state) {
        int middle = state.length() / 2;
        char replacement = state.charAt(middle) == 'A' ? 'B' : 'A';
        return state.substring(0, middle) + replacement + state.substring(middle + 1);
    }

    private static JsonNode json(String text) {
        return Json.parse(text);
    }

    private static String text(JsonNode promptResult, int message) {
        return promptResult
                .path("messages")
                .path(message)
                .path("content")
                .path("text")
                .asText();
    }

    // --- discovery -----------------------------------------------------------------------------

    @Test
    void discoverDeclaresCompletionsPromptsResourcesAndTools() {
        ObjectNode request = client.request("server/discover", null, "{}");
        JsonNode result = assertResult(client.send(request), request, "DiscoverResult");
        assertCacheable(result);
        JsonNode capabilities = result.path("capabilities");
        for (String capability : List.of("completions", "prompts", "resources", "tools")) {
            assertTrue(capabilities.path(capability).isObject(), () -> capability + " in " + capabilities);
        }
    }

    // --- prompts/list and prompts/get ----------------------------------------------------------

    @Test
    void promptsListPagesThroughEveryPromptWithCachingHintsOnEveryPage() {
        List<JsonNode> pages = pages("prompts/list", "ListPromptsResult");
        assertEquals(2, pages.size(), "two pages of two");
        assertEquals(FeatureTools.PROMPTS, members(pages, "prompts", "name"), "registration order");
        assertEquals(pages.get(0).path("cacheScope"), pages.get(1).path("cacheScope"), "the same scope on every page");
        assertFalse(pages.get(1).has("nextCursor"), "no cursor after the last page");
    }

    @Test
    void promptsListDescribesArgumentsAndWhichAreRequired() {
        JsonNode greeting = pages("prompts/list", "ListPromptsResult")
                .get(0)
                .path("prompts")
                .path(0);
        assertEquals("greeting", greeting.path("name").asText());
        assertEquals("Greeting", greeting.path("title").asText());
        assertEquals("Greets someone in a style.", greeting.path("description").asText());
        assertEquals(json("""
        [{"name":"name","description":"Who to greet","required":true},
         {"name":"style","description":"How to greet"}]"""), greeting.path("arguments"));
    }

    @Test
    void invalidCursorOnPromptsListIsInvalidParams() {
        ObjectNode request = client.request("prompts/list", Json.object().put("cursor", "not-a-cursor"));
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void promptsGetFillsTheArgumentsIntoTheMessages() {
        ObjectNode request =
                getPrompt("greeting", Json.object().put("name", "Ada").put("style", "funny"));
        JsonNode result = assertResult(client.send(request), request, "GetPromptResult");
        assertEquals("complete", result.path("resultType").asText());
        assertEquals("A greeting", result.path("description").asText());
        assertEquals("user", result.path("messages").path(0).path("role").asText());
        assertEquals(
                "text",
                result.path("messages").path(0).path("content").path("type").asText());
        assertEquals("Say hello to Ada in a funny way.", text(result, 0));
    }

    @Test
    void optionalPromptArgumentMayBeLeftOut() {
        ObjectNode request = getPrompt("greeting", Json.object().put("name", "Ada"));
        assertEquals(
                "Say hello to Ada in a plain way.",
                text(assertResult(client.send(request), request, "GetPromptResult"), 0));
    }

    @Test
    void promptsGetWithoutARequiredArgumentIsInvalidParams() {
        ObjectNode request = getPrompt("greeting", Json.object().put("style", "formal"));
        JsonNode error = assertError(client.send(request), 200, -32602, request);
        assertTrue(error.path("message").asText().contains("name"), () -> "names the argument: " + error);
    }

    @Test
    void promptsGetWithoutAnyArgumentsIsInvalidParamsWhenOneIsRequired() {
        ObjectNode request = getPrompt("greeting", null);
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void promptArgumentThatIsNotAStringIsInvalidParams() {
        ObjectNode request = getPrompt("greeting", Json.object().put("name", 7));
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void unknownPromptIsInvalidParams() {
        ObjectNode request = getPrompt("no_such_prompt", Json.object());
        assertError(client.send(request), 200, -32602, request);
    }

    // --- resources ------------------------------------------------------------------------------

    @Test
    void resourcesListPagesThroughTheFixedResourcesOnly() {
        List<JsonNode> pages = pages("resources/list", "ListResourcesResult");
        assertEquals(2, pages.size(), "three resources, two pages");
        assertEquals(FeatureTools.FIXED_RESOURCES, members(pages, "resources", "uri"));
        JsonNode first = pages.get(0).path("resources").path(0);
        assertEquals("fixed-a", first.path("name").asText());
        assertEquals("Fixed A", first.path("title").asText());
        assertEquals("text/plain", first.path("mimeType").asText());
        assertFalse(first.has("uriTemplate"));
    }

    @Test
    void resourceTemplatesListPagesThroughTheTemplatesOnly() {
        List<JsonNode> pages = pages("resources/templates/list", "ListResourceTemplatesResult");
        assertEquals(2, pages.size(), "three templates, two pages");
        assertEquals(FeatureTools.TEMPLATES, members(pages, "resourceTemplates", "uriTemplate"));
        pages.forEach(page -> page.path("resourceTemplates").forEach(template -> assertFalse(template.has("uri"))));
    }

    @Test
    void invalidCursorOnResourcesListIsInvalidParams() {
        ObjectNode request = client.request("resources/list", Json.object().put("cursor", "%%%"));
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void readingAFixedUriReturnsItsContentsWithCachingHints() {
        ObjectNode request = read("test://fixed/b");
        JsonNode result = assertResult(client.send(request), request, "ReadResourceResult");
        assertCacheable(result);
        assertEquals(
                json("[{\"uri\":\"test://fixed/b\",\"mimeType\":\"text/plain\",\"text\":\"contents of b\"}]"),
                result.path("contents"));
    }

    @Test
    void readingATemplateUriPassesTheVariablesToTheHandler() {
        ObjectNode request = read("test://items/42/detail");
        JsonNode result = assertResult(client.send(request), request, "ReadResourceResult");
        assertCacheable(result);
        JsonNode contents = result.path("contents").path(0);
        assertEquals("test://items/42/detail", contents.path("uri").asText());
        assertEquals("application/json", contents.path("mimeType").asText());
        assertEquals(object("{\"id\":\"42\"}"), Json.parse(contents.path("text").asText()));
    }

    @Test
    void readingATemplateWithTwoVariablesBindsBoth() {
        ObjectNode request = read("test://users/ada/files/notes.txt");
        JsonNode result = assertResult(client.send(request), request, "ReadResourceResult");
        assertEquals(
                "file notes.txt of ada",
                result.path("contents").path(0).path("text").asText());
    }

    @Test
    void readingAnUnknownUriIsInvalidParamsNamingTheUri() {
        ObjectNode request = read("test://nowhere/1");
        JsonNode error = assertError(client.send(request), 200, -32602, request);
        assertEquals("test://nowhere/1", error.path("data").path("uri").asText(), () -> "data.uri in " + error);
    }

    @Test
    void aUriThatOnlyAlmostMatchesATemplateIsNotFound() {
        for (String uri : List.of("test://items/42", "test://items/4/2/detail", "test://fixed/z")) {
            ObjectNode request = read(uri);
            JsonNode error = assertError(client.send(request), 200, -32602, request);
            assertEquals(uri, error.path("data").path("uri").asText());
        }
    }

    // --- MRTR on prompts/get and resources/read ----------------------------------------------

    @Test
    void promptThatAsksAnswersInputRequiredThenTheCompletePromptOnRetry() {
        ObjectNode original = getPrompt("confirm_tone", Json.object().put("topic", "storms"));
        JsonNode asked = assertInputRequired(client.send(original), original);
        assertEquals(
                "elicitation/create",
                asked.path("inputRequests").path("tone").path("method").asText());
        assertFalse(asked.has("ttlMs") || asked.has("cacheScope"), "input_required is not cacheable");

        ObjectNode retry = client.retry(
                original,
                asked.path("requestState").asText(),
                accept("tone", Json.object().put("tone", "urgent")));
        JsonNode result = assertResult(client.send(retry), retry, "GetPromptResult");
        assertEquals("complete", result.path("resultType").asText());
        assertEquals("Write about storms in a urgent tone.", text(result, 0));
        assertEquals("assistant", result.path("messages").path(1).path("role").asText());
    }

    @Test
    void declinedPromptQuestionStillCompletesThePrompt() {
        ObjectNode original = getPrompt("confirm_tone", Json.object().put("topic", "tea"));
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        ObjectNode retry = client.retry(original, state, answer("tone", "decline"));
        assertEquals(
                "Write about tea in a neutral tone.",
                text(assertResult(client.send(retry), retry, "GetPromptResult"), 0));
    }

    @Test
    void promptAnswerOutsideTheRequestedSchemaIsInvalidParamsAndTheCallGoesOn() {
        ObjectNode original = getPrompt("confirm_tone", Json.object().put("topic", "rivers"));
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        ObjectNode wrong =
                client.retry(original, state, accept("tone", Json.object().put("tone", "sleepy")));
        assertError(client.send(wrong), 200, -32602, wrong);

        ObjectNode right =
                client.retry(original, state, accept("tone", Json.object().put("tone", "calm")));
        assertEquals(
                "Write about rivers in a calm tone.",
                text(assertResult(client.send(right), right, "GetPromptResult"), 0));
    }

    @Test
    void tamperedPromptStateIsInvalidParams() {
        ObjectNode original = getPrompt("confirm_tone", Json.object().put("topic", "snow"));
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        ObjectNode retry = client.retry(
                original, flipOneCharacter(state), accept("tone", Json.object().put("tone", "calm")));
        assertError(client.send(retry), 200, -32602, retry);
    }

    @Test
    void promptStateIsBoundToThePromptsArguments() {
        ObjectNode original = getPrompt("confirm_tone", Json.object().put("topic", "sand"));
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        ObjectNode other = getPrompt("confirm_tone", Json.object().put("topic", "glass"));
        ObjectNode retry =
                client.retry(other, state, accept("tone", Json.object().put("tone", "calm")));
        assertError(client.send(retry), 200, -32602, retry);
    }

    @Test
    void templateReadThatAsksAnswersInputRequiredThenTheContentsOnRetry() {
        ObjectNode original = read("test://vault/alpha");
        JsonNode asked = assertInputRequired(client.send(original), original);
        JsonNode question = asked.path("inputRequests").path("passphrase");
        assertEquals("elicitation/create", question.path("method").asText());
        assertEquals(
                "Passphrase for alpha?",
                question.path("params").path("message").asText(),
                "the handler saw the template variable");
        assertFalse(asked.has("ttlMs") || asked.has("cacheScope"), "input_required is not cacheable");

        ObjectNode retry = client.retry(
                original,
                asked.path("requestState").asText(),
                accept("passphrase", Json.object().put("passphrase", "open sesame")));
        JsonNode result = assertResult(client.send(retry), retry, "ReadResourceResult");
        assertCacheable(result);
        assertEquals(
                "secret of alpha", result.path("contents").path(0).path("text").asText());
        assertEquals(
                "test://vault/alpha",
                result.path("contents").path(0).path("uri").asText());
    }

    @Test
    void tamperedResourceStateIsInvalidParams() {
        ObjectNode original = read("test://vault/beta");
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        ObjectNode retry = client.retry(
                original,
                flipOneCharacter(state),
                accept("passphrase", Json.object().put("passphrase", "open sesame")));
        assertError(client.send(retry), 200, -32602, retry);
    }

    @Test
    void resourceStateIsBoundToItsUri() {
        ObjectNode original = read("test://vault/gamma");
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        ObjectNode retry = client.retry(
                read("test://vault/delta"),
                state,
                accept("passphrase", Json.object().put("passphrase", "open sesame")));
        assertError(client.send(retry), 200, -32602, retry);
    }

    @Test
    void stateOfAPromptIsRefusedOnAToolCallAndOnAResourceRead() {
        ObjectNode original = getPrompt("confirm_tone", Json.object().put("topic", "wind"));
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();

        ObjectNode onTool =
                client.retry(client.toolCall("count_up", Json.object().put("steps", 1)), state, null);
        assertError(client.send(onTool), 200, -32602, onTool);
        ObjectNode onRead = client.retry(read("test://vault/wind"), state, null);
        assertError(client.send(onRead), 200, -32602, onRead);
    }

    @Test
    void methodsOtherThanToolsCallPromptsGetAndResourcesReadNeverAnswerInputRequired() {
        record Probe(String method, ObjectNode params, String definition) {}
        ObjectNode completionParams = Json.object();
        completionParams.set("ref", promptRef("greeting"));
        completionParams.putObject("argument").put("name", "style").put("value", "");
        List<Probe> probes = List.of(
                new Probe("server/discover", Json.object(), "DiscoverResult"),
                new Probe("tools/list", Json.object(), "ListToolsResult"),
                new Probe("prompts/list", Json.object(), "ListPromptsResult"),
                new Probe("resources/list", Json.object(), "ListResourcesResult"),
                new Probe("resources/templates/list", Json.object(), "ListResourceTemplatesResult"),
                new Probe("completion/complete", completionParams, "CompleteResult"));
        for (Probe probe : probes) {
            // Even a request that carries MRTR members gets a complete result.
            ObjectNode params = probe.params().deepCopy();
            params.set("inputResponses", accept("anything", Json.object()));
            params.put("requestState", "not-a-state");
            for (ObjectNode request :
                    List.of(client.request(probe.method(), probe.params()), client.request(probe.method(), params))) {
                JsonNode result = assertResult(client.send(request), request, probe.definition());
                assertEquals("complete", result.path("resultType").asText(), () -> probe.method() + ": " + result);
                assertFalse(
                        result.has("inputRequests") || result.has("requestState"),
                        () -> probe.method() + ": " + result);
            }
        }
    }

    // --- completion/complete --------------------------------------------------------------------

    @Test
    void completionOfAPromptArgumentFiltersByTheTypedPrefix() {
        ObjectNode request = completion(promptRef("greeting"), "style", "f", null);
        JsonNode completion =
                assertResult(client.send(request), request, "CompleteResult").path("completion");
        assertEquals(json("[\"formal\",\"friendly\",\"funny\"]"), completion.path("values"));
        assertEquals(3, completion.path("total").asInt());
        assertFalse(completion.path("hasMore").asBoolean(true));

        ObjectNode narrower = completion(promptRef("greeting"), "style", "fr", null);
        assertEquals(
                json("[\"friendly\"]"),
                assertResult(client.send(narrower), narrower, "CompleteResult")
                        .path("completion")
                        .path("values"));
    }

    @Test
    void completionSendsAtMostOneHundredValuesAndSaysThereAreMore() {
        ObjectNode request = completion(promptRef("big_choice"), "n", "", null);
        JsonNode completion =
                assertResult(client.send(request), request, "CompleteResult").path("completion");
        assertEquals(100, completion.path("values").size());
        assertEquals("1", completion.path("values").path(0).asText());
        assertEquals(150, completion.path("total").asInt());
        assertTrue(completion.path("hasMore").asBoolean());
    }

    @Test
    void completionSeesTheOtherArgumentsOfItsContext() {
        ObjectNode request =
                completion(promptRef("route"), "to", "B", Json.object().put("from", "Berlin"));
        JsonNode completion =
                assertResult(client.send(request), request, "CompleteResult").path("completion");
        assertEquals(json("[\"Bern\",\"Bordeaux\"]"), completion.path("values"));

        ObjectNode withoutContext = completion(promptRef("route"), "to", "B", null);
        assertEquals(
                3,
                assertResult(client.send(withoutContext), withoutContext, "CompleteResult")
                        .path("completion")
                        .path("values")
                        .size());
    }

    @Test
    void completionOfAResourceTemplateVariable() {
        ObjectNode request = completion(resourceRef("test://items/{id}/detail"), "id", "4", null);
        JsonNode completion =
                assertResult(client.send(request), request, "CompleteResult").path("completion");
        assertEquals(json("[\"41\",\"42\",\"43\"]"), completion.path("values"));
        assertEquals(3, completion.path("total").asInt());
        assertFalse(completion.path("hasMore").asBoolean(true));
    }

    @Test
    void completionOfAnArgumentWithoutSuggestionsIsEmpty() {
        ObjectNode request = completion(promptRef("greeting"), "name", "A", null);
        JsonNode completion =
                assertResult(client.send(request), request, "CompleteResult").path("completion");
        assertEquals(0, completion.path("values").size());
    }

    @Test
    void completionOfAnUnknownPromptIsInvalidParams() {
        ObjectNode request = completion(promptRef("no_such_prompt"), "x", "", null);
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void completionOfAnUnknownTemplateIsInvalidParams() {
        ObjectNode request = completion(resourceRef("test://nothing/{x}"), "x", "", null);
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void completionWithAnUnknownReferenceTypeIsInvalidParams() {
        ObjectNode request =
                completion(Json.object().put("type", "ref/tool").put("name", "count_up"), "steps", "", null);
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void everyRetryOfAnEndedPromptGetsTheSameResult() {
        ObjectNode original = getPrompt("confirm_tone", Json.object().put("topic", "clouds"));
        String state = assertInputRequired(client.send(original), original)
                .path("requestState")
                .asText();
        Set<JsonNode> results = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            ObjectNode retry =
                    client.retry(original, state, accept("tone", Json.object().put("tone", "calm")));
            results.add(assertResult(client.send(retry), retry, "GetPromptResult"));
        }
        assertEquals(1, results.size(), () -> "one recorded outcome: " + results);
    }
}
