package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.Discovery.Implementation;
import dev.parley.runtime.internal.wire.Discovery.ServerCapabilities;
import java.util.List;
import java.util.Objects;

/**
 * The 2025-11-25 era (sessions, {@code initialize}): the versions it negotiates, its own results,
 * and how a result of the shared pipeline is written for it (spec 2025-11-25 §2).
 */
public final class Legacy {
    private Legacy() {}

    /** The 2025-era revisions a client may ask for at {@code initialize}, newest first. */
    public static final List<String> VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26");

    public static final String INITIALIZE = "initialize";
    public static final String PING = "ping";
    public static final String LOGGING_SET_LEVEL = "logging/setLevel";
    public static final String RESOURCES_SUBSCRIBE = "resources/subscribe";
    public static final String RESOURCES_UNSUBSCRIBE = "resources/unsubscribe";
    public static final String NOTIFICATION_INITIALIZED = "notifications/initialized";
    public static final String NOTIFICATION_CANCELLED = "notifications/cancelled";

    /** What {@code initialize} answers to a client asking for {@code requested}: it, if supported, else the latest. */
    public static String negotiate(String requested) {
        return VERSIONS.contains(requested) ? requested : VERSIONS.get(0);
    }

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record InitializeResult(
            String protocolVersion, ServerCapabilities capabilities, Implementation serverInfo, String instructions) {
        public InitializeResult {
            Objects.requireNonNull(protocolVersion, "protocolVersion");
            Objects.requireNonNull(capabilities, "capabilities");
            Objects.requireNonNull(serverInfo, "serverInfo");
        }
    }

    /** The empty result of {@code ping}, {@code logging/setLevel} and the subscriptions: exactly {@code {}}. */
    public record EmptyResult() {}

    /** Members a 2026-07-28 result carries that the 2025-11-25 schema does not know. */
    private static final List<String> MODERN_ONLY = List.of("resultType", "ttlMs", "cacheScope");

    /**
     * A pipeline result as a 2025-11-25 client expects it: the same record, without the members
     * that only 2026-07-28 defines (removed at the top level only, where the 2026 schema puts them).
     */
    public static JsonNode result(Object modernResult) {
        // A copy: the result may be an entity's recorded outcome, which must not change.
        JsonNode tree = modernResult instanceof JsonNode node ? node.deepCopy() : Json.tree(modernResult);
        if (tree instanceof ObjectNode object) {
            object.remove(MODERN_ONLY);
        }
        return tree;
    }
}
