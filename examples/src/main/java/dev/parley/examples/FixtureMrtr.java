package dev.parley.examples;

import static dev.parley.examples.FixtureServer.noArguments;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.Content;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.InputAnswer;
import dev.parley.runtime.InputQuestion;
import dev.parley.runtime.Json;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.PromptDefinition.Message;
import dev.parley.runtime.RootsAnswer;
import dev.parley.runtime.RootsRequest;
import dev.parley.runtime.SamplingAnswer;
import dev.parley.runtime.SamplingRequest;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Multi Round-Trip Request fixtures of the conformance suite (CONFORMANCE.md §6.5). Each is
 * an ordinary re-run handler: it asks, and the runtime turns an unanswered question into
 * {@code input_required} with a sealed {@code requestState}; the retry re-runs it with the answers.
 */
@SuppressWarnings("deprecation") // sampling and roots are deprecated, and exercised here on purpose
final class FixtureMrtr {
    private FixtureMrtr() {}

    static List<ToolDefinition<?>> tools() {
        return List.of(
                noArguments(
                        "test_input_required_result_elicitation",
                        "Asks for the user's name (key user_name)",
                        (args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit("user_name", form("What is your name?", "name", "string"));
                            return answer instanceof ElicitAnswer.Accepted accepted
                                    ? ToolResult.text("Hello, " + accepted.string("name") + "!")
                                    : ToolResult.text("No name given: " + outcome(answer));
                        }),
                noArguments(
                        "test_input_required_result_sampling", "Asks the client's model a question", (args, ctx) -> {
                            SamplingAnswer answer = ctx.sample(
                                    "sample_request", SamplingRequest.userText("What is the capital of France?", 100));
                            return ToolResult.text("Sampling result: " + answer.text());
                        }),
                noArguments(
                        "test_input_required_result_list_roots",
                        "Asks the client for its roots",
                        (args, ctx) -> ToolResult.text("Found "
                                + ctx.listRoots("roots_request").roots().size() + " root(s)")),
                noArguments(
                        "test_input_required_result_request_state",
                        "Asks for a confirmation; the state carries the call",
                        (args, ctx) -> confirmed(ctx, "state-ok: requestState validated")),
                noArguments(
                        "test_input_required_result_tampered_state",
                        "Asks for a confirmation; tampered state is refused",
                        (args, ctx) -> confirmed(ctx, "integrity-ok: state verified")),
                noArguments(
                        "test_input_required_result_multiple_inputs",
                        "Asks three questions in one round",
                        FixtureMrtr::multipleInputs),
                noArguments(
                        "test_input_required_result_multi_round",
                        "Asks two questions in two rounds",
                        FixtureMrtr::multiRound),
                noArguments(
                        "test_input_required_result_capabilities",
                        "Asks only what the client declared it can answer",
                        FixtureMrtr::byCapabilities));
    }

    /** {@code prompts/get} with MRTR (scenario non-tool-request). */
    static PromptDefinition prompt() {
        return PromptDefinition.prompt("test_input_required_result_prompt")
                .description("A prompt that asks for context before it is rendered")
                .handler((args, ctx) -> {
                    ElicitAnswer answer = ctx.elicit(
                            "user_context", form("What context should the prompt use?", "context", "string"));
                    String context =
                            answer instanceof ElicitAnswer.Accepted accepted ? accepted.string("context") : "none";
                    return PromptDefinition.Result.of(Message.user(Content.text("Prompt with context: " + context)));
                });
    }

    private static ToolResult confirmed(CallContext ctx, String text) {
        ElicitAnswer answer = ctx.elicit("confirm", form("Please confirm", "ok", "boolean"));
        return answer instanceof ElicitAnswer.Accepted
                ? ToolResult.text(text)
                : ToolResult.text("Not confirmed: " + outcome(answer));
    }

    private static ToolResult multipleInputs(ObjectNode args, CallContext ctx) {
        Map<String, InputQuestion> questions = new LinkedHashMap<>();
        questions.put("user_name", form("What is your name?", "name", "string"));
        questions.put("greeting", SamplingRequest.userText("Generate a greeting", 50));
        questions.put("client_roots", new RootsRequest());
        Map<String, InputAnswer> answers = ctx.askAll(questions);
        String name =
                answers.get("user_name") instanceof ElicitAnswer.Accepted accepted ? accepted.string("name") : "?";
        String greeting = ((SamplingAnswer) answers.get("greeting")).text();
        int roots = ((RootsAnswer) answers.get("client_roots")).roots().size();
        return ToolResult.text("Name: " + name + "; Greeting: " + greeting + "; Roots: " + roots);
    }

    /** Round two is asked only after round one was answered; the runtime keeps round one's answer. */
    private static ToolResult multiRound(ObjectNode args, CallContext ctx) {
        ElicitAnswer step1 = ctx.elicit("step1", form("Step 1: What is your name?", "name", "string"));
        String name = step1 instanceof ElicitAnswer.Accepted accepted ? accepted.string("name") : "?";
        ElicitAnswer step2 = ctx.elicit("step2", form("Step 2: What is your favorite color?", "color", "string"));
        String color = step2 instanceof ElicitAnswer.Accepted accepted ? accepted.string("color") : "?";
        return ToolResult.text("Multi-round complete for " + name + " who likes " + color);
    }

    /** One question per capability the request declared; nothing is asked that it cannot answer. */
    private static ToolResult byCapabilities(ObjectNode args, CallContext ctx) {
        Map<String, InputQuestion> questions = new LinkedHashMap<>();
        if (ctx.clientCapabilities().elicitationForm()) {
            questions.put("elicit_input", form("Elicitation input", "value", "string"));
        }
        if (ctx.clientCapabilities().sampling()) {
            questions.put("sample_input", SamplingRequest.userText("Sample request", 50));
        }
        if (questions.isEmpty()) {
            return ToolResult.text("No supported capabilities declared");
        }
        Map<String, InputAnswer> answers = ctx.askAll(questions);
        return ToolResult.text("capabilities-ok: received " + String.join(", ", answers.keySet()));
    }

    /** A one-field form with the field required, exactly as the suite describes it. */
    private static Elicitation.Form form(String message, String field, String type) {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject(field).put("type", type);
        schema.putArray("required").add(field);
        return new Elicitation.Form(message, schema);
    }

    private static String outcome(ElicitAnswer answer) {
        return answer instanceof ElicitAnswer.Declined ? "declined" : "cancelled";
    }
}
