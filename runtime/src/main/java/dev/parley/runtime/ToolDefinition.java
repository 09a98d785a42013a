package dev.parley.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import dev.parley.runtime.internal.schema.JsonSchemas;
import dev.parley.runtime.internal.schema.RecordSchemas;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Tools.ToolInfo;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;

/**
 * A registered tool: its public description and its handler. Build one with
 * {@link #tool(String, Class)} (schema derived from a record) or
 * {@link #tool(String, JsonNode)} (schema given; arguments arrive as a JSON object).
 */
public final class ToolDefinition<A> implements CallTarget {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    private final String name;
    private final String title;
    private final String description;
    private final ObjectNode inputSchema;
    private final JsonNode outputSchema;
    private final ToolAnnotations annotations;
    private final Class<A> argumentsType;
    private final ToolHandler<A> blockingHandler;
    private final AsyncToolHandler<A> asyncHandler;
    /** Compiled on first use: the validator's first compile costs about half a second of start-up. */
    private volatile Schema compiledInputSchema;
    /** Whether no arguments at all pass the input schema; null until first asked. */
    private volatile Boolean noArgumentsPass;

    private final TaskSupport taskSupport;
    private final java.time.Duration taskBudget;
    private final boolean asksInTask;

    private final java.util.Set<String> requiredScopes;
    private final McpApps.ToolUi ui;
    private final List<Elicitation.TypedForm<?>> forms;

    private ToolDefinition(Builder<A> builder, ToolHandler<A> blocking, AsyncToolHandler<A> async) {
        this.ui = builder.ui;
        this.name = builder.name;
        this.title = builder.title;
        this.description = builder.description;
        this.inputSchema = builder.inputSchema;
        this.outputSchema = builder.outputSchema;
        this.annotations = builder.annotations;
        this.argumentsType = builder.argumentsType;
        this.blockingHandler = blocking;
        this.asyncHandler = async;
        this.taskSupport = builder.taskSupport;
        this.taskBudget = builder.taskBudget;
        this.asksInTask = builder.asksInTask;
        this.requiredScopes = builder.requiredScopes;
        this.forms = List.copyOf(builder.forms);
    }

    public static <A> Builder<A> tool(String name, Class<A> argumentsRecord) {
        return new Builder<>(name, argumentsRecord, RecordSchemas.derive(argumentsRecord));
    }

    public static Builder<ObjectNode> tool(String name, JsonNode inputSchema) {
        if (!(inputSchema instanceof ObjectNode schema)
                || !"object".equals(schema.path("type").asText())) {
            throw new IllegalArgumentException("a tool's input schema must be an object schema with type \"object\"");
        }
        return new Builder<>(name, ObjectNode.class, schema.deepCopy());
    }

    /**
     * Compiles the input schema for validation now, if it is not yet: a node does so for every
     * tool as it starts, so a schema the validator refuses stops the start.
     */
    public void compileInputSchema() {
        inputValidator();
    }

    private Schema inputValidator() {
        Schema compiled = compiledInputSchema;
        if (compiled == null) {
            compiled = JsonSchemas.compile(inputSchema);
            compiledInputSchema = compiled; // compiling twice in a race is harmless
        }
        return compiled;
    }

    /**
     * Validation is a function of the schema and the value, and a call of a tool that takes no
     * arguments sends the same empty object every time: its answer is asked once. Validating it
     * was about 3 % of such a call's CPU.
     */
    private boolean noArgumentsPass() {
        Boolean pass = noArgumentsPass;
        if (pass == null) {
            pass = JsonSchemas.problems(inputValidator(), Json.object()).isEmpty();
            noArgumentsPass = pass; // asking twice in a race is harmless
        }
        return pass;
    }

    @Override
    public String method() {
        return Methods.TOOLS_CALL;
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * Validates the arguments against the input schema (a mismatch is an {@code isError} result,
     * and the handler never runs), converts them and runs the handler.
     */
    @Override
    public CompletionStage<ObjectNode> invoke(ObjectNode arguments, CallContext context, Executor blockingExecutor) {
        List<String> problems = arguments.isEmpty() && noArgumentsPass()
                ? List.of()
                : JsonSchemas.problems(inputValidator(), arguments);
        if (!problems.isEmpty()) {
            return invalidArguments(String.join("; ", problems));
        }
        A typed;
        try {
            typed = argumentsType == ObjectNode.class
                    ? argumentsType.cast(arguments)
                    : Json.MAPPER.treeToValue(arguments, argumentsType);
        } catch (Exception e) {
            return invalidArguments(conversionProblem(e));
        }
        if (blockingHandler != null) {
            return BlockingHandlers.run(() -> wire(blockingHandler.handle(typed, context)), blockingExecutor);
        }
        return asyncHandler.handle(typed, context).thenApply(this::wire);
    }

    private ObjectNode wire(ToolResult result) {
        return result == null
                ? ToolResult.error("Tool " + name + " returned no result").toWire()
                : result.toWire();
    }

    /**
     * Why arguments that passed the schema did not convert: the message of an
     * {@code IllegalArgumentException} the arguments record's constructor threw (the author's own
     * words), else a fixed text naming the field. Jackson's own messages name Java classes.
     */
    private static String conversionProblem(Exception e) {
        if (e instanceof com.fasterxml.jackson.databind.exc.ValueInstantiationException instantiation
                && instantiation.getCause() instanceof IllegalArgumentException author
                && author.getMessage() != null) {
            return author.getMessage();
        }
        if (e instanceof com.fasterxml.jackson.databind.JsonMappingException mapping
                && !mapping.getPath().isEmpty()) {
            StringBuilder path = new StringBuilder();
            for (com.fasterxml.jackson.databind.JsonMappingException.Reference reference : mapping.getPath()) {
                path.append(
                        reference.getFieldName() != null ? "/" + reference.getFieldName() : "/" + reference.getIndex());
            }
            return "the value at " + path + " does not fit the tool's argument type";
        }
        return "they do not fit the tool's argument type";
    }

    private CompletionStage<ObjectNode> invalidArguments(String problems) {
        return CompletableFuture.completedFuture(
                ToolResult.error("Invalid arguments for tool " + name + ": " + problems)
                        .toWire());
    }

    @Override
    public java.time.Duration taskBudget() {
        return taskBudget;
    }

    @Override
    public TaskSupport taskSupport() {
        return taskSupport;
    }

    @Override
    public boolean asksInTask() {
        return asksInTask;
    }

    /** A tool that fails reports it as an {@code isError} result, not a JSON-RPC error (spec §8). */
    @Override
    public ObjectNode resultForFailure(String reference, String detail) {
        // A fixed text: the exception's class and message are internals (they went to the log).
        return ToolResult.error("Tool " + name + " failed (reference " + reference + ")"
                        + (detail == null ? "" : ": " + detail))
                .toWire();
    }

    /** OAuth scopes a caller needs for this tool; empty when only the server-wide ones apply. */
    public java.util.Set<String> requiredScopes() {
        return requiredScopes;
    }

    public ObjectNode inputSchema() {
        return inputSchema;
    }

    /** The {@code tools/list} entry as JSON, for a client that declared MCP Apps. */
    public ObjectNode infoJson() {
        return (ObjectNode) Json.tree(info(true));
    }

    /** The {@code tools/list} entry; its {@code _meta.ui} only for a client that declared MCP Apps. */
    public ToolInfo info(boolean appsDeclared) {
        return new ToolInfo(
                name,
                title,
                description,
                inputSchema,
                outputSchema,
                annotations == null ? null : Json.tree(annotations),
                ui != null && appsDeclared ? java.util.Map.of("ui", ui) : null);
    }

    /**
     * The forms this tool declared it asks ({@link Builder#asks}), checked at registration; their
     * {@code notSecrets} show each field marked as no secret, with its reason.
     */
    public List<Elicitation.TypedForm<?>> forms() {
        return forms;
    }

    /** The MCP Apps view this tool names, if any. */
    public java.util.Optional<McpApps.ToolUi> ui() {
        return java.util.Optional.ofNullable(ui);
    }

    /** Listed for this client: app-only tools are for clients that declared MCP Apps. */
    public boolean listedFor(boolean appsDeclared) {
        return appsDeclared || ui == null || ui.modelVisible();
    }

    public static final class Builder<A> {
        private final String name;
        private final Class<A> argumentsType;
        private final ObjectNode inputSchema;
        private String title;
        private String description;
        private JsonNode outputSchema;
        private ToolAnnotations annotations;
        private TaskSupport taskSupport = TaskSupport.FORBIDDEN;
        private java.time.Duration taskBudget;
        private boolean asksInTask;
        private java.util.Set<String> requiredScopes = java.util.Set.of();
        private McpApps.ToolUi ui;
        private final List<Elicitation.TypedForm<?>> forms = new java.util.ArrayList<>();

        private Builder(String name, Class<A> argumentsType, ObjectNode inputSchema) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("tool name must be 1-128 characters of [A-Za-z0-9_.-]: " + name);
            }
            this.name = name;
            this.argumentsType = argumentsType;
            this.inputSchema = inputSchema;
        }

        public Builder<A> title(String title) {
            this.title = title;
            return this;
        }

        public Builder<A> description(String description) {
            this.description = description;
            return this;
        }

        public Builder<A> outputSchema(JsonNode outputSchema) {
            this.outputSchema = outputSchema;
            return this;
        }

        public Builder<A> annotations(ToolAnnotations annotations) {
            this.annotations = annotations;
            return this;
        }

        /** Whether the tool may run as a task; see {@link CallContext#becomeTask()}. */
        public Builder<A> taskSupport(TaskSupport taskSupport) {
            this.taskSupport = java.util.Objects.requireNonNull(taskSupport);
            return this;
        }

        /**
         * The tool asks questions after {@code ctx.becomeTask()}: a client that cannot be asked
         * anything runs it synchronously, and gets the question's fallback (or its {@code -32021})
         * in the response rather than from a task that fails later.
         */
        public Builder<A> asksInTask() {
            this.asksInTask = true;
            return this;
        }

        /**
         * An optional-task tool that runs synchronously, and becomes a task only if its first round
         * has not finished within {@code budget}: the synchronous run is cancelled and the task
         * re-runs the handler from the top over the steps it journaled (the re-run contract makes
         * that safe; a step whose action was interrupted before it returned runs again).
         */
        public Builder<A> taskBudget(java.time.Duration budget) {
            this.taskSupport = TaskSupport.OPTIONAL;
            this.taskBudget = java.util.Objects.requireNonNull(budget);
            return this;
        }

        /**
         * OAuth scopes a caller's token must carry to use this tool (with authorization on): a
         * token without them gets the 403 step-up challenge, and lists leave the tool out.
         */
        public Builder<A> requiredScopes(String... scopes) {
            this.requiredScopes = RequiredScopes.of(scopes);
            return this;
        }

        /**
         * Names the MCP Apps view ({@code ui://} resource) that renders this tool's results, and who
         * may call the tool (default: the model and the view). The server must register the view.
         */
        public Builder<A> ui(String viewUri, McpApps.Visibility... visibility) {
            this.ui = new McpApps.ToolUi(viewUri, java.util.List.of(visibility));
            return this;
        }

        /**
         * Declares the typed forms ({@link Elicitation#form(String, Class)}) the handler asks, by
         * their answer records. Each is checked against the elicitation safety rules here, so a
         * form field that asks for a secret fails the registration, at start-up, not a user's call.
         *
         * @throws UnsafeQuestionException naming the tool and the field
         */
        @SafeVarargs
        public final Builder<A> asks(Class<? extends Record>... answerTypes) {
            for (Class<? extends Record> answerType : answerTypes) {
                try {
                    forms.add(Elicitation.form(answerType.getSimpleName(), answerType));
                } catch (UnsafeQuestionException e) {
                    throw new UnsafeQuestionException(
                            e.field(), "tool " + name + ", form " + answerType.getSimpleName() + ": " + e.getMessage());
                }
            }
            return this;
        }

        /** A blocking handler, run on the tool executor. */
        public ToolDefinition<A> handler(ToolHandler<A> handler) {
            return new ToolDefinition<>(this, Objects.requireNonNull(handler), null);
        }

        /** A non-blocking handler, run on the calling thread. */
        public ToolDefinition<A> asyncHandler(AsyncToolHandler<A> handler) {
            return new ToolDefinition<>(this, null, Objects.requireNonNull(handler));
        }
    }
}
