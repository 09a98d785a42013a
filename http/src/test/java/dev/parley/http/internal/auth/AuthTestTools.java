package dev.parley.http.internal.auth;

import dev.parley.runtime.Description;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.Principal;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/** The server the authorization tests talk to: tools with and without scopes, a multi-round tool, a task. */
final class AuthTestTools {
    /** How often {@code greet}'s journaled step really ran. */
    final AtomicInteger greetings = new AtomicInteger();

    record NoArgs() {}

    record GreetArgs(@Description("How to greet") String greeting) {}

    McpServerDefinition definition() {
        return McpServerDefinition.builder("parley-auth-tests", "0.0.1")
                .tool(ToolDefinition.tool("whoami", NoArgs.class)
                        .description("Says who the caller is.")
                        .handler((args, ctx) -> ToolResult.text(describe(ctx.principal()))))
                .tool(ToolDefinition.tool("book", NoArgs.class)
                        .description("Books something; needs venue:book.")
                        .requiredScopes("venue:book")
                        .handler((args, ctx) ->
                                ToolResult.text("booked for " + ctx.principal().subject())))
                .tool(ToolDefinition.tool("greet", GreetArgs.class)
                        .description("Asks for a name, then greets.")
                        .handler((args, ctx) -> {
                            ElicitAnswer answer = ctx.elicit(
                                    "who",
                                    Elicitation.form("Who are you?")
                                            .field("name", FormField.string("Your name"))
                                            .build());
                            if (!(answer instanceof ElicitAnswer.Accepted accepted)) {
                                return ToolResult.text("no greeting");
                            }
                            int number = ctx.step("greet", Integer.class, greetings::incrementAndGet);
                            return ToolResult.text(args.greeting() + ", " + accepted.string("name") + " #" + number);
                        }))
                .tool(ToolDefinition.tool("confirm_whoami", NoArgs.class)
                        .description("Asks for a confirmation, then says who the caller is.")
                        .handler((args, ctx) -> {
                            ctx.elicit(
                                    "ok",
                                    Elicitation.form("Go on?")
                                            .field("ok", FormField.bool("Go on"))
                                            .build());
                            return ToolResult.text(describe(ctx.principal()));
                        }))
                .tool(ToolDefinition.tool("approve_job", NoArgs.class)
                        .description("Runs as a task that waits for an approval.")
                        .taskSupport(TaskSupport.OPTIONAL)
                        .handler((args, ctx) -> {
                            ctx.becomeTask();
                            ElicitAnswer answer = ctx.elicit(
                                    "approve",
                                    Elicitation.form("Approve the job?")
                                            .field("ok", FormField.bool("Approve"))
                                            .build());
                            return ToolResult.text(
                                    answer instanceof ElicitAnswer.Accepted ? "approved" : "not approved");
                        }))
                .prompt(PromptDefinition.prompt("invoice_summary")
                        .description("Summarises invoices; needs invoice:write.")
                        .requiredScopes("invoice:write")
                        .handler((arguments, ctx) -> PromptDefinition.Result.of(PromptDefinition.Message.user(
                                dev.parley.runtime.Content.text("Summarise the invoices.")))))
                .build();
    }

    /** {@code id | client | sorted scopes} */
    static String describe(Principal principal) {
        return principal.id() + " | " + principal.clientId() + " | "
                + String.join(" ", new TreeSet<>(principal.scopes()));
    }
}
