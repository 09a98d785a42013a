package dev.parley.examples;

import dev.parley.runtime.McpApps;
import dev.parley.runtime.ResourceDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** book_venue's MCP Apps view: a month of the venue's calendar, free and taken days marked. */
final class VenueCalendar {
    static final String URI = "ui://parley-demo/venue-calendar";
    private static final String HTML = load();

    private VenueCalendar() {}

    // snippet: venue_calendar_view
    static ResourceDefinition view() {
        return McpApps.htmlView(URI, "venue_calendar")
                .title("Venue calendar")
                .description("The month of the date asked for, with the venue's free and taken days.")
                .prefersBorder(true)
                .html(() -> HTML);
    }
    // end snippet

    private static String load() {
        try (InputStream in = VenueCalendar.class.getResourceAsStream("/apps/venue-calendar.html")) {
            if (in == null) {
                throw new IllegalStateException("apps/venue-calendar.html is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
