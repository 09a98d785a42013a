package dev.parley.http.internal.auth;

import dev.parley.http.auth.AuthSettings;
import dev.parley.runtime.Json;
import java.util.Set;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Serves the Protected Resource Metadata (RFC 9728) at {@code /.well-known/oauth-protected-resource}
 * and at its path-suffixed form for the resource's path ({@code .../oauth-protected-resource/mcp}).
 * Open to everyone: it is how a client that got a 401 finds the authorization server.
 */
public final class ProtectedResourceRoutes extends AllDirectives {
    private final Set<String> paths;
    private final byte[] body;

    public ProtectedResourceRoutes(AuthSettings settings) {
        String resourcePath = settings.resource().getRawPath() == null
                ? ""
                : settings.resource().getRawPath();
        this.paths = Set.of(
                ProtectedResourceMetadata.WELL_KNOWN,
                ProtectedResourceMetadata.WELL_KNOWN + (resourcePath.equals("/") ? "" : resourcePath));
        this.body =
                Json.write(ProtectedResourceMetadata.of(settings)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    public Route route() {
        return extractRequest(request -> paths.contains(request.getUri().path())
                ? get(() -> complete(HttpResponse.create()
                        .withStatus(StatusCodes.OK)
                        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body))))
                : reject());
    }
}
