package dev.parley.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.runtime.internal.wire.JsonRpc;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * The HTTP side of a journal outage: the JSON-RPC error {@code -30503} is 503 (from
 * {@link HttpStatusTable}); {@link HttpReplies#json} adds {@code Retry-After} from the error's
 * {@code data.retryAfterSeconds}, however the request reached it.
 */
final class JournalOutageReplies {
    private JournalOutageReplies() {}

    /** The 503 for a request whose handling failed because the journal is unavailable (the 2025-11-25 session paths). */
    static HttpResponse unavailable(JournalAvailability journal) {
        return HttpReplies.json(
                StatusCodes.SERVICE_UNAVAILABLE, JsonRpc.Response.error((JsonNode) null, journal.error()));
    }
}
