package dev.parley.http.internal;

import dev.parley.actors.internal.pipeline.CallCaps;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.actors.internal.pipeline.McpReply.Origin;
import dev.parley.runtime.ErrorCodes;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The HTTP status of every answer of the endpoint, in one table (spec §6.3; for in-band errors the
 * TypeScript SDK's classification): JSON-RPC errors by where they were decided and their code,
 * and the refusals of the HTTP layer itself. The edge table of docs/http-edge.md is
 * {@link #markdown()}, and a test keeps the two equal.
 */
public final class HttpStatusTable {
    private HttpStatusTable() {}

    /** One row: a JSON-RPC error ({@code code} set, {@code origin} set or null for both), or an HTTP refusal. */
    public record Row(String condition, int status, Integer code, Origin origin) {
        boolean matches(Origin errorOrigin, int errorCode) {
            return code != null && code == errorCode && (origin == null || origin == errorOrigin);
        }

        String answer() {
            return code == null ? String.valueOf(status) : status + ", `" + code + "`";
        }
    }

    /**
     * Refusals of the HTTP layer: the edge's, before any JSON-RPC is read, which carry an id-less
     * JSON-RPC error ({@code -32600} unless the row names its own code); authorization's, which
     * carry an OAuth error body; and a 2025-11-25 session's, which carry a {@code -32600} error.
     */
    public enum Refusal {
        NOT_ALLOWED_HOST_OR_ORIGIN(
                403, "`Host` or `Origin` not in `parley.http.allowed-hosts` / `allowed-origin-hosts`"),
        METHOD_NOT_POST(405, "GET, DELETE"),
        NOT_JSON_CONTENT(415, "`Content-Type` other than `application/json`"),
        JSON_NOT_ACCEPTED(406, "`Accept` without `application/json`"),
        BODY_TOO_LARGE(413, "body over `parley.http.max-body-bytes` (default 1 MiB)"),
        BODY_UNREADABLE(400, "body that cannot be read"),
        BODY_TOO_SLOW(
                408,
                "body not complete within `parley.http.connections.body-timeout` of its head, with "
                        + "`Connection: close`"),
        TOO_MANY_CONNECTIONS(
                503,
                ErrorCodes.INTERNAL_ERROR,
                "a connection over `parley.http.connections.max-per-address` or `max-total`, with "
                        + "`Retry-After` and `Connection: close` (a connection that sends no request within "
                        + "`refusal-wait` is closed without an answer)"),
        NOTIFICATION_ACCEPTED(202, "a notification (no `id`), or a 2025-11-25 client's response to a server request"),
        TOKEN_MISSING(
                401, "no bearer token (authorization on), with `WWW-Authenticate` naming the metadata and scopes"),
        TOKEN_INVALID(401, "a bearer token that is invalid, expired or for another resource (`invalid_token`)"),
        TOKEN_IN_QUERY(400, "an `access_token` in the query string (`invalid_request`)"),
        SCOPE_INSUFFICIENT(
                403, "a token without a scope the request needs (`insufficient_scope`, every needed scope named)"),
        RATE_LIMITED(429, "a caller over `parley.auth.limits` (`rate_limited`, with `Retry-After`)"),
        INITIALIZE_NOT_A_REQUEST(400, "2025-11-25: `initialize` sent as a notification"),
        SESSION_ID_MISSING(400, "2025-11-25: a request other than `initialize` without `Mcp-Session-Id`"),
        SESSION_VERSION_UNSUPPORTED(
                400, "2025-11-25: a session request whose `MCP-Protocol-Version` is not a 2025 revision"),
        SESSION_NOT_FOUND(
                404,
                "2025-11-25: a session that ended, expired or is another principal's (the client initializes again)"),
        SESSION_ENDED(200, "2025-11-25: DELETE of a session, which ends it"),
        LAST_EVENT_ID_UNKNOWN(400, "2025-11-25: a `Last-Event-ID` that is not an event of the session's streams"),
        QUESTION_NEEDS_STREAM(400, "2025-11-25: a call that asks the user, sent without `Accept: text/event-stream`"),
        DRAINING(
                503,
                ErrorCodes.INTERNAL_ERROR,
                "any request while the node drains (shuts down), with `Retry-After` and "
                        + "`Connection: close`: retry it, another node answers");

        public final int status;
        /** The JSON-RPC error code of the body, when it is not {@code -32600}; else null. */
        public final Integer code;

        final String condition;

        Refusal(int status, String condition) {
            this(status, null, condition);
        }

        Refusal(int status, Integer code, String condition) {
            this.status = status;
            this.code = code;
            this.condition = condition;
        }

        String answer() {
            return code == null ? String.valueOf(status) : status + ", `" + code + "`";
        }
    }

    /** JSON-RPC errors; the first matching row wins, the last two are the defaults. */
    public static final List<Row> ERRORS = List.of(
            new Row("body that is not JSON", 400, ErrorCodes.PARSE_ERROR, null),
            new Row(
                    "not one JSON-RPC request (array, wrong `jsonrpc`, bad `id` or `params`)",
                    400,
                    ErrorCodes.INVALID_REQUEST,
                    null),
            new Row(
                    "`params._meta` without protocol version or client capabilities; a bad `progressToken` or log level",
                    400,
                    ErrorCodes.INVALID_PARAMS,
                    Origin.GATE),
            new Row(
                    "`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or an `Mcp-Param-*` header missing or different from the body",
                    400,
                    ErrorCodes.HEADER_MISMATCH,
                    null),
            new Row(
                    "question the client cannot answer; tasks without the tasks extension",
                    400,
                    ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
                    null),
            new Row(
                    "unsupported protocol version (`data.supported`, `data.requested`)",
                    400,
                    ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
                    null),
            new Row("unknown method", 404, ErrorCodes.METHOD_NOT_FOUND, null),
            new Row(
                    "a principal's cap of calls waiting for input, tasks in flight or sessions reached "
                            + "(`parley.quotas.per-principal`; with `Retry-After`)",
                    429,
                    CallCaps.OVER_CAP,
                    null),
            new Row(
                    "a node-wide ceiling of `parley.quotas.per-node` reached, or free disk below "
                            + "`parley.quotas.disk.min-free` (with `Retry-After`)",
                    503,
                    CallCaps.NODE_FULL,
                    null),
            new Row(
                    "a durable call or session larger than `parley.quotas.max-call-bytes` / `max-session-bytes`",
                    413,
                    CallCaps.TOO_LARGE,
                    null),
            new Row(
                    "a request that needs the journal while it is unavailable (database stopped, disk full): nothing was"
                            + " acknowledged; `Retry-After` says when to retry",
                    503,
                    ErrorCodes.JOURNAL_UNAVAILABLE,
                    null),
            new Row(
                    "unknown tool, prompt, resource or task; bad cursor, `requestState` or answers",
                    200,
                    ErrorCodes.INVALID_PARAMS,
                    Origin.IN_BAND),
            new Row(
                    "internal error; a tool's own `McpException` with a code not above answers 200 too",
                    200,
                    ErrorCodes.INTERNAL_ERROR,
                    Origin.IN_BAND));

    private static final StatusCode GATE_DEFAULT = StatusCodes.BAD_REQUEST;
    private static final StatusCode IN_BAND_DEFAULT = StatusCodes.OK;

    /** The status of a reply: 200 for results, the table's row for an error. */
    public static StatusCode statusOf(McpReply.Final reply) {
        if (!(reply instanceof McpReply.Error error)) {
            return StatusCodes.OK;
        }
        return statusOf(error.origin(), error.error().code());
    }

    public static StatusCode statusOf(Origin origin, int code) {
        for (Row row : ERRORS) {
            if (row.matches(origin, code)) {
                return StatusCodes.get(row.status());
            }
        }
        // Any other code: a gate never answers 200; a handler's error is the request's normal answer.
        return origin == Origin.GATE ? GATE_DEFAULT : IN_BAND_DEFAULT;
    }

    public static StatusCode statusOf(Refusal refusal) {
        return StatusCodes.get(refusal.status);
    }

    /** The table as docs/http-edge.md shows it. */
    public static String markdown() {
        String errors = ERRORS.stream()
                .map(row -> "| " + row.condition() + " | " + row.answer() + " |")
                .collect(Collectors.joining("\n"));
        String refusals = java.util.Arrays.stream(Refusal.values())
                .map(refusal -> "| " + refusal.condition + " | " + refusal.answer() + " |")
                .collect(Collectors.joining("\n"));
        return "| request | answer |\n|---|---|\n" + errors + "\n" + refusals + "\n"
                + "| invalid arguments | 200, a tool result with `isError: true` |\n";
    }
}
