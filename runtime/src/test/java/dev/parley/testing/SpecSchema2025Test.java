package dev.parley.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.parley.runtime.Json;
import org.junit.jupiter.api.Test;

/** The 2025-11-25 validator accepts what that revision allows and refuses what it does not. */
class SpecSchema2025Test {
    @Test
    void validMessagesPass() {
        SpecSchema2025.assertValidServerMessage(
                Json.parse(
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}"),
                "tools/call");
        SpecSchema2025.assertValidServerMessage(
                Json.parse("{\"jsonrpc\":\"2.0\",\"id\":\"who.x\",\"method\":\"elicitation/create\","
                        + "\"params\":{\"mode\":\"form\",\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":"
                        + "{\"name\":{\"type\":\"string\"}}}}}"),
                "tools/call");
        SpecSchema2025.assertValidServerMessage(
                Json.parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"bad\"}}"),
                "tools/call");
    }

    @Test
    void invalidMessagesFail() {
        assertThrows(
                AssertionError.class,
                () -> SpecSchema2025.assertValidServerMessage(
                        Json.parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\"}}"),
                        "tools/call"),
                "a CallToolResult needs content");
        assertThrows(
                AssertionError.class,
                () -> SpecSchema2025.assertValidServerMessage(
                        Json.parse(
                                "{\"jsonrpc\":\"2.0\",\"id\":\"k.x\",\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\"}}"),
                        "tools/call"),
                "an elicitation needs its message and schema");
        assertThrows(
                AssertionError.class,
                () -> SpecSchema2025.assertValidServerMessage(
                        Json.parse("{\"jsonrpc\":\"2.0\",\"method\":\"subscriptions/acknowledged\",\"params\":{}}"),
                        "tools/call"),
                "a 2026-only notification");
    }
}
