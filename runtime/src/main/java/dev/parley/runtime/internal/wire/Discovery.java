package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** {@code server/discover} and the server's capabilities (spec §5.3, §5.4). */
public final class Discovery {
    private Discovery() {}

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record Implementation(String name, String version, String title) {}

    /** A capability object without members, e.g. {@code "completions": {}}. */
    public record Empty() {}

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ListChangedCapability(Boolean listChanged) {}

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ResourcesCapability(Boolean listChanged, Boolean subscribe) {}

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ServerCapabilities(
            ListChangedCapability tools,
            ListChangedCapability prompts,
            ResourcesCapability resources,
            Empty completions,
            Empty logging,
            Map<String, Empty> extensions) {}

    /** The cacheable {@code DiscoverResult}. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record DiscoverResult(
            String resultType,
            List<String> supportedVersions,
            ServerCapabilities capabilities,
            String instructions,
            long ttlMs,
            String cacheScope,
            @JsonProperty("_meta") Map<String, Object> meta) {
        public DiscoverResult {
            Objects.requireNonNull(supportedVersions, "supportedVersions");
            Objects.requireNonNull(capabilities, "capabilities");
            Objects.requireNonNull(cacheScope, "cacheScope");
        }

        public DiscoverResult(
                List<String> supportedVersions,
                ServerCapabilities capabilities,
                String instructions,
                long ttlMs,
                String cacheScope,
                Implementation serverInfo) {
            this(
                    McpNames.ResultTypes.COMPLETE,
                    supportedVersions,
                    capabilities,
                    instructions,
                    ttlMs,
                    cacheScope,
                    Map.of(McpNames.Meta.SERVER_INFO, serverInfo));
        }
    }
}
