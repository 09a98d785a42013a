package dev.parley.runtime.internal.wire;

import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import java.util.List;
import java.util.Map;

/** JSON-RPC errors whose {@code data} the spec defines, with typed data (spec §5.2, §5.4, §9). */
public final class Errors {
    private Errors() {}

    /** {@code data} of -32022. */
    public record UnsupportedVersionData(List<String> supported, String requested) {}

    /** {@code data} of -32021: an object keyed by the missing capabilities. */
    public record MissingCapabilityData(Map<String, Object> requiredCapabilities) {}

    /** {@code data} of a -32602 for a resource that does not exist. */
    public record ResourceNotFoundData(String uri) {}

    public static McpException unsupportedVersion(String requested) {
        return new McpException(
                ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version: " + requested,
                Json.tree(new UnsupportedVersionData(McpNames.SUPPORTED_VERSIONS, requested)));
    }

    /** -32021 naming the tasks extension, for requests that did not declare it. */
    public static McpException tasksExtensionRequired() {
        return new McpException(
                ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
                "Missing required client capability",
                Json.tree(new MissingCapabilityData(
                        Map.of("extensions", Map.of(McpNames.Meta.TASKS_EXTENSION, Map.of())))));
    }

    public static McpException resourceNotFound(String uri) {
        return new McpException(
                ErrorCodes.INVALID_PARAMS, "Resource not found", Json.tree(new ResourceNotFoundData(uri)));
    }

    public static McpException methodNotFound(String method) {
        return new McpException(ErrorCodes.METHOD_NOT_FOUND, "Method not found: " + method);
    }
}
