package dev.parley.http.auth;

import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.actors.internal.pipeline.McpRequest;
import dev.parley.http.PrincipalResolver;
import dev.parley.runtime.Principal;
import dev.parley.runtime.internal.wire.JsonRpc;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;

/**
 * Who may send a request, decided at the edge before the body is read: an admitted principal,
 * or the HTTP answer (401, 403, 429) that refuses it. Also trims list replies to what the
 * principal may use.
 */
public interface RequestAuthorization {

    CompletionStage<Admission> admit(HttpRequest request);

    /** The reply as this principal may see it (lists without entries it lacks scopes for). */
    default McpReply.Final visible(McpRequest request, McpReply.Final reply) {
        return visible(request.caller(), request.method(), reply);
    }

    /** The reply to {@code method} as {@code principal} may see it. */
    default McpReply.Final visible(Principal principal, String method, McpReply.Final reply) {
        return reply;
    }

    /**
     * The 403 for a message whose target (named in its body, as on a 2025-11-25 session) needs a
     * scope the principal lacks; empty when it may go on.
     */
    default Optional<HttpResponse> refuseByBody(Principal principal, JsonRpc.Message message) {
        return Optional.empty();
    }

    /** No authorization: every request is admitted as the principal the resolver names. */
    static RequestAuthorization open(PrincipalResolver principals) {
        return request -> CompletableFuture.completedFuture(
                Admission.admitted(Principal.fromId(principals.principalOf(request))));
    }
}
