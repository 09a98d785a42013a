package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Results;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A resource ({@code resources/list}, {@code resources/read}): either one fixed URI, or a URI
 * template such as {@code test://template/{id}/data} ({@code resources/templates/list}) whose
 * variables the handler receives. Reads follow the same re-run contract as tool calls.
 */
public final class ResourceDefinition {
    private static final Pattern VARIABLE = Pattern.compile("\\{([A-Za-z0-9_]+)}");

    private final String uriOrTemplate;
    private final boolean template;
    private final Pattern matcher;
    private final List<String> variables;
    private final String name;
    private final String title;
    private final String description;
    private final String mimeType;
    private final Map<String, Completer> completers;
    private final ResourceHandler handler;

    /** What a read receives: the URI asked for and the template variables it matched. */
    public record ReadRequest(String uri, Map<String, String> variables) {}

    @FunctionalInterface
    public interface ResourceHandler {
        List<ResourceContents> read(ReadRequest request, CallContext context) throws Exception;
    }

    private final java.util.Set<String> requiredScopes;
    private final McpApps.ViewUi view;

    private ResourceDefinition(Builder builder, ResourceHandler handler) {
        this.view = builder.view;
        this.uriOrTemplate = builder.uriOrTemplate;
        this.template = builder.template;
        this.name = builder.name;
        this.title = builder.title;
        this.description = builder.description;
        this.mimeType = builder.mimeType;
        this.completers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.completers));
        this.handler = handler;
        this.requiredScopes = builder.requiredScopes;
        Matcher variable = VARIABLE.matcher(uriOrTemplate);
        StringBuilder regex = new StringBuilder();
        List<String> names = new java.util.ArrayList<>();
        int last = 0;
        while (variable.find()) {
            regex.append(Pattern.quote(uriOrTemplate.substring(last, variable.start())))
                    .append("([^/?#]+)");
            names.add(variable.group(1));
            last = variable.end();
        }
        regex.append(Pattern.quote(uriOrTemplate.substring(last)));
        this.matcher = Pattern.compile(regex.toString());
        this.variables = List.copyOf(names);
        if (template == variables.isEmpty()) {
            throw new IllegalArgumentException(
                    template
                            ? "resource template " + uriOrTemplate + " has no {variable}"
                            : "resource URI " + uriOrTemplate + " contains a {variable}; register it as a template");
        }
    }

    /** A resource with one fixed URI. */
    public static Builder resource(String uri, String name) {
        return new Builder(uri, false, name);
    }

    /** A family of resources named by an RFC 6570 level-1 template, e.g. {@code file:///{path}}. */
    public static Builder template(String uriTemplate, String name) {
        return new Builder(uriTemplate, true, name);
    }

    /** OAuth scopes a caller needs for this resource; empty when only the server-wide ones apply. */
    public java.util.Set<String> requiredScopes() {
        return requiredScopes;
    }

    /** True for an MCP Apps view, shown only to clients that declare {@link McpApps#EXTENSION}. */
    public boolean isAppView() {
        return view != null;
    }

    public boolean isTemplate() {
        return template;
    }

    /** The URI, or the URI template. */
    public String uri() {
        return uriOrTemplate;
    }

    public Optional<Completer> completer(String variable) {
        return Optional.ofNullable(completers.get(variable));
    }

    /** The variables {@code uri} binds, or empty when this resource does not serve it. */
    public Optional<Map<String, String>> match(String uri) {
        Matcher match = matcher.matcher(uri);
        if (!match.matches()) {
            return Optional.empty();
        }
        Map<String, String> bound = new LinkedHashMap<>();
        for (int i = 0; i < variables.size(); i++) {
            bound.put(variables.get(i), match.group(i + 1));
        }
        return Optional.of(bound);
    }

    /** The {@code resources/list} or {@code resources/templates/list} entry. */
    public ObjectNode info() {
        ObjectNode info = Json.object()
                .put(template ? "uriTemplate" : "uri", uriOrTemplate)
                .put("name", name);
        if (title != null) {
            info.put("title", title);
        }
        if (description != null) {
            info.put("description", description);
        }
        if (mimeType != null) {
            info.put("mimeType", mimeType);
        }
        if (view != null) {
            info.putObject("_meta").set("ui", Json.tree(view));
        }
        return info;
    }

    /** The call target that reads {@code uri} (which this resource matches). */
    public CallTarget readerOf(String uri) {
        Map<String, String> bound =
                match(uri).orElseThrow(() -> new IllegalArgumentException(uri + " is not " + uriOrTemplate));
        return new CallTarget() {
            @Override
            public String method() {
                return Methods.RESOURCES_READ;
            }

            @Override
            public String name() {
                return uri;
            }

            @Override
            public CompletionStage<ObjectNode> invoke(
                    ObjectNode arguments, CallContext context, Executor blockingExecutor) {
                return BlockingHandlers.run(
                        () -> {
                            List<ResourceContents> contents = handler.read(new ReadRequest(uri, bound), context);
                            ObjectNode wire = Results.complete();
                            wire.set(
                                    "contents",
                                    Json.tree(Objects.requireNonNull(contents, "resource handler returned null")));
                            return wire;
                        },
                        blockingExecutor);
            }

            @Override
            public ObjectNode resultForFailure(String reference, String detail) {
                return null;
            }
        };
    }

    public static final class Builder {
        private final String uriOrTemplate;
        private final boolean template;
        private final String name;
        private String title;
        private String description;
        private String mimeType;
        private java.util.Set<String> requiredScopes = java.util.Set.of();
        private final Map<String, Completer> completers = new LinkedHashMap<>();
        private McpApps.ViewUi view;

        private Builder(String uriOrTemplate, boolean template, String name) {
            this.uriOrTemplate = Objects.requireNonNull(uriOrTemplate, "uri");
            this.template = template;
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

        public Builder mimeType(String mimeType) {
            this.mimeType = mimeType;
            return this;
        }

        /** Suggests values for a template variable in {@code completion/complete}. */
        public Builder completion(String variable, Completer completer) {
            completers.put(variable, completer);
            return this;
        }

        /**
         * OAuth scopes a caller's token must carry to use this resource (with authorization on): a
         * token without them gets the 403 step-up challenge, and lists leave the resource out.
         */
        public Builder requiredScopes(String... scopes) {
            this.requiredScopes = RequiredScopes.of(scopes);
            return this;
        }

        /** Marks the resource as an MCP Apps view ({@link McpApps#htmlView} does this). */
        Builder view(McpApps.ViewUi view) {
            this.view = view;
            return this;
        }

        /** The handler runs on the tool executor. */
        public ResourceDefinition handler(ResourceHandler handler) {
            return new ResourceDefinition(this, Objects.requireNonNull(handler));
        }
    }
}
