package dev.parley.http;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertError;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertResult;
import static dev.parley.testing.McpTestClient.accept;
import static dev.parley.testing.McpTestClient.answer;
import static dev.parley.testing.McpTestClient.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tools/call} over HTTP: one round, several rounds (MRTR), and every refused retry. */
class McpEndpointToolCallTest {
    @TempDir
    static Path data;

    static TestTools tools;
    static McpHttpServer server;
    static McpTestClient client;

    @BeforeAll
    static void start() {
        startWith(new TestTools());
    }

    static void startWith(TestTools declared) {
        tools = declared;
        server = TestTools.start(tools, data);
        client = new McpTestClient(server.port());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ObjectNode greet(String greeting) {
        return client.toolCall("greet", Json.object().put("greeting", greeting));
    }

    private static ObjectNode who(String name, int age) {
        return accept("who", Json.object().put("name", name).put("age", age));
    }

    /** Sends {@code request}, expects {@code input_required}, returns its requestState. */
    private static String firstRound(ObjectNode request) {
        return assertInputRequired(client.send(request), request)
                .get("requestState")
                .asText();
    }

    private static String flipOneCharacter(String state) {
        int middle = state.length() / 2;
        char replacement = state.charAt(middle) == 'A' ? 'B' : 'A';
        return state.substring(0, middle) + replacement + state.substring(middle + 1);
    }

    // --- one round --------------------------------------------------------------------------

    @Test
    void oneRoundCallCompletesWithoutRequestState() {
        ObjectNode request = client.toolCall("echo", Json.object().put("text", "hello"));
        JsonNode result = assertCompleted(client.send(request), request);
        assertEquals("echo: hello", result.path("content").path(0).path("text").asText());
        assertEquals("text", result.path("content").path(0).path("type").asText());
        assertFalse(result.has("requestState"));
    }

    @Test
    void unknownToolIsInvalidParams() {
        ObjectNode request = client.toolCall("no_such_tool", Json.object());
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void argumentsThatAreNotAnObjectAreInvalidParams() {
        ObjectNode request = client.toolCall("echo", Json.object());
        ((ObjectNode) request.get("params")).putArray("arguments").add("text");
        assertError(client.send(request), 200, -32602, request);
    }

    @Test
    void argumentsThatBreakTheInputSchemaGiveAnErrorResult() {
        for (String arguments : List.of("{\"text\":42}", "{}", "{\"text\":[\"a\"]}")) {
            ObjectNode request = client.toolCall("echo", object(arguments));
            JsonNode result = assertResult(client.send(request), request, "CallToolResult");
            assertTrue(result.path("isError").asBoolean(), () -> arguments + " gives an isError result: " + result);
            assertEquals("complete", result.path("resultType").asText());
        }
    }

    // --- several rounds ---------------------------------------------------------------------

    @Test
    void callThatAsksCompletesWhenTheRetryCarriesTheAnswer() {
        int before = tools.greetings.get();
        ObjectNode request = greet("Hello");
        JsonNode asked = assertInputRequired(client.send(request), request);
        JsonNode question = asked.path("inputRequests").path("who");
        assertEquals("elicitation/create", question.path("method").asText());
        assertEquals("form", question.path("params").path("mode").asText("form"));
        assertEquals("Who are you?", question.path("params").path("message").asText());
        assertEquals(
                "string",
                question.path("params")
                        .path("requestedSchema")
                        .path("properties")
                        .path("name")
                        .path("type")
                        .asText());

        ObjectNode retry = client.retry(request, asked.get("requestState").asText(), who("Ada", 36));
        assertNotEquals(request.get("id"), retry.get("id"), "the retry is a new JSON-RPC request");
        JsonNode result = assertCompleted(client.send(retry), retry);
        assertTrue(
                result.path("content").path(0).path("text").asText().startsWith("Hello, Ada (36)! Greeting #"),
                () -> "result: " + result);
        assertEquals(before + 1, tools.greetings.get(), "the journaled step ran once");
    }

    @Test
    void callOverTwoRoundsUsesTheStateOfTheLatestRound() {
        int before = tools.bookings.get();
        ObjectNode request = client.toolCall("plan_trip", Json.object().put("travellers", 2));
        String first = firstRound(request);

        ObjectNode secondRound =
                client.retry(request, first, accept("destination", Json.object().put("city", "Oslo")));
        JsonNode confirm = assertInputRequired(client.send(secondRound), secondRound);
        assertTrue(confirm.path("inputRequests").has("confirm"), () -> "asks to confirm: " + confirm);
        assertEquals(
                "Book Oslo for 2?",
                confirm.path("inputRequests")
                        .path("confirm")
                        .path("params")
                        .path("message")
                        .asText());
        String second = confirm.get("requestState").asText();
        assertNotEquals(first, second);

        ObjectNode last =
                client.retry(request, second, accept("confirm", Json.object().put("ok", true)));
        JsonNode result = assertCompleted(client.send(last), last);
        assertTrue(
                result.path("content").path(0).path("text").asText().startsWith("Trip to Oslo for 2 booked as #"),
                () -> "result: " + result);
        assertEquals(before + 1, tools.bookings.get());
    }

    @Test
    void retryOfAnEarlierRoundGetsThatRoundsRecordedOutcome() {
        ObjectNode request = client.toolCall("plan_trip", Json.object().put("travellers", 3));
        String first = firstRound(request);
        ObjectNode destination = accept("destination", Json.object().put("city", "Rome"));
        ObjectNode answered = client.retry(request, first, destination);
        JsonNode confirm = assertInputRequired(client.send(answered), answered);
        // Send round 1 again: the call has moved on, the recorded outcome of round 1 comes back.
        ObjectNode again = client.retry(request, first, destination);
        JsonNode repeated = assertInputRequired(client.send(again), again);
        assertEquals(confirm.get("inputRequests"), repeated.get("inputRequests"));
    }

    @Test
    void retryOfACompletedRoundReturnsTheSameResultWithoutRunningStepsAgain() {
        ObjectNode request = greet("Hi");
        String state = firstRound(request);
        ObjectNode retry = client.retry(request, state, who("Grace", 45));
        JsonNode result = assertCompleted(client.send(retry), retry);
        int greetings = tools.greetings.get();

        ObjectNode again = client.retry(request, state, who("Grace", 45));
        JsonNode repeated = assertCompleted(client.send(again), again);
        assertEquals(result, repeated);
        assertEquals(greetings, tools.greetings.get(), "no step ran again");
    }

    @Test
    void concurrentRetriesOfOneRoundAllGetTheSameResultAndRunTheStepOnce() {
        ObjectNode request = greet("Hola");
        String state = firstRound(request);
        int before = tools.greetings.get();
        List<ObjectNode> retries = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            retries.add(client.retry(request, state, who("Ada", 36)));
        }
        List<java.util.concurrent.CompletableFuture<McpTestClient.Reply>> replies =
                retries.stream().map(client::sendAsync).toList();
        JsonNode first = null;
        for (int i = 0; i < retries.size(); i++) {
            JsonNode result = assertCompleted(replies.get(i).join(), retries.get(i));
            if (first == null) {
                first = result;
            }
            assertEquals(first, result, "every concurrent retry gets the same result");
        }
        assertEquals(before + 1, tools.greetings.get(), "the journaled step ran once");
    }

    @Test
    void retryWithoutTheAnswerAsksAgain() {
        ObjectNode request = greet("Hey");
        JsonNode asked = assertInputRequired(client.send(request), request);

        ObjectNode bare = client.retry(request, asked.get("requestState").asText(), null);
        JsonNode askedAgain = assertInputRequired(client.send(bare), bare);
        assertEquals(asked.get("inputRequests"), askedAgain.get("inputRequests"));

        ObjectNode unknownKeysOnly = client.retry(
                request,
                askedAgain.get("requestState").asText(),
                accept("somethingElse", Json.object().put("x", 1)));
        JsonNode stillAsked = assertInputRequired(client.send(unknownKeysOnly), unknownKeysOnly);
        assertEquals(asked.get("inputRequests"), stillAsked.get("inputRequests"));

        ObjectNode answered =
                client.retry(request, stillAsked.get("requestState").asText(), who("Linus", 20));
        assertCompleted(client.send(answered), answered);
    }

    @Test
    void answerThatDoesNotMatchTheRequestedSchemaIsInvalidParamsAndCanBeCorrected() {
        ObjectNode request = greet("Hello");
        String state = firstRound(request);
        List<ObjectNode> badAnswers = List.of(
                who("Ada", -1),
                accept("who", Json.object().put("name", "Ada").put("age", "old")),
                accept("who", Json.object().put("age", 3)),
                accept("who", null),
                answer("who", "shrug"));
        for (ObjectNode bad : badAnswers) {
            ObjectNode retry = client.retry(request, state, bad);
            assertError(client.send(retry), 200, -32602, retry);
        }
        ObjectNode corrected = client.retry(request, state, who("Ada", 36));
        assertCompleted(client.send(corrected), corrected);
    }

    @Test
    void declinedQuestionEndsTheCallWithANormalResult() {
        ObjectNode request = greet("Hello");
        String state = firstRound(request);
        ObjectNode retry = client.retry(request, state, answer("who", "decline"));
        JsonNode result = assertCompleted(client.send(retry), retry);
        assertEquals(
                "No greeting: the question was declined.",
                result.path("content").path(0).path("text").asText());
    }

    // --- capabilities -----------------------------------------------------------------------

    @Test
    void urlQuestionIsSentToAClientThatDeclaredUrlMode() {
        ObjectNode request = client.toolCall("pay_online", Json.object().put("cents", 500));
        JsonNode asked = assertInputRequired(client.send(request), request);
        JsonNode params = asked.path("inputRequests").path("payment").path("params");
        assertEquals("url", params.path("mode").asText());
        assertEquals(TestTools.PAYMENT_URL, params.path("url").asText());
    }

    @Test
    void urlQuestionToAFormOnlyClientIsMissingRequiredClientCapability() {
        ObjectNode request = client.toolCall("pay_online", Json.object().put("cents", 500), McpTestClient.FORM_ONLY);
        JsonNode error = assertError(client.send(request), 400, -32021, request);
        JsonNode required = error.path("data").path("requiredCapabilities");
        assertTrue(required.path("elicitation").has("url"), () -> "requiredCapabilities: " + required);
    }

    @Test
    void formQuestionToAClientWithoutElicitationIsMissingRequiredClientCapability() {
        ObjectNode request = client.toolCall("greet", Json.object().put("greeting", "Yo"), "{}");
        JsonNode error = assertError(client.send(request), 400, -32021, request);
        assertTrue(error.path("data").path("requiredCapabilities").has("elicitation"), () -> "error: " + error);
    }

    // --- refused requestStates: one answer for every cause (DESIGN §5) ----------------------

    @Test
    void tamperedRequestStateIsInvalidParams() {
        ObjectNode request = greet("Hello");
        String state = firstRound(request);
        ObjectNode retry = client.retry(request, flipOneCharacter(state), who("Eve", 30));
        assertError(client.send(retry), 200, -32602, retry);
    }

    @Test
    void changingAnyOneCharacterOfTheRequestStateIsRefused() {
        ObjectNode request = greet("Hello");
        String state = firstRound(request);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        List<String> changed = new java.util.ArrayList<>();
        for (int i = 0; i < state.length(); i++) {
            char other = alphabet.charAt((alphabet.indexOf(state.charAt(i)) + 1) % alphabet.length());
            changed.add(state.substring(0, i) + other + state.substring(i + 1));
        }
        changed.add(state + "=");
        changed.add(state.substring(0, state.length() - 1));
        for (String tampered : changed) {
            ObjectNode retry = client.retry(request, tampered, who("Eve", 30));
            assertError(client.send(retry), 200, -32602, retry);
        }
        ObjectNode genuine = client.retry(request, state, who("Eve", 30));
        assertCompleted(client.send(genuine), genuine);
    }

    @Test
    void requestStateReplayedWithOtherArgumentsIsInvalidParams() {
        String state = firstRound(greet("Hello"));
        ObjectNode other = greet("Goodbye");
        ObjectNode retry = client.retry(other, state, who("Mallory", 30));
        assertError(client.send(retry), 200, -32602, retry);
    }

    @Test
    void requestStateOfAnotherPrincipalIsInvalidParams() {
        ObjectNode request = greet("Hello");
        String state = firstRound(request);
        ObjectNode stolen = client.retry(request, state, who("Bob", 30));
        assertError(client.send(stolen, Map.of(TestTools.USER_HEADER, "bob")), 200, -32602, stolen);

        ObjectNode own = client.retry(request, state, who("Alice", 30));
        assertCompleted(client.send(own), own);
    }

    @Test
    void everyRefusedRequestStateGetsTheSameError() {
        ObjectNode request = greet("Hello");
        String state = firstRound(request);
        ObjectNode tampered = client.retry(request, flipOneCharacter(state), who("A", 1));
        ObjectNode otherArguments = client.retry(greet("Other"), state, who("A", 1));
        ObjectNode otherTool =
                client.retry(client.toolCall("plan_trip", Json.object().put("travellers", 1)), state, who("A", 1));
        ObjectNode garbage = client.retry(request, "not a state", who("A", 1));
        ObjectNode otherPrincipal = client.retry(request, state, who("A", 1));

        JsonNode expected = assertError(client.send(tampered), 200, -32602, tampered);
        assertEquals(expected, assertError(client.send(otherArguments), 200, -32602, otherArguments));
        assertEquals(expected, assertError(client.send(otherTool), 200, -32602, otherTool));
        assertEquals(expected, assertError(client.send(garbage), 200, -32602, garbage));
        assertEquals(
                expected,
                assertError(
                        client.send(otherPrincipal, Map.of(TestTools.USER_HEADER, "mallory")),
                        200,
                        -32602,
                        otherPrincipal));
    }
}
