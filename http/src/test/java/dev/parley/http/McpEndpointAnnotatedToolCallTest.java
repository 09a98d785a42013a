package dev.parley.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolDefinition;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every {@code tools/call} wire test of {@link McpEndpointToolCallTest}, against the same tools
 * declared with annotations ({@link AnnotatedTestTools}): an annotated tool is a builder tool.
 */
class McpEndpointAnnotatedToolCallTest extends McpEndpointToolCallTest {

    /** Hides the builder-declared start of the parent class. */
    @BeforeAll
    static void start() {
        startWith(new TestTools(true));
    }

    @Test
    void theAnnotatedToolsListExactlyAsTheBuilderTools() {
        assertEquals(listed(new TestTools(false)), listed(new TestTools(true)));
    }

    private static Map<String, String> listed(TestTools tools) {
        Map<String, String> entries = new TreeMap<>();
        for (ToolDefinition<?> tool : tools.definition().tools()) {
            ObjectNode info = tool.infoJson();
            entries.put(tool.name(), Json.canonical(info));
        }
        return entries;
    }
}
