package com.example.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.testkit.Round;
import dev.parley.testkit.ToolTestKit;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The tool's rounds in a plain unit test: no HTTP, no actors, no journal. */
class TicketToolsTest {
    // snippet: starter_testkit
    @Test
    void opensTheTicketOnceWithTheAnsweredPriority() {
        try (ToolTestKit kit = ToolTestKit.of(TicketTools.definition(), "open_ticket")) {
            Round asked = kit.call(Map.of("title", "Printer on fire"));
            assertEquals(
                    "How urgent is 'Printer on fire'?",
                    asked.question("priority").path("message").asText());
            Round done = kit.answer("priority", Map.of("priority", "urgent"));
            assertTrue(done.text().matches("Opened TKT-\\w{8} \\(urgent\\): Printer on fire\\."), done.text());
            kit.rerun(); // as after a crash or a repeated retry: the step does not run again
            kit.assertStepRanOnce("open");
        }
    }
    // end snippet

    @Test
    void aDeclineOpensNothing() {
        try (ToolTestKit kit = ToolTestKit.of(TicketTools.definition(), "open_ticket")) {
            kit.call(Map.of("title", "Printer on fire"));
            Round declined = kit.decline("priority");
            assertEquals("No ticket opened: the request was declined.", declined.text());
            assertEquals(0, kit.stepRuns("open"));
        }
    }
}
