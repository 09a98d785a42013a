package dev.parley.http.internal.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.pipeline.McpReply;
import dev.parley.http.auth.Admission;
import dev.parley.http.auth.AuthSettings;
import dev.parley.http.auth.RequestAuthorization;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.Principal;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.McpMethod;
import java.time.Clock;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;

/**
 * The MCP endpoint as an OAuth 2.1 resource server (MCP authorization, RFC 6750, RFC 9728):
 * every request needs a bearer token in the Authorization header, valid for this resource and
 * carrying the scopes the request needs, within the caller's rate. All of it is decided from the
 * headers, before the body is read: what it needs comes from {@code Mcp-Method} and
 * {@code Mcp-Name}, which the endpoint later checks against the body.
 */
public final class OAuthResourceServer implements RequestAuthorization {
    private final AuthSettings settings;
    private final McpServerDefinition server;
    private final Challenges challenges;
    private final JwtValidator jwts;
    private final TokenIntrospector introspector;
    private final RateLimits limits;

    public OAuthResourceServer(AuthSettings settings, McpServerDefinition server) {
        this.settings = settings;
        this.server = server;
        this.challenges = new Challenges(ProtectedResourceMetadata.urlFor(settings.resource()));
        this.jwts = new JwtValidator(settings);
        this.introspector =
                settings.introspection().enabled() ? new TokenIntrospector(settings, Clock.systemUTC()) : null;
        this.limits = new RateLimits(settings.limits(), System::nanoTime);
    }

    @Override
    public CompletionStage<Admission> admit(HttpRequest request) {
        if (request.getUri().query().get("access_token").isPresent()) {
            return refuse(challenges.invalidRequest("Access tokens are accepted in the Authorization header only"));
        }
        Optional<String> authorization = request.getHeader("authorization").map(HttpHeader::value);
        if (authorization.isEmpty()) {
            return refuse(challenges.missingToken(hintScopes()));
        }
        String value = authorization.get().trim();
        if (value.length() < 7
                || !value.substring(0, 7).equalsIgnoreCase("bearer ")
                || value.substring(7).isBlank()) {
            return refuse(challenges.invalidToken(hintScopes()));
        }
        String token = value.substring(7).trim();
        return principalOf(token)
                .thenApply(principal -> principal
                        .map(p -> judge(request, p))
                        .orElseGet(() -> Admission.refused(challenges.invalidToken(hintScopes()))));
    }

    private CompletionStage<Optional<Principal>> principalOf(String token) {
        if (JwtValidator.looksLikeJwt(token)) {
            return CompletableFuture.completedFuture(jwts.validate(token));
        }
        if (introspector != null) {
            return introspector.introspect(token);
        }
        return CompletableFuture.completedFuture(Optional.empty());
    }

    /** A valid token: does it carry every scope this request needs, and is the caller within its rate? */
    private Admission judge(HttpRequest request, Principal principal) {
        McpMethod method = McpMethod.of(header(request, "mcp-method"));
        // Decoded as the endpoint decodes it when it compares the header with the body.
        String name = decodedHeaderValue(header(request, "mcp-name"));
        Set<String> needed = neededScopes(method, name);
        if (!principal.hasScopes(needed)) {
            return Admission.refused(challenges.insufficientScope(needed));
        }
        long retryAfter = limits.retryAfterSeconds(
                principal.id(), method != null && method.target() == McpMethod.Target.TOOL ? name : null);
        if (retryAfter > 0) {
            return Admission.refused(Challenges.tooManyRequests(retryAfter));
        }
        return Admission.admitted(principal);
    }

    /** Server-wide scopes plus those of the tool, prompt or resource the request names. */
    private Set<String> neededScopes(McpMethod method, String name) {
        Set<String> needed = new LinkedHashSet<>(settings.requiredScopes());
        if (method == null || name == null) {
            return needed;
        }
        switch (method.target()) {
            case TOOL -> server.tool(name).ifPresent(tool -> needed.addAll(tool.requiredScopes()));
            case PROMPT -> server.prompt(name).ifPresent(prompt -> needed.addAll(prompt.requiredScopes()));
            case RESOURCE -> server.resourceFor(name).ifPresent(resource -> needed.addAll(resource.requiredScopes()));
            case TASK, NONE -> {}
        }
        return needed;
    }

    /** The 401 scope hint: the server-wide scopes, else all supported ones; never a tool's. */
    private Set<String> hintScopes() {
        return settings.requiredScopes().isEmpty()
                ? new LinkedHashSet<>(settings.scopesSupported())
                : settings.requiredScopes();
    }

    /**
     * Lists keep only what the principal has the scopes for, unless {@code list-all} is set. Every
     * cacheable result becomes {@code cacheScope: "private"}: with authorization on, what a
     * result shows depends on who asked (spec: caching, SEP-2549).
     */
    @Override
    public McpReply.Final visible(Principal principal, String method, McpReply.Final reply) {
        // Only these results carry cacheScope; the others (tools/call on the hot path) need no copy as a tree.
        McpMethod descriptor = McpMethod.of(method);
        if (descriptor == null
                || !descriptor.cacheable()
                || !(reply instanceof McpReply.Complete complete)
                || !(Json.tree(complete.result()) instanceof ObjectNode result)
                || !result.has("cacheScope")) {
            return reply;
        }
        ObjectNode visible = result.put("cacheScope", "private");
        String member = switch (method) {
            case "tools/list" -> "tools";
            case "prompts/list" -> "prompts";
            case "resources/list" -> "resources";
            case "resources/templates/list" -> "resourceTemplates";
            default -> null;
        };
        if (member != null && !settings.listAll() && visible.get(member) instanceof ArrayNode entries) {
            for (Iterator<JsonNode> it = entries.elements(); it.hasNext(); ) {
                if (!principal.hasScopes(entryScopes(member, it.next()))) {
                    it.remove();
                }
            }
        }
        return new McpReply.Complete(complete.id(), visible);
    }

    @Override
    public Optional<HttpResponse> refuseByBody(Principal principal, JsonRpc.Message message) {
        McpMethod method = McpMethod.of(message.method());
        Set<String> needed = neededScopes(method, method == null ? null : method.targetIn(message.params()));
        return principal.hasScopes(needed) ? Optional.empty() : Optional.of(challenges.insufficientScope(needed));
    }

    private Set<String> entryScopes(String member, JsonNode entry) {
        return switch (member) {
            case "tools" ->
                server.tool(entry.path("name").asText())
                        .map(t -> t.requiredScopes())
                        .orElse(Set.of());
            case "prompts" ->
                server.prompt(entry.path("name").asText())
                        .map(p -> p.requiredScopes())
                        .orElse(Set.of());
            case "resources" ->
                server.resourceFor(entry.path("uri").asText())
                        .map(r -> r.requiredScopes())
                        .orElse(Set.of());
            default ->
                server.resourceTemplates().stream()
                        .filter(t -> t.uri().equals(entry.path("uriTemplate").asText()))
                        .findFirst()
                        .map(t -> t.requiredScopes())
                        .orElse(Set.of());
        };
    }

    private static String header(HttpRequest request, String name) {
        return request.getHeader(name).map(HttpHeader::value).map(String::trim).orElse(null);
    }

    /** {@code =?base64?...?=} values (spec §6.2) decoded; anything undecodable stays as sent (the endpoint refuses it). */
    static String decodedHeaderValue(String value) {
        if (value == null || !value.startsWith("=?base64?") || !value.endsWith("?=") || value.length() < 11) {
            return value;
        }
        try {
            byte[] bytes = java.util.Base64.getDecoder().decode(value.substring(9, value.length() - 2));
            return java.nio.charset.StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(bytes))
                    .toString();
        } catch (IllegalArgumentException | java.nio.charset.CharacterCodingException e) {
            return value;
        }
    }

    private static CompletionStage<Admission> refuse(HttpResponse response) {
        return CompletableFuture.completedFuture(Admission.refused(response));
    }
}
