package dev.parley.runtime;

import dev.parley.runtime.ServerChange.ListKind;
import dev.parley.runtime.internal.annotations.AnnotatedDefinitions;
import dev.parley.runtime.internal.wire.Discovery.Implementation;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Everything a server offers: identity, instructions, tools, prompts and resources. Items may
 * be added and removed at runtime; each change is announced to {@link #onChange} listeners
 * (which feed list-changed notifications). Lists keep registration order.
 */
public final class McpServerDefinition {
    private final Implementation serverInfo;
    private final String instructions;
    private final List<Consumer<ServerChange>> listeners = new CopyOnWriteArrayList<>();
    // Copy-on-write maps: readers never lock, writers replace the whole map.
    private volatile Map<String, ToolDefinition<?>> tools;
    private volatile Map<String, PromptDefinition> prompts;
    private volatile Map<String, ResourceDefinition> resources;

    private McpServerDefinition(Builder builder) {
        this.serverInfo = new Implementation(builder.name, builder.version, builder.title);
        this.instructions = builder.instructions;
        this.tools = new LinkedHashMap<>(builder.tools);
        this.prompts = new LinkedHashMap<>(builder.prompts);
        this.resources = new LinkedHashMap<>(builder.resources);
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

    public Collection<ToolDefinition<?>> tools() {
        return tools.values();
    }

    public Optional<ToolDefinition<?>> tool(String name) {
        return Optional.ofNullable(tools.get(name));
    }

    public Collection<PromptDefinition> prompts() {
        return prompts.values();
    }

    public Optional<PromptDefinition> prompt(String name) {
        return Optional.ofNullable(prompts.get(name));
    }

    /** Fixed-URI resources, for {@code resources/list}. */
    public List<ResourceDefinition> resources() {
        return resources.values().stream().filter(r -> !r.isTemplate()).toList();
    }

    /** Whether any MCP Apps view is registered, so the server declares the extension. */
    public boolean hasAppViews() {
        return resources.values().stream().anyMatch(ResourceDefinition::isAppView);
    }

    /** Templates, for {@code resources/templates/list}. */
    public List<ResourceDefinition> resourceTemplates() {
        return resources.values().stream()
                .filter(ResourceDefinition::isTemplate)
                .toList();
    }

    /** The resource serving {@code uri}: an exact URI first, then the first matching template. */
    public Optional<ResourceDefinition> resourceFor(String uri) {
        ResourceDefinition exact = resources.get(uri);
        if (exact != null && !exact.isTemplate()) {
            return Optional.of(exact);
        }
        return resourceTemplates().stream()
                .filter(r -> r.match(uri).isPresent())
                .findFirst();
    }

    /** What a durable call of {@code method} on {@code name} runs, found again on every round. */
    public Optional<CallTarget> target(String method, String name) {
        return switch (method) {
            case Methods.TOOLS_CALL -> tool(name).map(CallTarget.class::cast);
            case Methods.PROMPTS_GET -> prompt(name).map(CallTarget.class::cast);
            case Methods.RESOURCES_READ -> resourceFor(name).map(resource -> resource.readerOf(name));
            default -> Optional.empty();
        };
    }

    public synchronized void addTool(ToolDefinition<?> tool) {
        tools = added(tools, tool.name(), tool);
        announce(new ServerChange.ListChanged(ListKind.TOOLS));
    }

    public synchronized boolean removeTool(String name) {
        return removed(() -> tools, map -> tools = map, name, ListKind.TOOLS);
    }

    public synchronized void addPrompt(PromptDefinition prompt) {
        prompts = added(prompts, prompt.name(), prompt);
        announce(new ServerChange.ListChanged(ListKind.PROMPTS));
    }

    public synchronized boolean removePrompt(String name) {
        return removed(() -> prompts, map -> prompts = map, name, ListKind.PROMPTS);
    }

    public synchronized void addResource(ResourceDefinition resource) {
        resources = added(resources, resource.uri(), resource);
        announce(new ServerChange.ListChanged(ListKind.RESOURCES));
    }

    public synchronized boolean removeResource(String uriOrTemplate) {
        return removed(() -> resources, map -> resources = map, uriOrTemplate, ListKind.RESOURCES);
    }

    /** Tells subscribers of {@code uri} that its contents changed. */
    public void resourceUpdated(String uri) {
        announce(new ServerChange.ResourceUpdated(uri));
    }

    /** Registers a listener for runtime changes; it is called on the changing thread. */
    public void onChange(Consumer<ServerChange> listener) {
        listeners.add(listener);
    }

    private void announce(ServerChange change) {
        listeners.forEach(listener -> listener.accept(change));
    }

    private static <T> Map<String, T> added(Map<String, T> current, String key, T item) {
        if (current.containsKey(key)) {
            throw new IllegalArgumentException("already registered: " + key);
        }
        Map<String, T> copy = new LinkedHashMap<>(current);
        copy.put(key, item);
        return copy;
    }

    private <T> boolean removed(
            java.util.function.Supplier<Map<String, T>> current,
            Consumer<Map<String, T>> replace,
            String key,
            ListKind kind) {
        if (!current.get().containsKey(key)) {
            return false;
        }
        Map<String, T> copy = new LinkedHashMap<>(current.get());
        copy.remove(key);
        replace.accept(copy);
        announce(new ServerChange.ListChanged(kind));
        return true;
    }

    public static final class Builder {
        private final String name;
        private final String version;
        private String title;
        private String instructions;
        private final Map<String, ToolDefinition<?>> tools = new LinkedHashMap<>();
        private final Map<String, PromptDefinition> prompts = new LinkedHashMap<>();
        private final Map<String, ResourceDefinition> resources = new LinkedHashMap<>();

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
            put(tools, tool.name(), tool);
            return this;
        }

        public Builder prompt(PromptDefinition prompt) {
            put(prompts, prompt.name(), prompt);
            return this;
        }

        public Builder resource(ResourceDefinition resource) {
            put(resources, resource.uri(), resource);
            return this;
        }

        /**
         * Registers every {@link dev.parley.runtime.annotations.Tool @Tool},
         * {@link dev.parley.runtime.annotations.Prompt @Prompt} and
         * {@link dev.parley.runtime.annotations.Resource @Resource} method of {@code handlers}
         * (its class and superclasses only; nothing is scanned), in the order of the methods' names.
         * A method that cannot be a handler is refused here, with its name.
         */
        public Builder annotated(Object handlers) {
            AnnotatedDefinitions.Found found = AnnotatedDefinitions.of(handlers);
            found.tools().forEach(this::tool);
            found.prompts().forEach(this::prompt);
            found.resources().forEach(this::resource);
            return this;
        }

        private static <T> void put(Map<String, T> map, String key, T item) {
            if (map.putIfAbsent(key, item) != null) {
                throw new IllegalArgumentException("duplicate name: " + key);
            }
        }

        /** Fails when a tool names an MCP Apps view the server does not register (the extension requires it). */
        public McpServerDefinition build() {
            for (ToolDefinition<?> tool : tools.values()) {
                tool.ui().ifPresent(ui -> {
                    ResourceDefinition view = resources.get(ui.resourceUri());
                    if (view == null || !view.isAppView()) {
                        throw new IllegalArgumentException("tool " + tool.name() + " names the view " + ui.resourceUri()
                                + ", which is not registered with McpApps.htmlView");
                    }
                });
            }
            return new McpServerDefinition(this);
        }
    }
}
