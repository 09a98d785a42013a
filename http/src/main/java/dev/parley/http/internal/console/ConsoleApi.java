package dev.parley.http.internal.console;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What the console's JSON endpoints ({@code /console/api/...}) answer: records, written by Jackson. */
public final class ConsoleApi {
    private ConsoleApi() {}

    // --- overview ---------------------------------------------------------------------------

    /**
     * The overview: this node's request counters (cumulative; the page turns two of them into a
     * rate), latency per tool, elicitation answers by action (unanswerable: the tool's fallback
     * ran), requests using deprecated features by method, the journal gauges and the cluster.
     * Read from the same registry as {@code /metrics}.
     */
    public record Overview(
            Instant at,
            List<MethodCount> requests,
            List<ToolLatency> tools,
            long callsWaiting,
            Map<String, Long> openTasks,
            Map<String, Long> tasksReached,
            Map<String, Long> errorsByCode,
            Map<String, Long> refusedAtEdge,
            Map<String, Long> elicitationAnswers,
            Map<String, Long> deprecatedRequests,
            ClusterView cluster) {}

    /** Requests answered for {@code method} since the node started. */
    public record MethodCount(String method, long count) {}

    /**
     * {@code tools/call} latency of one tool: the upper bound of the histogram bucket that holds
     * the quantile (as Prometheus' {@code histogram_quantile} bounds it); null above the last bucket.
     */
    public record ToolLatency(String tool, long count, Double p50Seconds, Double p99Seconds) {}

    public record ClusterView(String self, String leader, List<Member> members, List<EntityShards> sharding) {}

    public record Member(String address, String status, boolean reachable, List<String> roles) {}

    /** Shards and entities in memory per region (node) for one entity type; {@code failed} lists regions that did not answer. */
    public record EntityShards(String entityType, List<RegionShards> regions, List<String> failed) {}

    public record RegionShards(String address, int shards, int entities) {}

    // --- lists ------------------------------------------------------------------------------

    /** One page of calls or tasks, newest first; {@code next} is the cursor of the next page (null on the last). */
    public record ListPage(
            String kind,
            String status,
            List<ListItem> items,
            @JsonInclude(JsonInclude.Include.NON_NULL) String next) {}

    /** A call or task as a list shows it; {@code principal} is a digest, never the principal's id. */
    public record ListItem(
            String id,
            String method,
            String name,
            String status,
            String principal,
            Instant startedAt,
            Instant lastEventAt,
            long ageSeconds,
            long events) {}

    // --- timelines --------------------------------------------------------------------------

    /**
     * A call's or task's history from its journal. {@code arguments}, answers' contents, step
     * values and the result are present only with {@code parley.console.show-contents}.
     * {@code statusMessage} is a working task's latest progress message (kept in memory, not journaled).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Timeline(
            String kind,
            String id,
            String method,
            String name,
            String principal,
            String status,
            Instant startedAt,
            Instant lastEventAt,
            String statusMessage,
            boolean contentsShown,
            JsonNode arguments,
            List<Round> rounds,
            List<Step> steps,
            Outcome outcome,
            List<Event> events) {}

    /**
     * One round: for a call, one request (the first, then each retry); for a task, the run up to
     * its next question. {@code answers} are those that opened it, {@code questions} those it ended with.
     */
    public record Round(
            int number, Instant at, List<Answer> answers, List<String> steps, List<Question> questions, String ended) {}

    public record Question(String key, String method, String mode, String message) {}

    /** An answer's key and action; {@code content} only when contents are shown, else {@code redacted} says there was some. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Answer(String key, String action, JsonNode content, boolean redacted) {}

    /**
     * A journaled step. {@code durationMs} is the time from the previous journal event of the same
     * run to the step's write; null where the run's start is not in the journal (a call's first
     * round, and the first step of a call's later round).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Step(String name, int round, Instant at, Long durationMs, JsonNode value) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Outcome(
            String status, Instant at, Integer errorCode, String errorMessage, String taskId, JsonNode result) {}

    /** Every journal event: its sequence number, when it was written, its stable type name, the time since the previous one. */
    public record Event(long sequence, Instant at, String type, long sincePreviousMs) {}

    // --- actions and errors -----------------------------------------------------------------

    public record Cancelled(String taskId, String status, String by) {}

    public record Problem(String error) {}
}
