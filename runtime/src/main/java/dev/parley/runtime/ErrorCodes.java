package dev.parley.runtime;

/** JSON-RPC error codes of MCP 2026-07-28 (spec §9). */
public final class ErrorCodes {
    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;
    public static final int HEADER_MISMATCH = -32020;
    public static final int MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
    public static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;
    /**
     * Parley's own, outside the range the spec reserves: the request needs the journal, which is
     * unavailable; nothing was acknowledged, retry it ({@code data.retryAfterSeconds}; HTTP 503).
     */
    public static final int JOURNAL_UNAVAILABLE = -30503;

    private ErrorCodes() {}
}
