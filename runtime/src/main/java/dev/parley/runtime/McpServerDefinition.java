package dev.parley.runtime;

import dev.parley.runtime.wire.Lifecycle.Implementation;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Everything a server offers: its identity, instructions and tools. Immutable. */
public final class McpServerDefinition {
  private final Implementation serverInfo;
  private final String instructions;
  private final Map<String, ToolDefinition<?>> tools;

  private McpServerDefinition(Builder builder) {
    this.serverInfo = new Implementation(builder.name, builder.version, builder.title);
    this.instructions = builder.instructions;
    this.tools = Collections.unmodifiableMap(new LinkedHashMap<>(builder.tools));
  }

  public static Builder builder(String name, String version) {
    return new Builder(name, version);
  }

  public Implementation serverInfo() {
    return serverInfo;
  }

  public String instructions() {
    return instructions;
  }

  /** Tools in registration order (the order {@code tools/list} pages through). */
  public Collection<ToolDefinition<?>> tools() {
    return tools.values();
  }

  public Optional<ToolDefinition<?>> tool(String name) {
    return Optional.ofNullable(tools.get(name));
  }

  public static final class Builder {
    private final String name;
    private final String version;
    private String title;
    private String instructions;
    private final Map<String, ToolDefinition<?>> tools = new LinkedHashMap<>();

    private Builder(String name, String version) {
      this.name = name;
      this.version = version;
    }

    public Builder title(String title) {
      this.title = title;
      return this;
    }

    public Builder instructions(String instructions) {
      this.instructions = instructions;
      return this;
    }

    public Builder tool(ToolDefinition<?> tool) {
      if (tools.putIfAbsent(tool.name(), tool) != null) {
        throw new IllegalArgumentException("duplicate tool name: " + tool.name());
      }
      return this;
    }

    public McpServerDefinition build() {
      return new McpServerDefinition(this);
    }
  }
}
