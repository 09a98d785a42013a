package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Params of the notifications the server sends (spec §5.5, §7.1, §7.6; ext-tasks §3.4). */
public final class Notifications {
    private Notifications() {}

    /** {@code notifications/progress}. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record Progress(JsonNode progressToken, double progress, Double total, String message) {
        public Progress {
            Objects.requireNonNull(progressToken, "progressToken");
        }
    }

    /** {@code notifications/message}. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record LogMessage(String level, String logger, JsonNode data) {
        public LogMessage {
            Objects.requireNonNull(level, "level");
        }
    }

    /** {@code notifications/{tools,prompts,resources}/list_changed} on a listen stream. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ListChanged(@JsonProperty("_meta") Map<String, Object> meta) {}

    /** {@code notifications/resources/updated}. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record ResourceUpdated(
            String uri, @JsonProperty("_meta") Map<String, Object> meta) {
        public ResourceUpdated {
            Objects.requireNonNull(uri, "uri");
        }
    }

    /** A {@code subscriptions/listen} filter (spec §5.5; {@code taskIds} from the tasks extension). */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record SubscriptionFilter(
            Boolean toolsListChanged,
            Boolean promptsListChanged,
            Boolean resourcesListChanged,
            List<String> resourceSubscriptions,
            List<String> taskIds) {}

    /** {@code notifications/subscriptions/acknowledged}: the subset of the filter the server honours. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record SubscriptionAcknowledged(
            SubscriptionFilter notifications,
            @JsonProperty("_meta") Map<String, Object> meta) {
        public SubscriptionAcknowledged {
            Objects.requireNonNull(notifications, "notifications");
        }
    }

    /** The {@code _meta} that tags every message of one listen stream. */
    public static Map<String, Object> subscription(JsonNode listenRequestId) {
        return Map.of(McpNames.Meta.SUBSCRIPTION_ID, listenRequestId);
    }
}
