package dev.parley.peer;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.modern.McpSchema.CallToolOutcome;
import io.modelcontextprotocol.modern.McpSchema.CallToolRequest;
import io.modelcontextprotocol.modern.McpSchema.CallToolResult;
import io.modelcontextprotocol.modern.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.modern.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.modern.McpSchema.ElicitResult;
import io.modelcontextprotocol.modern.McpSchema.Implementation;
import io.modelcontextprotocol.modern.McpSchema.InputRequiredResult;
import io.modelcontextprotocol.modern.McpSchema.TextContent;
import io.modelcontextprotocol.modern.McpSchema.Tool;
import io.modelcontextprotocol.modern.server.HmacRequestStateCodec;
import io.modelcontextprotocol.modern.server.InputResponses;
import io.modelcontextprotocol.modern.server.McpRequestContext;
import io.modelcontextprotocol.modern.server.McpServer;
import io.modelcontextprotocol.modern.server.McpSyncResponse;
import io.modelcontextprotocol.modern.server.feature.McpSyncTool;
import io.modelcontextprotocol.modern.server.feature.McpSyncToolRepository;
import io.modelcontextprotocol.modern.server.feature.ToolsFeature;
import io.modelcontextprotocol.modern.server.feature.ToolsPage;
import io.modelcontextprotocol.modern.server.transport.HttpServletMcpTransport;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import jakarta.servlet.http.HttpServlet;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;

/**
 * The official MCP Java SDK 2.2.0 server (its 2026-07-28 API, {@code io.modelcontextprotocol.modern})
 * on embedded Tomcat, offering the two Parley fixture tools that {@code benchmarks/compare.sh}
 * measures, with the same names, arguments and answers:
 *
 * <ul>
 *   <li>{@code test_simple_text}: no arguments, one text block;
 *   <li>{@code test_input_required_result_elicitation}: asks for a name (form elicitation under the
 *       key {@code user_name}), answers {@code Hello, NAME!} on the retry.
 * </ul>
 *
 * The SDK keeps nothing between the rounds: the handler's plain {@code requestState} is sealed
 * (HMAC-SHA256) into the {@code input_required} result and opened again on the retry. Parley
 * journals both rounds instead; that difference is what the comparison measures.
 *
 * <p>With {@code --protocol 2025-11-25} it serves the same tools on the SDK's 2025-11-25 server
 * instead ({@link SessionPeer}): sessions in memory, the question an {@code elicitation/create} on
 * the call's stream.
 *
 * <p>Usage: {@code java -cp 'target/peer-java-sdk-0.1.0.jar:target/lib/*' dev.parley.peer.JavaSdkPeer
 * --port N [--protocol 2026-07-28|2025-11-25]} ({@code 0}: a free port). Binds 127.0.0.1, endpoint
 * {@code /mcp}.
 */
public final class JavaSdkPeer {

    static final String SIMPLE_TEXT = "This is a simple text response for testing.";
    private static final String NAME_KEY = "user_name";
    // The state handed out with round 1; the SDK checks its seal before the handler sees it again.
    private static final String ASKED_FOR_NAME = "asked:user_name";

    private static final Map<String, Object> NO_ARGUMENTS = Map.of("type", "object", "properties", Map.of());
    private static final Map<String, Object> NAME_FORM = Map.of(
            "type", "object", "properties", Map.of("name", Map.of("type", "string")), "required", List.of("name"));

    private static final McpJsonMapper JSON = McpJsonDefaults.getMapper();
    private static final String USAGE = "usage: JavaSdkPeer --port N [--protocol 2026-07-28|2025-11-25]";

    private JavaSdkPeer() {}

    public static void main(String[] args) throws Exception {
        int port = -1;
        boolean sessions = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--protocol") && i + 1 < args.length) {
                String protocol = args[++i];
                if (!protocol.equals("2026-07-28") && !protocol.equals("2025-11-25")) {
                    throw new IllegalArgumentException("--protocol 2026-07-28 or 2025-11-25, not " + protocol);
                }
                sessions = protocol.equals("2025-11-25");
            } else {
                throw new IllegalArgumentException(USAGE + " (unknown argument " + args[i] + ")");
            }
        }
        if (port < 0) {
            throw new IllegalArgumentException(USAGE + " (--port 0: a free port)");
        }
        serve(port, sessions ? SessionPeer.servlet() : statelessServlet());
    }

    /** The 2026-07-28 server: the tools answer input_required and keep nothing between the rounds. */
    private static HttpServletMcpTransport statelessServlet() {
        Tool simpleText = Tool.builder("test_simple_text", NO_ARGUMENTS)
                .description("Returns a simple text response")
                .build();
        Tool askName = Tool.builder("test_input_required_result_elicitation", NO_ARGUMENTS)
                .description("Asks for the user's name (key user_name)")
                .build();
        // Like Parley, a client that cannot answer a form elicitation is refused before the handler runs.
        ClientCapabilities formElicitation = ClientCapabilities.builder()
                .elicitation(new ClientCapabilities.Elicitation(new ClientCapabilities.Elicitation.Form(), null))
                .build();
        Map<String, McpSyncTool> tools = Map.of(
                simpleText.name(), McpSyncTool.of(simpleText, JavaSdkPeer::simpleText),
                askName.name(), McpSyncTool.of(askName, formElicitation, JavaSdkPeer::askName));
        List<Tool> listed = List.of(simpleText, askName);

        McpSyncToolRepository repository = new McpSyncToolRepository() {
            @Override
            public ToolsPage list(McpRequestContext ctx, String cursor) {
                return ToolsPage.of(listed);
            }

            @Override
            public McpSyncTool find(McpRequestContext ctx, String name) {
                return tools.get(name);
            }
        };

        byte[] stateKey = new byte[32];
        new SecureRandom().nextBytes(stateKey);
        McpServer server = McpServer.builder()
                .serverInfo(Implementation.builder("parley-benchmarks-java-sdk-peer", "0.1.0")
                        .build())
                .feature(ToolsFeature.ofSync(repository))
                .requestStateCodec(HmacRequestStateCodec.builder()
                        .key(stateKey)
                        .ttl(Duration.ofMinutes(10))
                        .build())
                .build();

        // Loopback Host names only, as Parley's fixture server accepts by default.
        return HttpServletMcpTransport.builder(server)
                .endpoint("/mcp")
                .httpHeaderValidator(DefaultServerTransportSecurityValidator.builder()
                        .allowedHosts(List.of("127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*"))
                        .build())
                .build();
    }

    /** Serves {@code transport} at {@code /mcp} on embedded Tomcat, 127.0.0.1:{@code port}, until the JVM ends. */
    private static void serve(int port, HttpServlet transport) throws Exception {
        Path baseDir = Files.createTempDirectory("parley-peer-java-sdk-");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        tomcat.getConnector().setPort(port);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        // Keep-alive connections are never closed by request count (Tomcat's default closes after 100),
        // as Parley's pekko-http does not close them either.
        tomcat.getConnector().setProperty("maxKeepAliveRequests", "-1");
        Context context = tomcat.addContext("", baseDir.toString());
        Wrapper servlet = context.createWrapper();
        servlet.setName("mcp");
        servlet.setServlet(transport);
        servlet.setLoadOnStartup(1);
        servlet.setAsyncSupported(true);
        context.addChild(servlet);
        context.addServletMappingDecoded("/*", "mcp");

        tomcat.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                tomcat.stop();
                tomcat.destroy();
            } catch (Exception e) {
                // the JVM is going away; nothing left to report to
            }
        }));
        // compare.sh reads the port from this line (with --port 0 it is the one the system chose)
        System.out.println("java-sdk peer ready: http://127.0.0.1:"
                + tomcat.getConnector().getLocalPort() + "/mcp");
        tomcat.getServer().await();
    }

    private static McpSyncResponse<CallToolOutcome> simpleText(McpRequestContext ctx, CallToolRequest request) {
        return McpSyncResponse.result(text(SIMPLE_TEXT));
    }

    /** Round 1 asks; the retry, carrying the state handed out and an answer under user_name, greets. */
    private static McpSyncResponse<CallToolOutcome> askName(McpRequestContext ctx, CallToolRequest request) {
        ElicitResult answer = ASKED_FOR_NAME.equals(request.requestState())
                ? InputResponses.get(request.inputResponses(), NAME_KEY, ElicitResult.class, JSON)
                : null;
        if (answer == null) {
            return McpSyncResponse.result(InputRequiredResult.builder()
                    .elicit(NAME_KEY, ElicitFormRequest.builder("What is your name?", NAME_FORM).build())
                    .requestState(ASKED_FOR_NAME)
                    .build());
        }
        if (answer.action() != ElicitResult.Action.ACCEPT || answer.content() == null) {
            return McpSyncResponse.result(text("No name given: " + answer.action().name().toLowerCase()));
        }
        return McpSyncResponse.result(text("Hello, " + answer.content().get("name") + "!"));
    }

    private static CallToolResult text(String text) {
        return CallToolResult.builder()
                .addContent(TextContent.builder(text).build())
                .build();
    }
}
