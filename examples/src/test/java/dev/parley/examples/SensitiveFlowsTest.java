package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpAssertions.assertResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.Description;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.NotASecret;
import dev.parley.runtime.Title;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.UnsafeQuestionException;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.testing.McpTestClient;
import dev.parley.testkit.Round;
import dev.parley.testkit.ToolTestKit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The elicitation safety rules seen from outside: a secret asked in a form fails the start-up
 * when the form is declared, and ends the call with an error (the client sees no form) when the
 * form is built at run time; no tool the examples ship trips them.
 */
class SensitiveFlowsTest {
    @TempDir
    Path data;

    public record Shop(@Description("The shop to connect") String shop) {}

    // snippet: elicitation_safety
    /** A customer number looks like an "account number" to the check; it is no secret, and says why. */
    public record Customer(
            @Title("Customer account number")
            @NotASecret("printed on every invoice: it names the customer, it proves nothing")
            String accountNumber) {}

    ToolDefinition<Shop> connectShop(String settingsPageUrl) {
        return ToolDefinition.tool("connect_shop", Shop.class)
                .asks(Customer.class) // checked here, at registration: a form that asks for a secret fails the start-up
                .handler((args, ctx) -> {
                    String customer = ctx.elicit(
                                    "customer",
                                    Elicitation.form("Your customer number at " + args.shop() + "?", Customer.class))
                            .orElseReturn(no -> ToolResult.text("Not connected: the question was " + no + "."))
                            .accountNumber();
                    // The shop's API key is a secret: never a form field. The user enters it on our own
                    // page, which stores it; the client only sees the link.
                    ctx.elicit(
                                    "api_key",
                                    Elicitation.url(
                                            "Enter the API key of " + args.shop() + " on the settings page.",
                                            settingsPageUrl + "/" + customer))
                            .orElseReturn(no -> ToolResult.text("Not connected: the key page was " + no + "."));
                    return ToolResult.text("Connected " + args.shop() + " for customer " + customer + ".");
                });
    }
    // end snippet

    public record SignIn(
            @Title("User name") String user,
            @Title("Password") String password) {}

    public record Mailbox(@Description("imap or hosted") String kind) {}

    /** Builds its form at run time, from what the mailbox kind needs: the IMAP form asks for a password. */
    static ToolDefinition<Mailbox> connectMailbox() {
        return ToolDefinition.tool("connect_mailbox", Mailbox.class).handler((args, ctx) -> {
            List<String> fields =
                    args.kind().equals("imap") ? List.of("server", "user", "password") : List.of("address");
            Elicitation.Form.Builder form = Elicitation.form("Connect your " + args.kind() + " mailbox");
            fields.forEach(field -> form.field(field, FormField.string(field)));
            ctx.elicit("mailbox", form.build());
            return ToolResult.text("connected");
        });
    }

    @Test
    void aDeclaredFormThatAsksForASecretFailsTheStartUp() {
        UnsafeQuestionException refused = assertThrows(
                UnsafeQuestionException.class,
                () -> McpServerDefinition.builder("shop", "1")
                        .tool(ToolDefinition.tool("sign_in", Shop.class)
                                .asks(SignIn.class)
                                .handler((args, ctx) -> ToolResult.text("never")))
                        .build());
        assertEquals("password", refused.field());
        assertTrue(
                refused.getMessage()
                        .startsWith("tool sign_in, form SignIn: form field 'password' asks for a secret: its name"
                                + " \"password\" names \"password\""),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("Elicitation.url(...)"), refused.getMessage());
    }

    @Test
    void aFormBuiltAtRunTimeThatAsksForASecretIsNeverSent() {
        Logger engineLog = (Logger) LoggerFactory.getLogger(ReplayEngine.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        engineLog.addAppender(logged);
        McpServerDefinition definition = McpServerDefinition.builder("shop", "1")
                .tool(connectMailbox())
                .tool(connectShop("https://settings.example/connect"))
                .build();
        try (McpHttpServer server =
                McpHttpServer.builder(definition).dataDirectory(data).port(0).start()) {
            McpTestClient client = new McpTestClient(server.port());

            // The same tool asks its form when the form is safe ...
            ObjectNode hosted = client.toolCall("connect_mailbox", Json.object().put("kind", "hosted"));
            JsonNode asked = assertInputRequired(client.send(hosted), hosted);
            assertEquals(
                    "address",
                    requestedSchema(asked, "mailbox").path("required").path(0).asText());

            // ... and ends the call with a plain error when it asks for a password: no form goes out.
            ObjectNode imap = client.toolCall("connect_mailbox", Json.object().put("kind", "imap"));
            McpTestClient.Reply reply = client.send(imap);
            JsonNode result = assertResult(reply, imap, "CallToolResult");
            assertEquals("complete", result.path("resultType").asText());
            assertTrue(result.path("isError").asBoolean(), result.toString());
            assertFalse(result.has("inputRequests"), result.toString());
            assertFalse(reply.body().contains("password"), reply.body());
            Matcher reference = Pattern.compile("Tool connect_mailbox failed \\(reference (\\w+)\\)")
                    .matcher(result.path("content").path(0).path("text").asText());
            assertTrue(reference.matches(), result.toString());

            // The author's log says what and how to fix it, under the reference the client got.
            List<String> errors = logged.list.stream()
                    .filter(event -> event.getLevel() == ch.qos.logback.classic.Level.ERROR)
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
            assertEquals(1, errors.size(), errors.toString());
            assertTrue(errors.get(0).contains("tools/call connect_mailbox"), errors.get(0));
            assertTrue(errors.get(0).contains("(reference " + reference.group(1) + ")"), errors.get(0));
            assertTrue(errors.get(0).contains("form field 'password' asks for a secret"), errors.get(0));
            assertTrue(errors.get(0).contains("Elicitation.url(...)"), errors.get(0));

            // The right way round: the customer number in a form (marked as no secret), the key on a page.
            ObjectNode shop = client.toolCall("connect_shop", Json.object().put("shop", "lamps"));
            JsonNode customer = assertInputRequired(client.send(shop), shop);
            assertEquals(
                    "Customer account number",
                    requestedSchema(customer, "customer")
                            .path("properties")
                            .path("accountNumber")
                            .path("title")
                            .asText());
            assertFalse(customer.toString().contains("proves nothing"), "the reason stays on the server");
        } finally {
            engineLog.detachAppender(logged);
        }
    }

    private static JsonNode requestedSchema(JsonNode inputRequired, String key) {
        return inputRequired.path("inputRequests").path(key).path("params").path("requestedSchema");
    }

    @Test
    void theKitReportsTheOptOutWithItsReason() {
        try (ToolTestKit kit = ToolTestKit.of(connectShop("https://settings.example/connect"))) {
            kit.call(new Shop("lamps")).question("customer");
            Round key = kit.answer("customer", new Customer("C-1042"));
            assertEquals("url", key.question("api_key").path("mode").asText());
            assertEquals(
                    List.of("question 'customer', field 'accountNumber' is marked as no secret: printed on every"
                            + " invoice: it names the customer, it proves nothing"),
                    kit.notSecrets());
        }
    }

    /**
     * Every tool and prompt of the demo and of the conformance fixture server, driven with the test
     * kit through its questions (forms answered with values that fit them, URL questions accepted):
     * the kit fails any round that builds a question the rules refuse.
     */
    @Test
    void noShippedToolTripsTheRules() {
        DemoTools demo = new DemoTools(new DemoLedger(data), () -> "http://127.0.0.1:8080");
        Set<String> asked = new LinkedHashSet<>();
        for (McpServerDefinition server : List.of(demo.definition(), new FixtureServer().definition())) {
            List<CallTarget> targets = new ArrayList<>(server.tools());
            targets.addAll(server.prompts());
            for (CallTarget target : targets) {
                ObjectNode arguments =
                        target instanceof ToolDefinition<?> tool ? fitting(tool.inputSchema(), true) : Json.object();
                try (ToolTestKit kit = ToolTestKit.of(target)) {
                    asked.addAll(drive(kit, target.name(), arguments));
                }
            }
        }
        // book_venue declares its form, so the start-up checked it too.
        assertEquals(
                List.of(DemoTools.AlternativeDate.class),
                demo.definition().tool("book_venue").orElseThrow().forms().stream()
                        .map(Elicitation.TypedForm::answerType)
                        .toList());
        // The driver reached the forms and URL questions: the demo's, then the fixtures'.
        for (String key : List.of(
                "schedule_release/window",
                "create_invoice/currency",
                "book_venue/alternative_date",
                "book_venue/deposit_1",
                "publish_report/approval",
                "test_input_required_result_elicitation/user_name",
                "test_input_required_result_multi_round/step2",
                "test_elicitation/response",
                "test_elicitation_sep1034_defaults/defaults",
                "test_elicitation_sep1330_enums/enums",
                "confirm_delete/confirm",
                "multi_input/name",
                "test_input_required_result_prompt/user_context")) {
            assertTrue(asked.contains(key), key + " not reached; reached " + asked);
        }
    }

    /** Runs a call through up to six rounds; returns "target/question" for every question it asked. */
    private static Set<String> drive(ToolTestKit kit, String target, ObjectNode arguments) {
        Set<String> asked = new LinkedHashSet<>();
        Round round = kit.call(arguments);
        for (int i = 0; i < 6 && round.asks(); i++) {
            round.questions().keySet().forEach(key -> asked.add(target + "/" + key));
            Map.Entry<String, JsonNode> question =
                    round.questions().entrySet().iterator().next();
            String mode = question.getValue().path("mode").asText();
            if (mode.equals("form")) {
                round = kit.answer(
                        question.getKey(), fitting(question.getValue().path("requestedSchema"), false));
            } else if (mode.equals("url")) {
                round = kit.accept(question.getKey());
            } else {
                break; // sampling or roots: no elicitation follows in the examples
            }
        }
        return asked;
    }

    /**
     * Values that fit an object schema's properties (only its required ones for {@code onlyRequired}):
     * the default, else the first choice, else a value of the type; dates are a taken demo date, so
     * book_venue asks for another.
     */
    private static ObjectNode fitting(JsonNode schema, boolean onlyRequired) {
        Set<String> required = new LinkedHashSet<>();
        schema.path("required").forEach(name -> required.add(name.asText()));
        ObjectNode values = Json.object();
        for (Iterator<Map.Entry<String, JsonNode>> fields =
                        schema.path("properties").fields();
                fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (!onlyRequired || required.contains(field.getKey())) {
                values.set(field.getKey(), fittingValue(field.getValue()));
            }
        }
        return values;
    }

    private static JsonNode fittingValue(JsonNode property) {
        if (property.has("default")) {
            return property.get("default");
        }
        if (property.has("enum")) {
            return property.path("enum").get(0);
        }
        if (property.has("oneOf")) {
            return property.path("oneOf").get(0).get("const");
        }
        return switch (property.path("type").asText()) {
            case "integer", "number" -> Json.tree(1);
            case "boolean" -> Json.tree(true);
            case "array" -> Json.MAPPER.createArrayNode().add(fittingValue(choices(property.path("items"))));
            case "object" -> Json.object();
            default ->
                Json.tree(
                        switch (property.path("format").asText()) {
                            case "date" -> "2026-12-24";
                            case "date-time" -> "2026-12-24T10:00:00Z";
                            case "email" -> "someone@example.org";
                            case "uri" -> "https://example.org/";
                            default -> "x";
                        });
        };
    }

    /** An array's items: a titled multi-select's {@code anyOf} read as a choice of its constants. */
    private static JsonNode choices(JsonNode items) {
        if (!items.has("anyOf")) {
            return items;
        }
        ObjectNode single = Json.object();
        single.putArray("enum").add(items.path("anyOf").get(0).get("const"));
        return single;
    }
}
