package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.McpException;
import dev.parley.runtime.Principal;
import dev.parley.runtime.internal.wire.Errors;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.McpMethod;
import dev.parley.runtime.internal.wire.McpNames;
import dev.parley.runtime.internal.wire.McpNames.Meta;

/**
 * A request that passed the stateless gate: it names a supported protocol version and declares
 * its client capabilities in {@code params._meta} (spec §5.1). Transport independent.
 */
public record McpRequest(
        JsonNode id,
        String method,
        ObjectNode params,
        String protocolVersion,
        ClientCapabilities capabilities,
        String principal,
        JsonNode progressToken,
        LogLevel logLevel,
        Principal caller,
        String callId,
        String quotaPrincipal) {

    /**
     * {@code quotaPrincipal}: who the request's durable state counts against in
     * {@code parley.quotas} when that is not {@code principal} (the client's address when every
     * caller is anonymous); null: the principal.
     */
    public McpRequest(
            JsonNode id,
            String method,
            ObjectNode params,
            String protocolVersion,
            ClientCapabilities capabilities,
            String principal,
            JsonNode progressToken,
            LogLevel logLevel,
            Principal caller,
            String callId) {
        this(
                id,
                method,
                params,
                protocolVersion,
                capabilities,
                principal,
                progressToken,
                logLevel,
                caller,
                callId,
                null);
    }

    @Override
    public String quotaPrincipal() {
        return quotaPrincipal != null ? quotaPrincipal : principal;
    }

    /** The same request, its durable state counted against {@code quotaPrincipal}. */
    public McpRequest withQuotaPrincipal(String quotaPrincipal) {
        return new McpRequest(
                id,
                method,
                params,
                protocolVersion,
                capabilities,
                principal,
                progressToken,
                logLevel,
                caller,
                callId,
                quotaPrincipal);
    }

    /**
     * {@code callId}: the id the call gets if its first round asks, chosen up front by a transport
     * that must name the call before it exists (a resumable 2025-11-25 stream); null: a fresh one.
     */
    public McpRequest(
            JsonNode id,
            String method,
            ObjectNode params,
            String protocolVersion,
            ClientCapabilities capabilities,
            String principal,
            JsonNode progressToken,
            LogLevel logLevel,
            Principal caller) {
        this(id, method, params, protocolVersion, capabilities, principal, progressToken, logLevel, caller, null);
    }

    /** The same request, its call to be named {@code callId}. */
    public McpRequest withCallId(String callId) {
        return new McpRequest(
                id,
                method,
                params,
                protocolVersion,
                capabilities,
                principal,
                progressToken,
                logLevel,
                caller,
                callId,
                quotaPrincipal);
    }

    /** {@code principal} is the binding key ({@link Principal#id()}); {@code caller} the whole principal. */
    public McpRequest(
            JsonNode id,
            String method,
            ObjectNode params,
            String protocolVersion,
            ClientCapabilities capabilities,
            String principal,
            JsonNode progressToken,
            LogLevel logLevel) {
        this(
                id,
                method,
                params,
                protocolVersion,
                capabilities,
                principal,
                progressToken,
                logLevel,
                Principal.fromId(principal));
    }

    public static McpRequest from(JsonRpc.Message message, String principal) {
        return from(message, Principal.fromId(principal));
    }

    /** Applies the gate: -32602 for missing {@code _meta} keys, -32022 for an unsupported version. */
    public static McpRequest from(JsonRpc.Message message, Principal caller) {
        JsonNode meta = message.params().get("_meta");
        if (meta == null || !meta.isObject()) {
            throw McpException.invalidParams(
                    "Missing params._meta with " + Meta.PROTOCOL_VERSION + " and " + Meta.CLIENT_CAPABILITIES);
        }
        JsonNode version = meta.get(Meta.PROTOCOL_VERSION);
        if (version == null || !version.isTextual()) {
            throw McpException.invalidParams("Missing params._meta[\"" + Meta.PROTOCOL_VERSION + "\"]");
        }
        JsonNode capabilities = meta.get(Meta.CLIENT_CAPABILITIES);
        if (capabilities == null || !capabilities.isObject()) {
            throw McpException.invalidParams("Missing params._meta[\"" + Meta.CLIENT_CAPABILITIES + "\"]");
        }
        if (!McpNames.SUPPORTED_VERSIONS.contains(version.asText())) {
            throw Errors.unsupportedVersion(version.asText());
        }
        JsonNode progressToken = meta.get(Meta.PROGRESS_TOKEN);
        if (progressToken != null && !progressToken.isTextual() && !progressToken.isIntegralNumber()) {
            throw McpException.invalidParams("params._meta.progressToken must be a string or an integer");
        }
        LogLevel logLevel = null;
        JsonNode level = meta.get(Meta.LOG_LEVEL);
        if (level != null) {
            logLevel = LogLevel.fromWire(level.asText())
                    .orElseThrow(() -> McpException.invalidParams(
                            "Unknown log level in params._meta[\"" + Meta.LOG_LEVEL + "\"]: " + level));
        }
        return new McpRequest(
                message.id(),
                message.method(),
                message.params(),
                version.asText(),
                ClientCapabilities.of(capabilities),
                caller.id(),
                progressToken,
                logLevel,
                caller);
    }

    /**
     * A request on a 2025-11-25 session: what {@code _meta} carries on the stateless wire comes from
     * the session (version, capabilities, log level); a progress token may still be in {@code _meta}.
     */
    public static McpRequest onSession(
            JsonRpc.Message message,
            String principal,
            String protocolVersion,
            ObjectNode capabilities,
            LogLevel logLevel) {
        JsonNode progressToken = message.params().path("_meta").get(Meta.PROGRESS_TOKEN);
        if (progressToken != null && !progressToken.isTextual() && !progressToken.isIntegralNumber()) {
            throw McpException.invalidParams("params._meta.progressToken must be a string or an integer");
        }
        return new McpRequest(
                message.id(),
                message.method(),
                message.params(),
                protocolVersion,
                ClientCapabilities.of(capabilities),
                principal,
                progressToken,
                logLevel);
    }

    /** Whether the reply should be a stream (progress or log notifications may precede it). */
    public boolean wantsNotifications() {
        return progressToken != null || logLevel != null;
    }

    /** What the request's method is and may do; null for a method Parley does not know. */
    public McpMethod descriptor() {
        return McpMethod.of(method);
    }

    /**
     * The name of what the request is about (a tool's or prompt's name, a resource's uri, a task
     * id), from the param its method's {@link McpMethod.Target} names; -32602 when it is missing,
     * empty or not a string.
     */
    public String target() {
        McpMethod descriptor = descriptor();
        String param = descriptor == null ? null : descriptor.target().param();
        if (param == null) {
            throw new IllegalStateException(method + " names no target");
        }
        String value = stringParam(param);
        if (value == null || value.isEmpty()) {
            throw McpException.invalidParams("params." + param + " is required");
        }
        return value;
    }

    /** A string member of params, or null when absent; -32602 when present with another type. */
    public String stringParam(String name) {
        JsonNode value = params.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw McpException.invalidParams("params." + name + " must be a string");
        }
        return value.asText();
    }

    /** An object member of params, or null when absent; -32602 when present with another type. */
    public ObjectNode objectParam(String name) {
        JsonNode value = params.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw McpException.invalidParams("params." + name + " must be an object");
        }
        return (ObjectNode) value;
    }
}
