package dev.parley.actors.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class CallMdcScopeTest {
    @AfterEach
    void clear() {
        MDC.clear();
    }

    @Test
    void onAnEmptyMdcSetsTheFieldsThenLeavesItEmpty() {
        try (CallMdc.Scope scope = CallMdc.openOnRequestThread("tools/call", "greet", null, 1, null, "alice")) {
            assertEquals(
                    Map.of(
                            CallMdc.METHOD, "tools/call",
                            CallMdc.TOOL, "greet",
                            CallMdc.ROUND, "1",
                            CallMdc.PRINCIPAL, CallMdc.principalDigest("alice")),
                    MDC.getCopyOfContextMap());
        }
        Map<String, String> after = MDC.getCopyOfContextMap();
        assertTrue(after == null || after.isEmpty(), () -> "left behind: " + after);
    }

    @Test
    void besideOtherFieldsKeepsThemAndGivesBackTheCallsOwn() {
        MDC.put("pekkoSource", "pekko://parley/user/c1");
        MDC.put(CallMdc.CALL_ID, "outer");
        MDC.put(CallMdc.ROUND, "3");

        try (CallMdc.Scope scope = CallMdc.openOnRequestThread("tools/call", "greet", "inner", null, "t1", null)) {
            assertEquals(
                    Map.of(
                            "pekkoSource",
                            "pekko://parley/user/c1",
                            CallMdc.METHOD,
                            "tools/call",
                            CallMdc.TOOL,
                            "greet",
                            CallMdc.CALL_ID,
                            "inner",
                            CallMdc.TASK_ID,
                            "t1"),
                    MDC.getCopyOfContextMap());
        }

        assertEquals(
                Map.of("pekkoSource", "pekko://parley/user/c1", CallMdc.CALL_ID, "outer", CallMdc.ROUND, "3"),
                MDC.getCopyOfContextMap());
    }
}
