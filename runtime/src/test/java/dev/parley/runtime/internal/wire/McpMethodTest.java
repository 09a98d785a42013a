package dev.parley.runtime.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.McpMethod.Era;
import dev.parley.runtime.internal.wire.McpMethod.Target;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class McpMethodTest {

    /** Every client-to-server request name in {@link Methods} has a descriptor that the 2026 wire serves. */
    @Test
    void everyRequestMethodOfTheStatelessWireHasADescriptor() throws IllegalAccessException {
        List<String> serverToClient =
                List.of(Methods.ELICITATION_CREATE, Methods.SAMPLING_CREATE_MESSAGE, Methods.ROOTS_LIST);
        for (Field field : Methods.class.getFields()) {
            String name = (String) field.get(null);
            if (!Modifier.isStatic(field.getModifiers())
                    || name.startsWith("notifications/")
                    || serverToClient.contains(name)) {
                continue;
            }
            assertNotNull(McpMethod.of(name), name);
            assertTrue(McpMethod.of(name).era().modern(), name);
        }
    }

    @Test
    void theFactsTheEdgeAuthAndRoutesRead() {
        assertEquals(Target.TOOL, McpMethod.TOOLS_CALL.target());
        assertTrue(McpMethod.TOOLS_CALL.mayAsk());
        assertTrue(McpMethod.TOOLS_CALL.mayBecomeTask());
        assertFalse(McpMethod.PROMPTS_GET.mayBecomeTask());
        assertEquals("uri", McpMethod.RESOURCES_READ.target().param());
        assertTrue(McpMethod.RESOURCES_READ.cacheable());
        assertFalse(McpMethod.TOOLS_CALL.cacheable());
        assertEquals("taskId", McpMethod.TASKS_GET.target().param());
        assertEquals(Era.LEGACY, McpMethod.INITIALIZE.era());
        assertFalse(McpMethod.SERVER_DISCOVER.era().legacy());
        assertEquals(
                List.of(McpMethod.TOOLS_CALL, McpMethod.PROMPTS_GET, McpMethod.RESOURCES_READ),
                Arrays.stream(McpMethod.values()).filter(McpMethod::mayAsk).toList());
    }

    @Test
    void anUnknownMethodHasNoDescriptorAndOneSharedLabel() {
        assertNull(McpMethod.of("tools/cal"));
        assertNull(McpMethod.of(null));
        assertEquals(McpMethod.OTHER_LABEL, McpMethod.labelOf("tools/cal"));
        assertEquals("tasks/list", McpMethod.labelOf("tasks/list"));
    }

    @Test
    void theTargetIsReadOnlyWhenItIsAString() {
        assertEquals("book", McpMethod.TOOLS_CALL.targetIn(Json.object().put("name", "book")));
        assertNull(McpMethod.TOOLS_CALL.targetIn(Json.object().put("name", 7)));
        assertNull(McpMethod.RESOURCES_READ.targetIn(Json.object().put("name", "x")));
        assertNull(McpMethod.TOOLS_LIST.targetIn(Json.object().put("name", "x")));
    }
}
