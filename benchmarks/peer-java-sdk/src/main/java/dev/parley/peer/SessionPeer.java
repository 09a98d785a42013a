package dev.parley.peer;

import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The same two tools on the SDK's 2025-11-25 server: stateful sessions ({@code Mcp-Session-Id}) in
 * memory, each call's response an SSE stream. {@code test_input_required_result_elicitation} asks
 * for the name with an {@code elicitation/create} request on the call's stream and waits for the
 * client's answer POST, as a 2025-11-25 host is asked. The session lives in this JVM only.
 */
final class SessionPeer {
    private static final Map<String, Object> NO_ARGUMENTS = Map.of("type", "object", "properties", Map.of());
    private static final Map<String, Object> NAME_FORM = Map.of(
            "type", "object", "properties", Map.of("name", Map.of("type", "string")), "required", List.of("name"));

    private SessionPeer() {}

    /** The servlet serving the session endpoint {@code /mcp}; the server behind it stays up with the JVM. */
    static HttpServletStreamableServerTransportProvider servlet() {
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .mcpEndpoint("/mcp")
                .securityValidator(DefaultServerTransportSecurityValidator.builder()
                        .allowedHosts(List.of("127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*"))
                        .build())
                .build();
        McpSyncServer server = McpServer.sync(transport)
                .serverInfo("parley-benchmarks-java-sdk-peer", "0.1.0")
                .capabilities(ServerCapabilities.builder().tools(false).build())
                .requestTimeout(Duration.ofSeconds(30))
                .tools(
                        SyncToolSpecification.builder()
                                .tool(Tool.builder("test_simple_text", NO_ARGUMENTS)
                                        .description("Returns a simple text response")
                                        .build())
                                .callHandler((exchange, request) -> text(JavaSdkPeer.SIMPLE_TEXT))
                                .build(),
                        SyncToolSpecification.builder()
                                .tool(Tool.builder("test_input_required_result_elicitation", NO_ARGUMENTS)
                                        .description("Asks for the user's name")
                                        .build())
                                .callHandler((exchange, request) -> {
                                    ElicitResult answer = exchange.createElicitation(
                                            ElicitRequest.builder("What is your name?", NAME_FORM)
                                                    .build());
                                    return answer.action() == ElicitResult.Action.ACCEPT && answer.content() != null
                                            ? text("Hello, " + answer.content().get("name") + "!")
                                            : text("No name given: "
                                                    + answer.action().name().toLowerCase());
                                })
                                .build())
                .build();
        return transport;
    }

    private static CallToolResult text(String text) {
        return CallToolResult.builder().addTextContent(text).build();
    }
}
