package dev.parley.runtime;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A JSON-RPC error as an exception: thrown by the runtime for protocol errors, and by tool
 * handlers that want the call to end with a JSON-RPC error instead of an {@code isError} result.
 */
public class McpException extends RuntimeException {
    private final int code;
    private final transient JsonNode data;

    public McpException(int code, String message) {
        this(code, message, null);
    }

    public McpException(int code, String message, JsonNode data) {
        super(message, null, false, false);
        this.code = code;
        this.data = data;
    }

    public int code() {
        return code;
    }

    public JsonNode data() {
        return data;
    }

    public static McpException invalidParams(String message) {
        return new McpException(ErrorCodes.INVALID_PARAMS, message);
    }
}
