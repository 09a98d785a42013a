package dev.parley.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrincipalTest {
    @Test
    void theIdIsIssuerAndSubjectAndReadsBack() {
        Principal alice =
                new Principal("https://as.example", "alice#1", "app", Set.of("a", "b"), Map.of("sub", "alice#1"));

        assertEquals("https://as.example#alice#1", alice.id());
        Principal back = Principal.fromId(alice.id());
        assertEquals("https://as.example", back.issuer());
        assertEquals("alice#1", back.subject());
        assertTrue(alice.hasScopes(Set.of("a", "b")));
        assertFalse(alice.hasScopes(Set.of("a", "c")));
    }

    @Test
    void anonymousKeepsTheBindingKeyOfAServerWithoutAuthorization() {
        assertEquals("anonymous", Principal.ANONYMOUS.id());
        assertSame(Principal.ANONYMOUS, Principal.fromId("anonymous"));
        assertEquals("alice", Principal.fromId("alice").id());
    }

    @Test
    void requiredScopesMustBeScopeTokens() {
        assertEquals(
                Set.of("venue:book"),
                ToolDefinition.tool("t", Record.class)
                        .requiredScopes("venue:book")
                        .handler((args, ctx) -> ToolResult.text(""))
                        .requiredScopes());
        assertThrows(
                IllegalArgumentException.class,
                () -> ToolDefinition.tool("t", Record.class).requiredScopes("two words"));
        assertThrows(
                IllegalArgumentException.class,
                () -> ToolDefinition.tool("t", Record.class).requiredScopes("quote\""));
    }

    record Record() {}
}
