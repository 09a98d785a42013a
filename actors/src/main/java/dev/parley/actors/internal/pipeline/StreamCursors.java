package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.state.InvalidRequestStateException;
import dev.parley.runtime.internal.state.PointerBinding;
import dev.parley.runtime.internal.state.SealedPointers;

/**
 * SSE event ids of a 2025-11-25 call stream. An id is a cursor: the call's id, the round, how far
 * into the round the stream got, and the JSON-RPC id of the request the stream answers, sealed with
 * the {@code requestState} keys and bound to the principal and the session. It holds everything a
 * resuming {@code GET} needs, so any node resumes any stream from the call's journal, with no
 * event store in memory.
 *
 * <p>Positions: {@link #ROUND_START} before the round's first question, {@code i} after its
 * {@code i}-th question (in the round's recorded order), {@link #RESPONSE} once the response was
 * sent. Round 0 is the first round, which runs on the node that took the request. A per-stream tag
 * and counter make every id unique across the session's streams (spec 2025-11-25 §3.5).
 */
public final class StreamCursors {
    public static final int ROUND_START = 0;
    public static final int RESPONSE = Integer.MAX_VALUE;

    /** Where a stream is: after {@code position} events of {@code round} of call {@code callId}. */
    public record Cursor(String callId, int round, int position, JsonNode requestId) {}

    private final SealedPointers codec;

    StreamCursors(SealedPointers codec) {
        this.codec = codec;
    }

    /**
     * The event id for {@code cursor}; null when it cannot be sealed (a request id so long the id
     * would pass the size limit), and the event then goes without an id.
     */
    public String seal(Cursor cursor, String principal, String sessionId, String uniqueness) {
        String payload =
                cursor.callId() + ' ' + cursor.position() + ' ' + uniqueness + ' ' + Json.write(cursor.requestId());
        try {
            return codec.seal(payload, cursor.round(), binding(principal, sessionId));
        } catch (IllegalArgumentException tooLong) {
            return null;
        }
    }

    /** Opens a {@code Last-Event-ID}; refused when forged, expired, or of another principal or session. */
    public Cursor open(String eventId, String principal, String sessionId) throws InvalidRequestStateException {
        SealedPointers.Opened opened = codec.open(eventId, binding(principal, sessionId));
        String[] parts = opened.pointer().split(" ", 4);
        if (parts.length != 4) {
            throw new InvalidRequestStateException("not a stream event id");
        }
        try {
            return new Cursor(parts[0], opened.round(), Integer.parseInt(parts[1]), Json.MAPPER.readTree(parts[3]));
        } catch (NumberFormatException | java.io.IOException e) {
            throw new InvalidRequestStateException("not a stream event id");
        }
    }

    private static PointerBinding binding(String principal, String sessionId) {
        return PointerBinding.streamEventId(principal, sessionId);
    }
}
