package dev.parley.http.internal.auth;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.parley.http.internal.HttpStatusTable;
import dev.parley.http.internal.HttpStatusTable.Refusal;
import dev.parley.runtime.Json;
import java.util.Collection;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/**
 * The HTTP answers of a resource server that refuses a request (RFC 6750 §3, RFC 9728 §5.1):
 * a {@code WWW-Authenticate: Bearer} challenge with the metadata URL and the scopes needed,
 * and an OAuth error body. None of them names a tool, prompt or resource.
 */
final class Challenges {
    private final String metadataUrl;

    Challenges(String metadataUrl) {
        this.metadataUrl = metadataUrl;
    }

    /** The OAuth error body; {@code error} is absent for a request that carried no token. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ErrorBody(
            @JsonProperty("error") String error,
            @JsonProperty("error_description") String description) {}

    /** No token at all: 401 with the metadata URL and a scope hint, and no error code (RFC 6750 §3.1). */
    HttpResponse missingToken(Collection<String> scopes) {
        return challenge(Refusal.TOKEN_MISSING, null, "Authorization needed: send an access token", scopes);
    }

    HttpResponse invalidToken(Collection<String> scopes) {
        return challenge(Refusal.TOKEN_INVALID, "invalid_token", "The access token is invalid or expired", scopes);
    }

    /** A token in the query string. */
    HttpResponse invalidRequest(String description) {
        return challenge(Refusal.TOKEN_IN_QUERY, "invalid_request", description, java.util.List.of());
    }

    /** Step-up: every scope the request needs, in one {@code scope} parameter. */
    HttpResponse insufficientScope(Collection<String> needed) {
        return challenge(
                Refusal.SCOPE_INSUFFICIENT,
                "insufficient_scope",
                "The access token lacks a scope this request needs",
                needed);
    }

    static HttpResponse tooManyRequests(long retryAfterSeconds) {
        return body(Refusal.RATE_LIMITED, new ErrorBody("rate_limited", "Too many requests; retry later"))
                .addHeader(RawHeader.create("Retry-After", Long.toString(retryAfterSeconds)));
    }

    private HttpResponse challenge(Refusal refusal, String error, String description, Collection<String> scopes) {
        StringBuilder header = new StringBuilder("Bearer resource_metadata=\"")
                .append(metadataUrl)
                .append('"');
        if (!scopes.isEmpty()) {
            header.append(", scope=\"").append(String.join(" ", scopes)).append('"');
        }
        if (error != null) {
            header.append(", error=\"")
                    .append(error)
                    .append('"')
                    .append(", error_description=\"")
                    .append(description)
                    .append('"');
        }
        return body(refusal, new ErrorBody(error, description))
                .addHeader(RawHeader.create("WWW-Authenticate", header.toString()));
    }

    private static HttpResponse body(Refusal refusal, ErrorBody body) {
        return HttpResponse.create()
                .withStatus(HttpStatusTable.statusOf(refusal))
                .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, Json.write(body)));
    }
}
