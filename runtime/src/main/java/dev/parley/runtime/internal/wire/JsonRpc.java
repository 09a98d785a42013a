package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.RequestLimits;
import java.util.Objects;

/** JSON-RPC 2.0 envelopes and the codec for one incoming message. */
public final class JsonRpc {
    /** Reads exactly one JSON value: text after it (a second message, garbage) is a parse error. */
    private static final ObjectReader SINGLE_VALUE =
            Json.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private JsonRpc() {}

    /**
     * One incoming message. {@code id} is a string or number node, or null for a notification;
     * {@code params} is an object node, never null.
     */
    public record Message(JsonNode id, String method, ObjectNode params) {
        public Message {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(params, "params");
        }

        public boolean isNotification() {
            return id == null;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ErrorObject(int code, String message, JsonNode data) {
        /** The wire error a thrown {@link McpException} stands for. */
        public static ErrorObject of(McpException error) {
            return new ErrorObject(error.code(), error.getMessage(), error.data());
        }
    }

    /**
     * A response. Its {@code id} is always written: JSON-RPC 2.0 requires {@code "id": null} on an
     * error reply to a request whose id could not be read (a parse error, an id that is not valid
     * Unicode).
     */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record Response(
            String jsonrpc,
            @JsonInclude(JsonInclude.Include.ALWAYS) JsonNode id,
            Object result,
            ErrorObject error) {
        public static Response result(JsonNode id, Object result) {
            return new Response("2.0", id, result, null);
        }

        public static Response error(JsonNode id, ErrorObject error) {
            return new Response("2.0", id, null, error);
        }
    }

    /** A request the server sends (2025-11-25: elicitation, sampling, roots on the request's stream). */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record Request(String jsonrpc, JsonNode id, String method, Object params) {
        public Request(JsonNode id, String method, Object params) {
            this("2.0", Objects.requireNonNull(id, "id"), Objects.requireNonNull(method, "method"), params);
        }
    }

    /** A response the client posts to one of the server's requests: {@code result} or {@code error}. */
    public record ClientResponse(JsonNode id, JsonNode result, JsonNode error) {}

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record Notification(String jsonrpc, String method, Object params) {
        public Notification(String method, Object params) {
            this("2.0", method, params);
        }
    }

    /** {@link #parse(byte[], RequestLimits)} with the default limits. */
    public static Message parse(byte[] body) {
        return parse(body, RequestLimits.DEFAULTS);
    }

    /**
     * Parses one JSON-RPC message. Throws {@link McpException} with -32700 for a body that is not
     * exactly one JSON value, -32600 for JSON that is not a single request or notification, and
     * -32602 for one holding invalid Unicode, a non-finite number or more than {@code limits}
     * allow ({@link RequestChecks}).
     */
    public static Message parse(byte[] body, RequestLimits limits) {
        return message(tree(body, limits));
    }

    /**
     * One body read once: its JSON tree, and what {@link RequestChecks} found unsound in it (null:
     * nothing), which whoever reads a value from the tree throws first.
     */
    public record Tree(JsonNode root, McpException problem) {}

    /** Reads one body. Throws {@link McpException} with -32700 for one that is not exactly one JSON value. */
    public static Tree tree(byte[] body, RequestLimits limits) {
        JsonNode root;
        RequestChecks.Parser checked;
        try (RequestChecks.Parser parser = new RequestChecks.Parser(
                SINGLE_VALUE.createParser(body), limits, RequestChecks.mayHoldLoneSurrogate(body))) {
            checked = parser;
            root = SINGLE_VALUE.readTree(parser);
        } catch (RequestChecks.TooDeep e) {
            throw e.problem();
        } catch (com.fasterxml.jackson.core.JsonParseException e) {
            // Jackson refuses a broken surrogate pair in a member name itself (values reach RequestChecks).
            if (String.valueOf(e.getOriginalMessage()).contains("surrogate")) {
                throw McpException.invalidParams(
                        "Invalid request: a member name is not valid Unicode (a lone surrogate)");
            }
            throw new McpException(ErrorCodes.PARSE_ERROR, "Parse error: body is not valid JSON");
        } catch (java.io.IOException e) {
            throw new McpException(ErrorCodes.PARSE_ERROR, "Parse error: body is not valid JSON");
        }
        if (root == null || root.isMissingNode()) {
            throw new McpException(ErrorCodes.PARSE_ERROR, "Parse error: body is empty");
        }
        return new Tree(root, checked.problem());
    }

    /** The request or notification {@code tree} holds; throws {@link McpException} as {@link #parse} does. */
    public static Message message(Tree tree) {
        JsonNode root = tree.root();
        if (!root.isObject()) {
            throw new McpException(
                    ErrorCodes.INVALID_REQUEST,
                    "Invalid request: expected one JSON-RPC object (batches are not supported)");
        }
        JsonNode version = root.get("jsonrpc");
        if (version == null || !version.isTextual() || !"2.0".equals(version.asText())) {
            throw new McpException(ErrorCodes.INVALID_REQUEST, "Invalid request: jsonrpc must be \"2.0\"");
        }
        JsonNode method = root.get("method");
        if (method == null || !method.isTextual()) {
            throw new McpException(ErrorCodes.INVALID_REQUEST, "Invalid request: method must be a string");
        }
        JsonNode id = root.get("id");
        if (id != null && !(id.isTextual() || id.isIntegralNumber())) {
            throw new McpException(ErrorCodes.INVALID_REQUEST, "Invalid request: id must be a string or an integer");
        }
        JsonNode params = root.get("params");
        if (params != null && !params.isObject() && !params.isNull()) {
            throw new McpException(ErrorCodes.INVALID_REQUEST, "Invalid request: params must be an object");
        }
        // Before anything reads a value: no handler, journal or log line sees one that is not sound.
        if (tree.problem() != null) {
            throw tree.problem();
        }
        ObjectNode paramsObject = params instanceof ObjectNode o ? o : Json.object();
        return new Message(id, method.asText(), paramsObject);
    }

    /**
     * The JSON-RPC response {@code tree} holds (an object with {@code result} or {@code error} and no
     * {@code method}), or null for anything else (then {@link #message} judges it). A response is
     * checked like a request before anything reads it: invalid Unicode, a non-finite number or more
     * than the limits allow is refused with -32602 ({@link RequestChecks}), so no answer a client
     * posts reaches a handler or the journal unsound.
     */
    public static ClientResponse responseOrNull(Tree tree) {
        JsonNode root = tree.root();
        if (!root.isObject()
                || root.has("method")
                || !"2.0".equals(root.path("jsonrpc").asText())
                || !(root.has("result") || root.has("error"))) {
            return null;
        }
        if (tree.problem() != null) {
            throw tree.problem();
        }
        JsonNode id = root.get("id");
        return new ClientResponse(
                id != null && (id.isTextual() || id.isIntegralNumber()) ? id : null,
                root.get("result"),
                root.get("error"));
    }

    /** The id of a message that failed to parse, if one can be read, for the error reply. */
    public static JsonNode idOf(byte[] body) {
        try {
            JsonNode root = Json.MAPPER.readTree(body);
            JsonNode id = root == null ? null : root.get("id");
            boolean sound = id != null
                    && (id.isIntegralNumber() || id.isTextual() && RequestChecks.isValidUnicode(id.textValue()));
            return sound ? id : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }
}
