package dev.parley.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.internal.wire.JsonRpc;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/**
 * The HTTP side of a journal outage (issue 17): the JSON-RPC error {@code -30503} is 503 (from
 * {@link HttpStatusTable}) with a {@code Retry-After} header taken from the error's
 * {@code data.retryAfterSeconds}, however the request reached it.
 */
final class JournalOutageReplies {
    private JournalOutageReplies() {}

    /** {@code response} with {@code Retry-After} when {@code body} is the journal-unavailable error. */
    static HttpResponse withRetryAfter(StatusCode status, JsonRpc.Response body, HttpResponse response) {
        if (!status.equals(StatusCodes.SERVICE_UNAVAILABLE)
                || body.error() == null
                || body.error().code() != ErrorCodes.JOURNAL_UNAVAILABLE) {
            return response;
        }
        JsonNode seconds =
                body.error().data() == null ? null : body.error().data().get("retryAfterSeconds");
        return response.addHeader(RawHeader.create(
                "Retry-After",
                seconds != null && seconds.canConvertToLong() ? Long.toString(Math.max(1, seconds.asLong())) : "1"));
    }

    /** The 503 for a request whose handling failed because the journal is unavailable (the 2025-11-25 session paths). */
    static HttpResponse unavailable(JournalAvailability journal) {
        return HttpReplies.json(
                StatusCodes.SERVICE_UNAVAILABLE, JsonRpc.Response.error((JsonNode) null, journal.error()));
    }
}
