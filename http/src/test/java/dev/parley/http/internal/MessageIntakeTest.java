package dev.parley.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.RequestLimits;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The front half HTTP and stdio share: the configured limits, a client's response, the era. */
class MessageIntakeTest {
    private final MessageIntake intake = new MessageIntake(new RequestLimits(6, 100, 10, 100));

    @Test
    void theConfiguredLimitsApplyToRequestsAndToResponses() {
        String deep = "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":1}}}}}}";
        MessageIntake.Incoming request = intake.read(
                bytes("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":" + deep + "}"),
                false,
                false,
                null);
        MessageIntake.Unreadable refused = assertInstanceOf(MessageIntake.Unreadable.class, request);
        assertEquals(ErrorCodes.INVALID_PARAMS, refused.error().code());
        assertTrue(
                refused.error().getMessage().contains("deeper than 6 levels"),
                refused.error().getMessage());
        assertEquals(7, refused.id().asInt());

        MessageIntake.Incoming response =
                intake.read(bytes("{\"jsonrpc\":\"2.0\",\"id\":\"q1\",\"result\":" + deep + "}"), true, true, null);
        assertEquals(
                ErrorCodes.INVALID_PARAMS,
                assertInstanceOf(MessageIntake.Unreadable.class, response)
                        .error()
                        .code());
    }

    @Test
    void aResponseIsAnAnswerOnlyWhereOneMayArrive() {
        byte[] response = bytes("{\"jsonrpc\":\"2.0\",\"id\":\"q1\",\"result\":{\"action\":\"decline\"}}");
        assertInstanceOf(MessageIntake.ClientAnswer.class, intake.read(response, true, true, null));
        assertEquals(
                ErrorCodes.INVALID_REQUEST,
                assertInstanceOf(MessageIntake.Unreadable.class, intake.read(response, false, false, null))
                        .error()
                        .code());
    }

    @Test
    void theEraComesFromTheMetaClaimTheSessionAndInitialize() {
        String claim = "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}";
        assertFalse(era("tools/list", claim, true, null), "a 2026 claim wins even on a session");
        assertTrue(era("tools/list", "{}", true, null), "on a session");
        assertFalse(era("tools/list", "{}", false, null), "no claim, no session: the 2026 gate says what is missing");
        assertTrue(era("initialize", "{}", false, null), "initialize without a version header");
        assertTrue(era("initialize", "{}", false, "2025-06-18"));
        assertFalse(era("initialize", "{}", false, "2026-07-28"), "initialize under a 2026 header is not a session");
    }

    private boolean era(String method, String params, boolean onSession, String versionHeader) {
        MessageIntake.Incoming read = intake.read(
                bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":" + params + "}"),
                false,
                onSession,
                versionHeader);
        return assertInstanceOf(MessageIntake.Message.class, read).legacy();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
