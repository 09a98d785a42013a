package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.parley.runtime.Json;
import dev.parley.runtime.McpApps;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.annotations.Tool;
import dev.parley.testkit.Round;
import dev.parley.testkit.ToolTestKit;
import java.nio.file.Path;
import java.time.YearMonth;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guide's annotated MCP Apps tool: the demo's app-only {@code venue_calendar}, declared with
 * {@code @Tool(ui = ..., uiVisibility = APP)}, is the same {@code tools/list} entry as the
 * demo's builder-declared one, for clients with and without the extension.
 */
class AnnotatedAppToolTest {
    @TempDir
    Path data;

    /** venue_calendar as an annotated method, over a fixed set of taken dates. */
    static final class CalendarTools {
        private final List<String> taken = List.of("2026-12-24", "2026-12-31", "2027-01-01");

        // snippet: annotated_app_tool
        @Tool(
                name = "venue_calendar",
                title = "Venue calendar",
                description = "The taken dates of one month, for book_venue's calendar view.",
                readOnly = true,
                ui = VenueCalendar.URI,
                uiVisibility = McpApps.Visibility.APP)
        ToolResult venueCalendar(DemoTools.VenueMonth args) {
            YearMonth month = YearMonth.parse(args.month());
            return ToolResult.structured(new DemoTools.MonthAvailability(
                    month.toString(),
                    taken.stream().filter(date -> date.startsWith(month + "-")).toList()));
        }
        // end snippet
    }

    @Test
    void theAnnotatedToolIsListedAsTheBuildersIs() {
        McpServerDefinition annotated = McpServerDefinition.builder("calendar", "1")
                .annotated(new CalendarTools())
                .resource(VenueCalendar.view())
                .build();
        ToolDefinition<?> byAnnotation = annotated.tool("venue_calendar").orElseThrow();
        ToolDefinition<?> byBuilder = new DemoTools(new DemoLedger(data), () -> "http://127.0.0.1:8080")
                .definition()
                .tool("venue_calendar")
                .orElseThrow();
        for (boolean appsDeclared : new boolean[] {true, false}) {
            assertEquals(Json.tree(byBuilder.info(appsDeclared)), Json.tree(byAnnotation.info(appsDeclared)));
            assertEquals(byBuilder.listedFor(appsDeclared), byAnnotation.listedFor(appsDeclared));
        }
        assertEquals(
                VenueCalendar.URI,
                Json.tree(byAnnotation.info(true)).at("/_meta/ui/resourceUri").asText());
        assertFalse(byAnnotation.listedFor(false), "app-only: not listed to a client without MCP Apps");

        try (ToolTestKit kit = ToolTestKit.of(annotated, "venue_calendar")) {
            Round month = kit.call(Map.of("month", "2026-12"));
            assertEquals(
                    "[\"2026-12-24\",\"2026-12-31\"]",
                    month.result().at("/structuredContent/taken").toString(),
                    month.toString());
        }
    }
}
