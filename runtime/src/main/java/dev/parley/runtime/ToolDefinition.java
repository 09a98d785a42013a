package dev.parley.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import dev.parley.runtime.json.Json;
import dev.parley.runtime.schema.JsonSchemas;
import dev.parley.runtime.schema.RecordSchemas;
import dev.parley.runtime.wire.Tools.ToolInfo;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A registered tool: its public description and its handler. Build one with
 * {@link #tool(String, Class)} (schema derived from a record) or
 * {@link #tool(String, JsonNode)} (schema given; arguments arrive as a JSON object).
 */
public final class ToolDefinition<A> {
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
  private final Schema compiledInputSchema;

  private ToolDefinition(Builder<A> builder, ToolHandler<A> blocking, AsyncToolHandler<A> async) {
    this.name = builder.name;
    this.title = builder.title;
    this.description = builder.description;
    this.inputSchema = builder.inputSchema;
    this.outputSchema = builder.outputSchema;
    this.annotations = builder.annotations;
    this.argumentsType = builder.argumentsType;
    this.blockingHandler = blocking;
    this.asyncHandler = async;
    this.compiledInputSchema = JsonSchemas.compile(inputSchema);
  }

  public static <A> Builder<A> tool(String name, Class<A> argumentsRecord) {
    return new Builder<>(name, argumentsRecord, RecordSchemas.derive(argumentsRecord));
  }

  public static Builder<ObjectNode> tool(String name, JsonNode inputSchema) {
    if (!(inputSchema instanceof ObjectNode schema) || !"object".equals(schema.path("type").asText())) {
      throw new IllegalArgumentException("a tool's input schema must be an object schema with type \"object\"");
    }
    return new Builder<>(name, ObjectNode.class, schema.deepCopy());
  }

  public String name() {
    return name;
  }

  public ObjectNode inputSchema() {
    return inputSchema;
  }

  public Schema compiledInputSchema() {
    return compiledInputSchema;
  }

  public Class<A> argumentsType() {
    return argumentsType;
  }

  /** Null when the handler is asynchronous. */
  public ToolHandler<A> blockingHandler() {
    return blockingHandler;
  }

  /** Null when the handler is blocking. */
  public AsyncToolHandler<A> asyncHandler() {
    return asyncHandler;
  }

  public ToolInfo info() {
    return new ToolInfo(name, title, description, inputSchema, outputSchema,
        annotations == null ? null : Json.tree(annotations));
  }

  public static final class Builder<A> {
    private final String name;
    private final Class<A> argumentsType;
    private final ObjectNode inputSchema;
    private String title;
    private String description;
    private JsonNode outputSchema;
    private ToolAnnotations annotations;

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
