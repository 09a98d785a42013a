package dev.parley.runtime.internal.annotations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.Content;
import dev.parley.runtime.Description;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.ResourceContents;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.ToolAnnotations;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.annotations.Arg;
import dev.parley.runtime.annotations.Prompt;
import dev.parley.runtime.annotations.Resource;
import dev.parley.runtime.annotations.Tool;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Annotated handlers become the builder's definitions; methods that cannot be handlers are refused. */
class AnnotatedDefinitionsTest {
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final ReplayEngine engine = new ReplayEngine(executor);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    record Booking(
            @Description("Event date") LocalDate date,
            @Description("Guests") int guests) {}

    static final class Handlers {
        @Tool(
                name = "book",
                title = "Book",
                description = "Books a date.",
                scopes = "venue:book",
                taskSupport = TaskSupport.OPTIONAL)
        ToolResult book(Booking booking, CallContext ctx) {
            return ToolResult.text(booking.date() + " for " + booking.guests() + " ("
                    + ctx.principal().id() + ")");
        }

        @Tool(name = "check", description = "Checks a date.", readOnly = true)
        String check(
                @Arg(value = "date", description = "Event date") LocalDate date, @Arg("note") Optional<String> note) {
            return "free on " + date + note.map(n -> " (" + n + ")").orElse("");
        }

        @Tool
        String count(@Arg("n") int n) {
            return String.valueOf(n);
        }

        @Prompt(name = "greeting", description = "Greets someone.")
        PromptDefinition.Result greeting(
                @Arg(value = "name", description = "Who") String name, @Arg("mood") Optional<String> mood) {
            return PromptDefinition.Result.of(PromptDefinition.Message.user(
                    Content.text("Hello " + name + mood.map(m -> ", " + m).orElse(""))));
        }

        @Resource(uri = "demo://reports/{id}", name = "report", mimeType = "text/plain")
        String report(@Arg("id") String id) {
            return "report " + id;
        }
    }

    private static ToolDefinition<Booking> builderBook() {
        return ToolDefinition.tool("book", Booking.class)
                .title("Book")
                .description("Books a date.")
                .requiredScopes("venue:book")
                .taskSupport(TaskSupport.OPTIONAL)
                .handler((args, ctx) -> ToolResult.text("unused"));
    }

    private ObjectNode run(CallTarget target, String arguments) throws Exception {
        RunOutcome outcome = engine.run(
                        target,
                        Json.parse(arguments),
                        RunEnvironment.of("alice", ClientCapabilities.of(Json.object())),
                        CallHistory.EMPTY,
                        StepJournal.NONE)
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        return assertInstanceOf(RunOutcome.Completed.class, outcome).result();
    }

    @Test
    void aRecordToolIsTheBuilderTool() {
        McpServerDefinition server =
                McpServerDefinition.builder("t", "1").annotated(new Handlers()).build();
        ToolDefinition<?> book = server.tool("book").orElseThrow();
        assertEquals(builderBook().infoJson(), book.infoJson());
        assertEquals(Set.of("venue:book"), book.requiredScopes());
        assertEquals(TaskSupport.OPTIONAL, book.taskSupport());
    }

    @Test
    void argParametersMakeTheSchemaARecordWouldMake() throws Exception {
        record Check(@Description("Event date") LocalDate date, Optional<String> note) {}
        McpServerDefinition server =
                McpServerDefinition.builder("t", "1").annotated(new Handlers()).build();
        ToolDefinition<?> check = server.tool("check").orElseThrow();
        assertEquals(
                ToolDefinition.tool("check", Check.class)
                        .handler((a, c) -> null)
                        .inputSchema(),
                check.inputSchema());
        assertEquals(Json.tree(ToolAnnotations.readOnly()), check.infoJson().get("annotations"));
        assertEquals(
                "free on 2026-12-24 (big)",
                run(check, "{\"date\":\"2026-12-24\",\"note\":\"big\"}")
                        .path("content")
                        .get(0)
                        .path("text")
                        .asText());
        assertEquals(
                "free on 2026-12-24",
                run(check, "{\"date\":\"2026-12-24\"}")
                        .path("content")
                        .get(0)
                        .path("text")
                        .asText());
        ObjectNode invalid = run(check, "{\"date\":\"2026-13-45\"}");
        assertTrue(invalid.path("isError").asBoolean(), invalid.toString());
        assertTrue(
                invalid.path("content")
                        .get(0)
                        .path("text")
                        .asText()
                        .startsWith("Invalid arguments for tool check: /date"),
                invalid.toString());
        // Fits the schema (an integer) but not the parameter (an int): the same clear words as a record tool.
        ToolDefinition<?> count = server.tool("count").orElseThrow();
        ObjectNode overflow = run(count, "{\"n\":99999999999}");
        assertTrue(overflow.path("isError").asBoolean(), overflow.toString());
        assertEquals(
                "Invalid arguments for tool count: the value at /n does not fit the tool's argument type",
                overflow.path("content").get(0).path("text").asText());
        assertEquals(
                "3", run(count, "{\"n\":3}").path("content").get(0).path("text").asText());
    }

    @Test
    void promptsAndResourcesRunThroughTheEngine() throws Exception {
        McpServerDefinition server =
                McpServerDefinition.builder("t", "1").annotated(new Handlers()).build();
        PromptDefinition greeting = server.prompt("greeting").orElseThrow();
        assertEquals(
                Json.parse("{\"name\":\"greeting\",\"description\":\"Greets someone.\",\"arguments\":["
                        + "{\"name\":\"name\",\"description\":\"Who\",\"required\":true},{\"name\":\"mood\"}]}"),
                greeting.info());
        assertEquals(
                "Hello Ada",
                run(greeting, "{\"name\":\"Ada\"}")
                        .path("messages")
                        .get(0)
                        .path("content")
                        .path("text")
                        .asText());
        CallTarget report = server.target("resources/read", "demo://reports/7").orElseThrow();
        assertEquals(
                Json.tree(List.of(ResourceContents.text("demo://reports/7", "text/plain", "report 7"))),
                run(report, "{}").get("contents"));
    }

    static final class Unmarked {
        String nothing() {
            return "";
        }
    }

    static final class BadParameter {
        @Tool
        String take(String unannotated) {
            return unannotated;
        }
    }

    static final class BadReturn {
        @Tool
        int count() {
            return 1;
        }
    }

    static final class BothStyles {
        @Tool
        String both(Booking booking, @Arg("x") String x) {
            return x;
        }
    }

    static final class UnknownVariable {
        @Resource(uri = "demo://x/{id}")
        String read(@Arg("name") String name) {
            return name;
        }
    }

    @Test
    void methodsThatCannotBeHandlersAreRefusedWithTheirNames() {
        assertRefused(new Unmarked(), "has no @Tool, @Prompt or @Resource method");
        assertRefused(new BadParameter(), "BadParameter.take: parameter");
        assertRefused(new BadReturn(), "BadReturn.count: a @Tool method returns ToolResult or String");
        assertRefused(new BothStyles(), "BothStyles.both: take the arguments either as one record");
        assertRefused(new UnknownVariable(), "@Arg(\"name\") is not a variable of demo://x/{id}");
    }

    private static void assertRefused(Object handlers, String message) {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> McpServerDefinition.builder("t", "1").annotated(handlers));
        assertTrue(refused.getMessage().contains(message), refused.getMessage());
    }
}
