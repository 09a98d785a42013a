package dev.parley.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * MCP Apps ({@value #EXTENSION}, SEP-1865): a tool can name an HTML view, a {@code ui://}
 * resource, that a host able to render it shows beside the tool's result. The view is a resource
 * like any other; the tool points at it through {@code _meta.ui.resourceUri}. Both are shown only
 * to clients that declare the extension: other clients see the tool without {@code _meta.ui}, do
 * not see app-only tools or the view in their lists, and get "resource not found" when they read it.
 *
 * <pre>{@code
 * ResourceDefinition calendar = McpApps.htmlView("ui://demo/calendar", "calendar")
 *     .title("Calendar").prefersBorder(true)
 *     .html(() -> CALENDAR_HTML);
 * ToolDefinition.tool("check_availability", Args.class).ui("ui://demo/calendar").handler(...);
 * }</pre>
 */
public final class McpApps {
    /** The extension's identifier in {@code capabilities.extensions}. */
    public static final String EXTENSION = "io.modelcontextprotocol/ui";
    /** The MIME type of an HTML view. */
    public static final String HTML_MIME_TYPE = "text/html;profile=mcp-app";
    /** The URI scheme every view uses. */
    public static final String SCHEME = "ui://";

    private McpApps() {}

    /** Who may call a tool that has a view: the model (the agent) and/or the view itself. */
    public enum Visibility {
        MODEL("model"),
        APP("app");

        private final String wire;

        Visibility(String wire) {
            this.wire = wire;
        }

        @JsonValue
        public String wire() {
            return wire;
        }
    }

    /** A tool's {@code _meta.ui}: the view that renders its results, and who may call it. */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record ToolUi(String resourceUri, List<Visibility> visibility) {
        public ToolUi {
            requireViewUri(resourceUri);
            visibility = visibility == null ? List.of() : List.copyOf(visibility);
        }

        /** Visible to the model unless the visibility leaves it out (the default is both). */
        public boolean modelVisible() {
            return visibility.isEmpty() || visibility.contains(Visibility.MODEL);
        }
    }

    /** The origins a view may reach; none by default (the host's restrictive policy). */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record Csp(
            List<String> connectDomains,
            List<String> resourceDomains,
            List<String> frameDomains,
            List<String> baseUriDomains) {
        public Csp {
            connectDomains = connectDomains == null ? List.of() : List.copyOf(connectDomains);
            resourceDomains = resourceDomains == null ? List.of() : List.copyOf(resourceDomains);
            frameDomains = frameDomains == null ? List.of() : List.copyOf(frameDomains);
            baseUriDomains = baseUriDomains == null ? List.of() : List.copyOf(baseUriDomains);
        }
    }

    /** A view's {@code _meta.ui}: its content security policy and border preference. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ViewUi(Csp csp, Boolean prefersBorder) {}

    /** Starts an HTML view at {@code uri}, which must begin with {@code ui://}. */
    public static ViewBuilder htmlView(String uri, String name) {
        return new ViewBuilder(requireViewUri(uri), Objects.requireNonNull(name, "name"));
    }

    static String requireViewUri(String uri) {
        if (uri == null || !uri.startsWith(SCHEME) || uri.length() == SCHEME.length()) {
            throw new IllegalArgumentException("an MCP Apps view needs a ui:// URI, got " + uri);
        }
        return uri;
    }

    /** Builds the {@link ResourceDefinition} of one HTML view. */
    public static final class ViewBuilder {
        private final ResourceDefinition.Builder resource;
        private final String uri;
        private Csp csp;
        private Boolean prefersBorder;

        private ViewBuilder(String uri, String name) {
            this.uri = uri;
            this.resource = ResourceDefinition.resource(uri, name).mimeType(HTML_MIME_TYPE);
        }

        public ViewBuilder title(String title) {
            resource.title(title);
            return this;
        }

        public ViewBuilder description(String description) {
            resource.description(description);
            return this;
        }

        /** Origins the view needs; without this call it may reach none. */
        public ViewBuilder csp(Csp csp) {
            this.csp = csp;
            return this;
        }

        public ViewBuilder prefersBorder(boolean prefersBorder) {
            this.prefersBorder = prefersBorder;
            return this;
        }

        public ViewBuilder requiredScopes(String... scopes) {
            resource.requiredScopes(scopes);
            return this;
        }

        /** The view's HTML document, produced on each read (it may be a constant). */
        public ResourceDefinition html(Supplier<String> document) {
            Objects.requireNonNull(document, "document");
            ViewUi ui = new ViewUi(csp, prefersBorder);
            Map<String, Object> meta = Map.of("ui", ui);
            return resource.view(ui)
                    .handler((request, context) ->
                            List.of(new ResourceContents.Text(uri, HTML_MIME_TYPE, document.get(), meta)));
        }
    }
}
