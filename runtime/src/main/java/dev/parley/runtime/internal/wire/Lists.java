package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * The four list results and their cursors (spec §7.3, §7.4). Items are the definitions' own
 * wire shapes; every list result is cacheable ({@code ttlMs}, {@code cacheScope}).
 */
public final class Lists {
    private Lists() {}

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ListToolsResult(
            String resultType, List<JsonNode> tools, String nextCursor, long ttlMs, String cacheScope) {
        public ListToolsResult {
            Objects.requireNonNull(tools, "tools");
        }

        public ListToolsResult(Page page, long ttlMs, String cacheScope) {
            this(McpNames.ResultTypes.COMPLETE, page.items(), page.nextCursor(), ttlMs, cacheScope);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ListPromptsResult(
            String resultType, List<JsonNode> prompts, String nextCursor, long ttlMs, String cacheScope) {
        public ListPromptsResult {
            Objects.requireNonNull(prompts, "prompts");
        }

        public ListPromptsResult(Page page, long ttlMs, String cacheScope) {
            this(McpNames.ResultTypes.COMPLETE, page.items(), page.nextCursor(), ttlMs, cacheScope);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ListResourcesResult(
            String resultType, List<JsonNode> resources, String nextCursor, long ttlMs, String cacheScope) {
        public ListResourcesResult {
            Objects.requireNonNull(resources, "resources");
        }

        public ListResourcesResult(Page page, long ttlMs, String cacheScope) {
            this(McpNames.ResultTypes.COMPLETE, page.items(), page.nextCursor(), ttlMs, cacheScope);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ListResourceTemplatesResult(
            String resultType, List<JsonNode> resourceTemplates, String nextCursor, long ttlMs, String cacheScope) {
        public ListResourceTemplatesResult {
            Objects.requireNonNull(resourceTemplates, "resourceTemplates");
        }

        public ListResourceTemplatesResult(Page page, long ttlMs, String cacheScope) {
            this(McpNames.ResultTypes.COMPLETE, page.items(), page.nextCursor(), ttlMs, cacheScope);
        }
    }

    /** One page of a list: its items and, when more follow, the cursor of the next page. */
    public record Page(List<JsonNode> items, String nextCursor) {
        /** The page of {@code all} that {@code cursor} (null or empty: the first page) points at. */
        public static Page of(List<JsonNode> all, String cursor, int pageSize) {
            int offset = Cursor.decode(cursor, all.size());
            int end = Math.min(all.size(), offset + pageSize);
            return new Page(List.copyOf(all.subList(offset, end)), end < all.size() ? Cursor.encode(end) : null);
        }
    }

    /** An opaque cursor: the offset of the next page, base64url-encoded. */
    public static final class Cursor {
        private static final String PREFIX = "offset:";

        private Cursor() {}

        public static String encode(int offset) {
            return Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString((PREFIX + offset).getBytes(StandardCharsets.UTF_8));
        }

        /** The empty string and a missing cursor both mean the first page; anything else unknown is -32602. */
        public static int decode(String cursor, int size) {
            if (cursor == null || cursor.isEmpty()) {
                return 0;
            }
            try {
                String decoded = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
                if (decoded.startsWith(PREFIX)) {
                    int offset = Integer.parseInt(decoded.substring(PREFIX.length()));
                    if (offset >= 0 && offset <= size) {
                        return offset;
                    }
                }
            } catch (IllegalArgumentException ignored) {
                // falls through to the error below
            }
            throw dev.parley.runtime.McpException.invalidParams("Invalid cursor");
        }
    }
}
