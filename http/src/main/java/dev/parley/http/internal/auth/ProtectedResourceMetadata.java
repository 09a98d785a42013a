package dev.parley.http.internal.auth;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.parley.http.auth.AuthSettings;
import java.net.URI;
import java.util.List;

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) of the MCP endpoint: where a client finds the
 * authorization servers and the scopes for this resource.
 */
public record ProtectedResourceMetadata(
        @JsonProperty("resource") String resource,
        @JsonProperty("authorization_servers") List<String> authorizationServers,
        @JsonProperty("scopes_supported") List<String> scopesSupported,
        @JsonProperty("bearer_methods_supported") List<String> bearerMethodsSupported) {

    public static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";

    public static ProtectedResourceMetadata of(AuthSettings settings) {
        return new ProtectedResourceMetadata(
                settings.resource().toString(),
                settings.authorizationServers().stream().map(URI::toString).toList(),
                settings.scopesSupported(),
                List.of("header"));
    }

    /**
     * The metadata URL for {@code resource} (RFC 9728 §3.1): the well-known path inserted between
     * the host and the resource's path, e.g. {@code http://h:8080/.well-known/oauth-protected-resource/mcp}.
     */
    public static String urlFor(URI resource) {
        String path = resource.getRawPath() == null || resource.getRawPath().equals("/") ? "" : resource.getRawPath();
        return resource.getScheme() + "://" + resource.getRawAuthority() + WELL_KNOWN + path;
    }
}
