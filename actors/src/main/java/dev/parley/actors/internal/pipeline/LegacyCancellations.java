package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.CborSerializable;
import dev.parley.runtime.internal.engine.Cancellation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * {@code notifications/cancelled} for 2025-11-25 requests over HTTP. The notification is its own
 * POST and may reach any node, while the request's stream (and its first round, if it still runs)
 * is on one node: the cancel is published to every node, and the node holding that session's
 * request cancels it there. A cancelled request's stream ends without a response (spec 2025-11-25
 * cancellation); what the call journaled stays, as a 2026 call's does.
 */
public final class LegacyCancellations {
    /** A cancel for {@code requestId} (its JSON text) of {@code sessionId}, sent by {@code principal}. */
    public record Cancelled(String sessionId, String principal, String requestId) implements CborSerializable {}

    private final Map<String, List<Cancellation>> inFlight = new ConcurrentHashMap<>();
    private final ActorRef<Topic.Command<Cancelled>> topic;

    LegacyCancellations(ActorSystem<?> system) {
        this.topic = NodeTopics.join(system, Cancelled.class, "parley-legacy-cancellations", cancelled -> {
            List<Cancellation> cancellations =
                    inFlight.remove(key(cancelled.sessionId(), cancelled.principal(), cancelled.requestId()));
            if (cancellations != null) {
                cancellations.forEach(Cancellation::cancel);
            }
        });
    }

    /**
     * Tracks a request of {@code sessionId} in flight on this node until {@code done} fires;
     * a cancel fires every one of {@code cancellations}.
     */
    public void track(
            String sessionId, String principal, JsonNode requestId, Cancellation done, Cancellation... cancellations) {
        String key = key(sessionId, principal, requestId.toString());
        inFlight.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).addAll(List.of(cancellations));
        done.onCancel(() -> inFlight.remove(key));
    }

    /** A client's {@code notifications/cancelled} on {@code sessionId}: to every node. */
    public void cancel(String sessionId, String principal, JsonNode requestId) {
        if (requestId != null && (requestId.isTextual() || requestId.isIntegralNumber())) {
            topic.tell(Topic.publish(new Cancelled(sessionId, principal, requestId.toString())));
        }
    }

    private static String key(String sessionId, String principal, String requestId) {
        return sessionId + '\u0000' + principal + '\u0000' + requestId;
    }
}
