package dev.parley.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.http.HttpSettings;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.internal.wire.McpMethod;
import dev.parley.runtime.internal.wire.McpNames.Meta;
import java.math.BigInteger;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;

/**
 * The checks only Streamable HTTP has (spec §6.2): Host and Origin, {@code Accept}, and the
 * standard headers that repeat the body ({@code MCP-Protocol-Version}, {@code Mcp-Method},
 * {@code Mcp-Name}, {@code Mcp-Param-*}). A header failure is a {@code -32020} {@link McpException}.
 */
final class EdgeChecks {
    private static final String BASE64_PREFIX = "=?base64?";
    private static final String BASE64_SUFFIX = "?=";

    private final HttpSettings settings;
    private final McpServerDefinition server;

    EdgeChecks(HttpSettings settings, McpServerDefinition server) {
        this.settings = settings;
        this.server = server;
    }

    /**
     * The first header named {@code lowerCaseName}, as pekko-http's {@code getHeader(String)} finds
     * it, without lower-casing the name again on every call.
     */
    static Optional<HttpHeader> header(HttpRequest request, String lowerCaseName) {
        for (HttpHeader header : request.getHeaders()) {
            if (header.is(lowerCaseName)) {
                return Optional.of(header);
            }
        }
        return Optional.empty();
    }

    boolean hostAndOriginAllowed(HttpRequest request) {
        return hostAllowed(request) && originAllowed(request);
    }

    static boolean acceptsJson(HttpRequest request) {
        Optional<HttpHeader> accept = header(request, "accept");
        if (accept.isEmpty()) {
            return true;
        }
        String value = accept.get().value().toLowerCase(Locale.ROOT);
        return value.contains("application/json") || value.contains("*/*") || value.contains("application/*");
    }

    static boolean acceptsEventStream(HttpRequest request) {
        Optional<HttpHeader> accept = header(request, "accept");
        return accept.isEmpty()
                || accept.get().value().toLowerCase(Locale.ROOT).contains("text/event-stream")
                || accept.get().value().contains("*/*");
    }

    /**
     * {@code MCP-Protocol-Version} must repeat the body's {@code _meta} version. Checked before the
     * gate judges that version, so a mismatch is -32020 even when the body names a version we do
     * not support (spec §6.3; conformance {@code sep-2575-http-server-header-mismatch-400}). A body
     * without a version string is left to the gate (-32602).
     */
    static void checkVersionHeader(HttpRequest http, ObjectNode params) {
        JsonNode version = params.path("_meta").get(Meta.PROTOCOL_VERSION);
        if (version != null && version.isTextual()) {
            expectHeader(http, "mcp-protocol-version", version.asText());
        }
    }

    /** Standard headers must repeat the body (spec §6.2); values compare exactly after trimming. */
    void checkHeaders(HttpRequest http, McpRequest request) {
        expectHeader(http, "mcp-method", request.method());
        McpMethod method = request.descriptor();
        if (method == null || !method.era().modern() || method.target() == McpMethod.Target.NONE) {
            return;
        }
        expectHeader(
                http,
                "mcp-name",
                textOrEmpty(request.params().get(method.target().param())));
        if (method.target() == McpMethod.Target.TOOL) {
            checkParameterHeaders(http, request);
        }
    }

    /**
     * {@code Mcp-Param-*} headers (spec §6.2): each tool argument whose input-schema property
     * carries {@code x-mcp-header} must be repeated in its header when present in the body; an
     * argument that is null or absent has no header.
     */
    private void checkParameterHeaders(HttpRequest http, McpRequest request) {
        ToolDefinition<?> tool = server.tool(textOrEmpty(request.params().get(McpMethod.Target.TOOL.param())))
                .orElse(null);
        if (tool == null) {
            return;
        }
        JsonNode arguments = request.params().path("arguments");
        for (Map.Entry<String, JsonNode> property :
                tool.inputSchema().path("properties").properties()) {
            JsonNode headerName = property.getValue().get("x-mcp-header");
            if (headerName == null || !headerName.isTextual()) {
                continue;
            }
            String header = "mcp-param-" + headerName.asText().toLowerCase(Locale.ROOT);
            JsonNode value = arguments.get(property.getKey());
            Optional<String> sent = header(http, header).map(HttpHeader::value).map(String::trim);
            if (value == null || value.isNull()) {
                if (sent.isPresent()) {
                    throw new McpException(
                            ErrorCodes.HEADER_MISMATCH, "Header " + header + " given for an absent argument");
                }
                continue;
            }
            if (sent.isEmpty()) {
                throw new McpException(ErrorCodes.HEADER_MISMATCH, "Missing required header " + header);
            }
            if (!sameValue(decodeHeaderValue(header, sent.get()), value)) {
                throw new McpException(
                        ErrorCodes.HEADER_MISMATCH, "Header " + header + " does not match the request body");
            }
        }
    }

    /** Integers compare numerically, booleans as true/false, strings exactly. */
    private static boolean sameValue(String header, JsonNode value) {
        if (value.isIntegralNumber()) {
            try {
                return new BigInteger(header).equals(value.bigIntegerValue());
            } catch (NumberFormatException e) {
                return false;
            }
        }
        return value.isValueNode() && header.equals(value.asText());
    }

    private static void expectHeader(HttpRequest http, String header, String expected) {
        Optional<String> value = header(http, header).map(HttpHeader::value).map(String::trim);
        if (value.isEmpty()) {
            throw new McpException(ErrorCodes.HEADER_MISMATCH, "Missing required header " + header);
        }
        if (!decodeHeaderValue(header, value.get()).equals(expected)) {
            throw new McpException(ErrorCodes.HEADER_MISMATCH, "Header " + header + " does not match the request body");
        }
    }

    /**
     * A value that is not header-safe arrives as {@code =?base64?<base64 of UTF-8>?=} (spec §6.2);
     * the server decodes it before comparing. Values without the wrapper are literal. Invalid
     * base64 or UTF-8 inside the wrapper is refused.
     */
    private static String decodeHeaderValue(String header, String value) {
        if (!value.startsWith(BASE64_PREFIX)
                || !value.endsWith(BASE64_SUFFIX)
                || value.length() < BASE64_PREFIX.length() + BASE64_SUFFIX.length()) {
            return value;
        }
        String encoded = value.substring(BASE64_PREFIX.length(), value.length() - BASE64_SUFFIX.length());
        try {
            if (encoded.length() % 4 != 0) {
                throw new IllegalArgumentException("base64 without its padding");
            }
            byte[] bytes = Base64.getDecoder().decode(encoded);
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (IllegalArgumentException | CharacterCodingException e) {
            throw new McpException(ErrorCodes.HEADER_MISMATCH, "Header " + header + " has an invalid base64 value");
        }
    }

    private static String textOrEmpty(JsonNode node) {
        return node != null && node.isTextual() ? node.asText() : "";
    }

    private boolean hostAllowed(HttpRequest request) {
        String host = request.getUri().host().address();
        Optional<HttpHeader> header = header(request, "host");
        if (header.isPresent()) {
            host = hostWithoutPort(header.get().value().trim());
        }
        return settings.allowedHosts().contains(host.toLowerCase(Locale.ROOT));
    }

    private boolean originAllowed(HttpRequest request) {
        Optional<HttpHeader> origin = header(request, "origin");
        if (origin.isEmpty()) {
            return true;
        }
        try {
            String host = URI.create(origin.get().value().trim()).getHost();
            return host != null && settings.allowedOriginHosts().contains(host.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String hostWithoutPort(String host) {
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? host : host.substring(0, end + 1);
        }
        int colon = host.indexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
