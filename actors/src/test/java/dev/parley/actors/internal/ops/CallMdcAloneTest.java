package dev.parley.actors.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class CallMdcAloneTest {
    @AfterEach
    void clear() {
        MDC.clear();
    }

    @Test
    void holdsTheCallsFieldsAloneThenGivesBackTheWholeMdc() {
        MDC.put("pekkoSource", "pekko://parley/system/sharding/ToolCall/1/c1");
        MDC.put(CallMdc.ROUND, "7");

        try (CallMdc.Alone scope = CallMdc.alone("tools/call", "greet", "c1", 2, null, "alice")) {
            assertEquals(
                    Map.of(
                            CallMdc.METHOD, "tools/call",
                            CallMdc.TOOL, "greet",
                            CallMdc.CALL_ID, "c1",
                            CallMdc.ROUND, "2",
                            CallMdc.PRINCIPAL, CallMdc.principalDigest("alice")),
                    MDC.getCopyOfContextMap());
        }

        assertEquals(
                Map.of("pekkoSource", "pekko://parley/system/sharding/ToolCall/1/c1", CallMdc.ROUND, "7"),
                MDC.getCopyOfContextMap());
    }

    @Test
    void leavesAnEmptyMdcEmpty() {
        try (CallMdc.Alone scope = CallMdc.alone("tools/call", "greet", null, null, "t1", null)) {
            assertEquals(
                    Map.of(CallMdc.METHOD, "tools/call", CallMdc.TOOL, "greet", CallMdc.TASK_ID, "t1"),
                    MDC.getCopyOfContextMap());
        }
        Map<String, String> after = MDC.getCopyOfContextMap();
        assertTrue(after == null || after.isEmpty(), () -> "left behind: " + after);
    }
}
