package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Completer;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.internal.wire.Completion.CompleteResult;
import dev.parley.runtime.internal.wire.Completion.Values;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code completion/complete}: argument completion for prompts and resource templates (spec §7.5). */
final class CompletionRequests {
    private final McpServerDefinition server;

    CompletionRequests(McpServerDefinition server) {
        this.server = server;
    }

    McpReply.Final complete(McpRequest request) {
        ObjectNode ref = request.objectParam("ref");
        ObjectNode argument = request.objectParam("argument");
        if (ref == null || argument == null || !argument.path("name").isTextual()) {
            throw McpException.invalidParams("completion/complete needs ref and argument.name");
        }
        String argumentName = argument.path("name").asText();
        Completer completer = switch (ref.path("type").asText()) {
            case "ref/prompt" ->
                server.prompt(ref.path("name").asText())
                        .orElseThrow(() -> McpException.invalidParams(
                                "Unknown prompt: " + ref.path("name").asText()))
                        .completer(argumentName)
                        .orElse(null);
            case "ref/resource" ->
                server.resourceTemplates().stream()
                        .filter(template ->
                                template.uri().equals(ref.path("uri").asText()))
                        .findFirst()
                        .orElseThrow(() -> McpException.invalidParams(
                                "Unknown resource template: " + ref.path("uri").asText()))
                        .completer(argumentName)
                        .orElse(null);
            default -> throw McpException.invalidParams("ref.type must be ref/prompt or ref/resource");
        };
        Map<String, String> context = new LinkedHashMap<>();
        request.params()
                .path("context")
                .path("arguments")
                .properties()
                .forEach(entry -> context.put(entry.getKey(), entry.getValue().asText()));
        List<String> values = completer == null
                ? List.of()
                : completer.complete(argument.path("value").asText(""), context);
        return new McpReply.Complete(request.id(), new CompleteResult(Values.of(values)));
    }
}
