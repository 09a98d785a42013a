package dev.parley.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.McpException;
import dev.parley.runtime.RequestLimits;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.Legacy;
import dev.parley.runtime.internal.wire.McpNames;

/**
 * The front half both transports share: one message's bytes parsed with the node's
 * {@code parley.http.request-limits} (sizes, Unicode, finite numbers), a 2025-11-25 client's
 * response told apart from a request, and the request's protocol era sorted. HTTP and stdio differ
 * only in what comes after: the gate, the pipeline, and how a reply is written.
 */
final class MessageIntake {
    private final RequestLimits limits;

    MessageIntake(RequestLimits limits) {
        this.limits = limits;
    }

    /** What one message turned out to be. */
    sealed interface Incoming {}

    /** A request or notification; {@code legacy}: it belongs to a 2025-11-25 session (or opens one). */
    record Message(JsonRpc.Message message, boolean legacy) implements Incoming {}

    /** A 2025-11-25 client's response to one of the server's requests. */
    record ClientAnswer(JsonRpc.ClientResponse response) implements Incoming {}

    /** Neither: the error to answer, with the message's {@code id} when one could be read (else null). */
    record Unreadable(JsonNode id, McpException error) implements Incoming {}

    /**
     * Reads one message.
     *
     * @param mayBeAnswer whether a client's response may arrive here (on HTTP: only on a session)
     * @param onSession whether the message came on an open 2025-11-25 session
     * @param versionHeader HTTP's {@code MCP-Protocol-Version}, or null (stdio has none)
     */
    Incoming read(byte[] bytes, boolean mayBeAnswer, boolean onSession, String versionHeader) {
        try {
            JsonRpc.Tree tree = JsonRpc.tree(bytes, limits); // read once, whichever it turns out to be
            JsonRpc.ClientResponse response = mayBeAnswer ? JsonRpc.responseOrNull(tree) : null;
            if (response != null) {
                return new ClientAnswer(response);
            }
            JsonRpc.Message message = JsonRpc.message(tree);
            return new Message(message, legacy(message, onSession, versionHeader));
        } catch (McpException refused) {
            return new Unreadable(JsonRpc.idOf(bytes), refused);
        }
    }

    /**
     * A message with a 2026-07-28 {@code _meta} claim is never 2025-11-25; one on a session is; so
     * is an {@code initialize} whose {@code MCP-Protocol-Version} header (if any) names no 2026
     * version. Anything else goes to the 2026-07-28 gate, which says what it lacks.
     */
    static boolean legacy(JsonRpc.Message message, boolean onSession, String versionHeader) {
        if (message.params().path("_meta").has(McpNames.Meta.PROTOCOL_VERSION)) {
            return false;
        }
        if (onSession) {
            return true;
        }
        return message.method().equals(Legacy.INITIALIZE)
                && (versionHeader == null || !McpNames.SUPPORTED_VERSIONS.contains(versionHeader));
    }
}
