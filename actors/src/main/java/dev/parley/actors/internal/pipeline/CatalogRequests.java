package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpApps;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.ResourceDefinition;
import dev.parley.runtime.internal.wire.Discovery.DiscoverResult;
import dev.parley.runtime.internal.wire.Discovery.Empty;
import dev.parley.runtime.internal.wire.Discovery.ListChangedCapability;
import dev.parley.runtime.internal.wire.Discovery.ResourcesCapability;
import dev.parley.runtime.internal.wire.Discovery.ServerCapabilities;
import dev.parley.runtime.internal.wire.Lists;
import dev.parley.runtime.internal.wire.Lists.Page;
import dev.parley.runtime.internal.wire.McpNames;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Answers from the server definition alone, no entity involved: {@code server/discover} and the
 * four lists, paged with opaque cursors, all cacheable.
 */
final class CatalogRequests {

    /** Both eras: 2026-07-28 per request, the 2025 revisions through {@code initialize}. */
    private static final List<String> SUPPORTED_VERSIONS = java.util.stream.Stream.concat(
                    McpNames.SUPPORTED_VERSIONS.stream(), dev.parley.runtime.internal.wire.Legacy.VERSIONS.stream())
            .toList();

    private final McpServerDefinition server;
    private final int pageSize;
    private final CachePolicy cachePolicy;
    private final ServerCapabilities capabilities;
    private final ServerCapabilities legacyCapabilities;

    CatalogRequests(McpServerDefinition server, int pageSize, CachePolicy cachePolicy) {
        this.server = server;
        this.pageSize = pageSize;
        this.cachePolicy = cachePolicy;
        // MCP Apps is declared only by a server that has a view; tasks always (2026 only).
        Map<String, Empty> extensions = server.hasAppViews()
                ? Map.of(McpNames.Meta.TASKS_EXTENSION, new Empty(), McpApps.EXTENSION, new Empty())
                : Map.of(McpNames.Meta.TASKS_EXTENSION, new Empty());
        this.capabilities = new ServerCapabilities(
                new ListChangedCapability(true),
                new ListChangedCapability(true),
                new ResourcesCapability(true, true),
                new Empty(),
                new Empty(),
                extensions);
        // initialize declares the same features; of the extensions only MCP Apps, which 2025 hosts use too
        this.legacyCapabilities = new ServerCapabilities(
                capabilities.tools(),
                capabilities.prompts(),
                capabilities.resources(),
                capabilities.completions(),
                capabilities.logging(),
                server.hasAppViews() ? Map.of(McpApps.EXTENSION, new Empty()) : null);
    }

    /** What {@code initialize} declares. */
    ServerCapabilities legacyCapabilities() {
        return legacyCapabilities;
    }

    McpReply.Final discover(McpRequest request) {
        return new McpReply.Complete(
                request.id(),
                new DiscoverResult(
                        SUPPORTED_VERSIONS,
                        capabilities,
                        server.instructions(),
                        cachePolicy.ttlMs(),
                        cachePolicy.cacheScope(),
                        server.serverInfo()));
    }

    /** One page of {@code tools/list}, {@code prompts/list}, {@code resources/list} or {@code resources/templates/list}. */
    McpReply.Final list(McpRequest request) {
        String cursor = request.stringParam("cursor");
        long ttlMs = cachePolicy.ttlMs();
        String scope = cachePolicy.cacheScope();
        // MCP Apps: views, app-only tools and a tool's _meta.ui only for a client that declared the extension
        boolean apps = request.capabilities().extension(McpApps.EXTENSION);
        Object result = switch (request.method()) {
            case Methods.TOOLS_LIST ->
                new Lists.ListToolsResult(
                        page(
                                server.tools().stream()
                                        .filter(tool -> tool.listedFor(apps))
                                        .toList(),
                                tool -> (JsonNode) Json.tree(tool.info(apps)),
                                cursor),
                        ttlMs,
                        scope);
            case Methods.PROMPTS_LIST ->
                new Lists.ListPromptsResult(page(server.prompts(), PromptDefinition::info, cursor), ttlMs, scope);
            case Methods.RESOURCES_LIST ->
                new Lists.ListResourcesResult(
                        page(
                                server.resources().stream()
                                        .filter(resource -> apps || !resource.isAppView())
                                        .toList(),
                                ResourceDefinition::info,
                                cursor),
                        ttlMs,
                        scope);
            default ->
                new Lists.ListResourceTemplatesResult(
                        page(server.resourceTemplates(), ResourceDefinition::info, cursor), ttlMs, scope);
        };
        return new McpReply.Complete(request.id(), result);
    }

    private <T> Page page(Collection<T> all, Function<T, ? extends JsonNode> info, String cursor) {
        List<JsonNode> items = all.stream().<JsonNode>map(info).toList();
        return Page.of(items, cursor, pageSize);
    }
}
