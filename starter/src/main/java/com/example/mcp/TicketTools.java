package com.example.mcp;

import dev.parley.runtime.Description;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.Title;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The tools of this server: replace them with your own. */
public final class TicketTools {
    private static final Logger log = LoggerFactory.getLogger(TicketTools.class);

    // snippet: starter_definition
    public static McpServerDefinition definition() {
        return McpServerDefinition.builder("my-mcp-server", "0.1.0")
                .title("My MCP server")
                .instructions("open_ticket asks for a priority, then opens a ticket.")
                .tool(openTicket())
                .build();
    }
    // end snippet

    public record OpenTicket(@Description("What the ticket is about") String title) {}

    public enum Priority {
        low,
        normal,
        urgent
    }

    public record PriorityAnswer(@Title("Priority") Priority priority) {}

    // snippet: starter_tool
    static ToolDefinition<OpenTicket> openTicket() {
        return ToolDefinition.tool("open_ticket", OpenTicket.class)
                .title("Open a ticket")
                .description("Asks for a priority, then opens the ticket.")
                .handler((args, ctx) -> {
                    // Round 1 ends here with a question; the answer's round re-runs the handler from the top.
                    PriorityAnswer answer = ctx.elicit(
                                    "priority",
                                    Elicitation.form("How urgent is '" + args.title() + "'?", PriorityAnswer.class))
                            .orElseReturn(no -> ToolResult.text("No ticket opened: the request was " + no + "."));
                    // A journaled step runs once per call, however often the handler is re-run
                    // (a retry, a crash between rounds); its key stays the same.
                    String ticket = ctx.step("open", String.class, key -> {
                        String id = "TKT-" + key.substring(0, 8);
                        log.info("opened ticket {} ({}): {}", id, answer.priority(), args.title());
                        return id;
                    });
                    return ToolResult.text(
                            "Opened " + ticket + " (" + answer.priority() + "): " + args.title() + ".");
                });
    }
    // end snippet
}
