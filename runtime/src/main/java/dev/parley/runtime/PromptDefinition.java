package dev.parley.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Results;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A registered prompt ({@code prompts/list}, {@code prompts/get}). Its handler follows the same
 * re-run contract as a tool's, so it may ask for input over several rounds.
 */
public final class PromptDefinition implements CallTarget {
    private final String name;
    private final String title;
    private final String description;
    private final List<Argument> arguments;
    private final Map<String, Completer> completers;
    private final PromptHandler handler;

    /** A prompt argument as listed; all prompt arguments are strings. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record Argument(String name, String description, Boolean required) {}

    /** One message of a prompt. */
    public record Message(String role, Content content) {
        public static Message user(Content content) {
            return new Message("user", content);
        }

        public static Message assistant(Content content) {
            return new Message("assistant", content);
        }
    }

    /** What {@code prompts/get} returns. */
    public record Result(String description, List<Message> messages) {
        public Result {
            messages = List.copyOf(messages);
        }

        public static Result of(Message... messages) {
            return new Result(null, List.of(messages));
        }

        public ObjectNode toWire() {
            ObjectNode wire = Results.complete();
            if (description != null) {
                wire.put("description", description);
            }
            wire.set("messages", Json.tree(messages));
            return wire;
        }
    }

    @FunctionalInterface
    public interface PromptHandler {
        Result get(Map<String, String> arguments, CallContext context) throws Exception;
    }

    private final java.util.Set<String> requiredScopes;

    private PromptDefinition(Builder builder, PromptHandler handler) {
        this.name = builder.name;
        this.title = builder.title;
        this.description = builder.description;
        this.arguments = List.copyOf(builder.arguments);
        this.completers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.completers));
        this.handler = handler;
        this.requiredScopes = builder.requiredScopes;
    }

    /** OAuth scopes a caller needs for this prompt; empty when only the server-wide ones apply. */
    public java.util.Set<String> requiredScopes() {
        return requiredScopes;
    }

    public static Builder prompt(String name) {
        return new Builder(name);
    }

    @Override
    public String method() {
        return Methods.PROMPTS_GET;
    }

    @Override
    public String name() {
        return name;
    }

    public Optional<Completer> completer(String argument) {
        return Optional.ofNullable(completers.get(argument));
    }

    /** The {@code prompts/list} entry. */
    public ObjectNode info() {
        ObjectNode info = Json.object().put("name", name);
        if (title != null) {
            info.put("title", title);
        }
        if (description != null) {
            info.put("description", description);
        }
        if (!arguments.isEmpty()) {
            info.set("arguments", Json.tree(arguments));
        }
        return info;
    }

    /** Missing required arguments or non-string values are a -32602 error, before the handler runs. */
    @Override
    public CompletionStage<ObjectNode> invoke(ObjectNode given, CallContext context, Executor blockingExecutor) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : given.properties()) {
            if (!entry.getValue().isTextual()) {
                throw McpException.invalidParams("prompt argument '" + entry.getKey() + "' must be a string");
            }
            values.put(entry.getKey(), entry.getValue().asText());
        }
        for (Argument argument : arguments) {
            if (Boolean.TRUE.equals(argument.required()) && !values.containsKey(argument.name())) {
                throw McpException.invalidParams(
                        "missing required argument '" + argument.name() + "' of prompt " + name);
            }
        }
        return BlockingHandlers.run(
                () -> Objects.requireNonNull(handler.get(values, context), "prompt handler returned null")
                        .toWire(),
                blockingExecutor);
    }

    @Override
    public ObjectNode resultForFailure(String reference, String detail) {
        return null;
    }

    public static final class Builder {
        private final String name;
        private String title;
        private String description;
        private java.util.Set<String> requiredScopes = java.util.Set.of();
        private final List<Argument> arguments = new ArrayList<>();
        private final Map<String, Completer> completers = new LinkedHashMap<>();

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder title(String title) {
            this.title = title;
            return this;
        }

        public Builder description(String description) {
            this.description = description;
            return this;
        }

        public Builder argument(String name, String description, boolean required) {
            arguments.add(new Argument(name, description, required ? Boolean.TRUE : null));
            return this;
        }

        /** Suggests values for an argument in {@code completion/complete}. */
        public Builder completion(String argument, Completer completer) {
            completers.put(argument, completer);
            return this;
        }

        /**
         * OAuth scopes a caller's token must carry to use this prompt (with authorization on): a
         * token without them gets the 403 step-up challenge, and lists leave the prompt out.
         */
        public Builder requiredScopes(String... scopes) {
            this.requiredScopes = RequiredScopes.of(scopes);
            return this;
        }

        /** The handler runs on the tool executor, like a blocking tool handler. */
        public PromptDefinition handler(PromptHandler handler) {
            return new PromptDefinition(this, Objects.requireNonNull(handler));
        }
    }
}
