package dev.parley.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.annotations.Tool;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The MCP Apps part of the author API: views, tools that name them, and what a server checks. */
class McpAppsTest {
    record NoArgs() {}

    private static ResourceDefinition view(String uri) {
        return McpApps.htmlView(uri, "view").html(() -> "<!DOCTYPE html><html></html>");
    }

    private static ToolDefinition.Builder<NoArgs> tool(String name) {
        return ToolDefinition.tool(name, NoArgs.class);
    }

    @Test
    void aViewNeedsAUiUri() {
        assertThrows(IllegalArgumentException.class, () -> McpApps.htmlView("https://example.com/x", "x"));
        assertThrows(IllegalArgumentException.class, () -> McpApps.htmlView("ui://", "x"));
        assertThrows(IllegalArgumentException.class, () -> tool("t").ui("file:///view.html"));
    }

    @Test
    void aViewIsListedWithItsMimeTypeAndMeta() {
        ResourceDefinition view = McpApps.htmlView("ui://app/view", "view")
                .prefersBorder(false)
                .csp(new McpApps.Csp(List.of("https://api.example.com"), null, null, null))
                .html(() -> "<!DOCTYPE html>");
        assertTrue(view.isAppView());
        ObjectNode info = view.info();
        assertEquals("text/html;profile=mcp-app", info.path("mimeType").asText());
        assertEquals(
                "{\"csp\":{\"connectDomains\":[\"https://api.example.com\"]},\"prefersBorder\":false}",
                info.at("/_meta/ui").toString());
        assertFalse(ResourceDefinition.resource("file:///a", "a")
                .handler((r, c) -> List.of())
                .isAppView());
    }

    @Test
    void aToolShowsItsViewOnlyToAClientThatDeclaredTheExtension() {
        ToolDefinition<NoArgs> shown = tool("shown").ui("ui://app/view").handler((a, c) -> ToolResult.text("x"));
        JsonNode declared = Json.tree(shown.info(true));
        assertEquals("ui://app/view", declared.at("/_meta/ui/resourceUri").asText());
        assertFalse(declared.at("/_meta/ui").has("visibility"), "the default visibility is left to the host");
        assertFalse(Json.tree(shown.info(false)).has("_meta"));
        assertTrue(shown.listedFor(false));

        ToolDefinition<NoArgs> appOnly =
                tool("app_only").ui("ui://app/view", McpApps.Visibility.APP).handler((a, c) -> ToolResult.text("x"));
        assertEquals(
                "[\"app\"]",
                Json.tree(appOnly.info(true)).at("/_meta/ui/visibility").toString());
        assertFalse(appOnly.listedFor(false), "an app-only tool is for clients with MCP Apps");
        assertTrue(appOnly.listedFor(true));
    }

    @Test
    void aServerRefusesAToolWhoseViewIsNotRegistered() {
        ToolDefinition<NoArgs> orphan = tool("orphan").ui("ui://app/missing").handler((a, c) -> ToolResult.text("x"));
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> McpServerDefinition.builder("s", "1").tool(orphan).build());
        assertTrue(refused.getMessage().contains("ui://app/missing"), refused.getMessage());

        McpServerDefinition server = McpServerDefinition.builder("s", "1")
                .tool(tool("t").ui("ui://app/view").handler((a, c) -> ToolResult.text("x")))
                .resource(view("ui://app/view"))
                .build();
        assertTrue(server.hasAppViews());
        assertFalse(McpServerDefinition.builder("s", "1").build().hasAppViews());
    }

    /** Annotated twins of the builder's tools above. */
    static final class AnnotatedViews {
        @Tool(description = "Has a view.", ui = "ui://app/view")
        String shown() {
            return "x";
        }

        @Tool(description = "Called by its view only.", ui = "ui://app/view", uiVisibility = McpApps.Visibility.APP)
        String app_only() {
            return "x";
        }

        @Tool(description = "No view.")
        String plain() {
            return "x";
        }
    }

    static final class VisibilityWithoutView {
        @Tool(uiVisibility = McpApps.Visibility.APP)
        String lost() {
            return "x";
        }
    }

    static final class OrphanView {
        @Tool(ui = "ui://app/missing")
        String orphan() {
            return "x";
        }
    }

    @Test
    void anAnnotatedToolNamesItsViewAsTheBuilderDoes() {
        McpServerDefinition server = McpServerDefinition.builder("s", "1")
                .annotated(new AnnotatedViews())
                .resource(view("ui://app/view"))
                .build();
        ToolDefinition<?> shown = server.tool("shown").orElseThrow();
        ToolDefinition<?> appOnly = server.tool("app_only").orElseThrow();
        ToolDefinition<NoArgs> shownByBuilder =
                tool("shown").description("Has a view.").ui("ui://app/view").handler((a, c) -> ToolResult.text("x"));
        ToolDefinition<NoArgs> appOnlyByBuilder = tool("app_only")
                .description("Called by its view only.")
                .ui("ui://app/view", McpApps.Visibility.APP)
                .handler((a, c) -> ToolResult.text("x"));
        for (boolean declared : new boolean[] {true, false}) {
            assertEquals(Json.tree(shownByBuilder.info(declared)), Json.tree(shown.info(declared)));
            assertEquals(Json.tree(appOnlyByBuilder.info(declared)), Json.tree(appOnly.info(declared)));
            assertEquals(appOnlyByBuilder.listedFor(declared), appOnly.listedFor(declared));
        }
        assertEquals(List.of(McpApps.Visibility.APP), appOnly.ui().orElseThrow().visibility());
        assertFalse(appOnly.listedFor(false), "an app-only tool is for clients with MCP Apps");
        assertTrue(server.tool("plain").orElseThrow().ui().isEmpty());
    }

    @Test
    void anAnnotatedToolsViewIsCheckedAsTheBuildersIs() {
        IllegalArgumentException lost = assertThrows(
                IllegalArgumentException.class,
                () -> McpServerDefinition.builder("s", "1").annotated(new VisibilityWithoutView()));
        assertTrue(lost.getMessage().contains("uiVisibility"), lost.getMessage());
        assertTrue(lost.getMessage().contains("lost"), "names the method: " + lost.getMessage());
        IllegalArgumentException notRegistered = assertThrows(
                IllegalArgumentException.class,
                () -> McpServerDefinition.builder("s", "1")
                        .annotated(new OrphanView())
                        .build());
        assertTrue(notRegistered.getMessage().contains("ui://app/missing"), notRegistered.getMessage());
        IllegalArgumentException web = assertThrows(
                IllegalArgumentException.class,
                () -> McpServerDefinition.builder("s", "1").annotated(new Object() {
                    @Tool(ui = "https://example.com/view")
                    String web() {
                        return "x";
                    }
                }));
        assertTrue(web.getMessage().contains("needs a ui:// URI"), web.getMessage());
    }
}
