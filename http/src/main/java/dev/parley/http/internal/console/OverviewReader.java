package dev.parley.http.internal.console;

import dev.parley.actors.internal.NodeSharding;
import dev.parley.actors.internal.SessionEntity;
import dev.parley.actors.internal.TaskEntity;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.http.internal.console.ConsoleApi.ClusterView;
import dev.parley.http.internal.console.ConsoleApi.EntityShards;
import dev.parley.http.internal.console.ConsoleApi.Member;
import dev.parley.http.internal.console.ConsoleApi.MethodCount;
import dev.parley.http.internal.console.ConsoleApi.Overview;
import dev.parley.http.internal.console.ConsoleApi.RegionShards;
import dev.parley.http.internal.console.ConsoleApi.ToolLatency;
import dev.parley.runtime.internal.wire.McpMethod;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.GetClusterShardingStats;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.cluster.typed.Cluster;

/** Builds the console's overview from this node's metrics registry and Pekko's cluster and sharding state. */
final class OverviewReader {
    private static final Duration SHARDING_STATS_TIMEOUT = Duration.ofSeconds(3);
    private static final List<EntityTypeKey<?>> ENTITY_TYPES =
            List.of(ToolCallEntity.ENTITY_TYPE_KEY, TaskEntity.ENTITY_TYPE_KEY, SessionEntity.ENTITY_TYPE_KEY);

    private final ActorSystem<?> system;
    private final MeterRegistry registry;

    OverviewReader(ActorSystem<?> system) {
        this.system = system;
        this.registry = ParleyMetrics.get(system).registry();
    }

    CompletionStage<Overview> read() {
        List<CompletableFuture<EntityShards>> shards =
                ENTITY_TYPES.stream().map(this::shards).toList();
        return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new))
                .thenApply(done ->
                        overview(shards.stream().map(CompletableFuture::join).toList()));
    }

    private Overview overview(List<EntityShards> sharding) {
        Map<String, Long> byMethod = new TreeMap<>();
        Map<String, Long> errors = new TreeMap<>();
        Map<String, Long> toolCounts = new TreeMap<>();
        Map<String, TreeMap<Double, Double>> toolBuckets = new TreeMap<>();
        for (Timer timer : registry.find(ParleyMetrics.OPERATION_DURATION).timers()) {
            long count = timer.count();
            byMethod.merge(timer.getId().getTag("mcp.method.name"), count, Long::sum);
            String code = timer.getId().getTag("rpc.response.status_code");
            if ("error".equals(timer.getId().getTag("parley.result_type")) && code != null && !code.isEmpty()) {
                errors.merge(code, count, Long::sum);
            }
            String tool = timer.getId().getTag("gen_ai.tool.name");
            if (McpMethod.TOOLS_CALL.wireName().equals(timer.getId().getTag("mcp.method.name"))
                    && tool != null
                    && !tool.isEmpty()) {
                toolCounts.merge(tool, count, Long::sum);
                TreeMap<Double, Double> buckets = toolBuckets.computeIfAbsent(tool, key -> new TreeMap<>());
                for (CountAtBucket bucket : timer.takeSnapshot().histogramCounts()) {
                    buckets.merge(bucket.bucket(TimeUnit.SECONDS), bucket.count(), Double::sum);
                }
            }
        }
        List<MethodCount> requests = byMethod.entrySet().stream()
                .map(e -> new MethodCount(e.getKey(), e.getValue()))
                .toList();
        List<ToolLatency> tools = toolCounts.entrySet().stream()
                .map(e -> new ToolLatency(
                        e.getKey(),
                        e.getValue(),
                        quantile(toolBuckets.get(e.getKey()), e.getValue(), 0.50),
                        quantile(toolBuckets.get(e.getKey()), e.getValue(), 0.99)))
                .toList();
        return new Overview(
                Instant.now(),
                requests,
                tools,
                (long) gauge("parley.calls.waiting"),
                tagged("parley.tasks.open", "status", true),
                tagged("parley.tasks", "status", false),
                errors,
                tagged("parley.edge.refused", "reason", false),
                tagged(ParleyMetrics.ELICITATION_ANSWERS, "action", false),
                tagged(ParleyMetrics.DEPRECATED_REQUESTS, "method", false),
                cluster(sharding));
    }

    /** The smallest bucket bound holding {@code q} of the {@code count} samples (cumulative bucket counts); null past the last bound. */
    static Double quantile(TreeMap<Double, Double> cumulative, long count, double q) {
        if (cumulative == null || count == 0) {
            return null;
        }
        double rank = q * count;
        for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
            if (bucket.getValue() >= rank) {
                return bucket.getKey();
            }
        }
        return null;
    }

    private double gauge(String name) {
        Gauge gauge = registry.find(name).gauge();
        return gauge == null ? 0 : gauge.value();
    }

    /** Gauges or counters of {@code name} summed by one tag's value. */
    private Map<String, Long> tagged(String name, String tag, boolean gauges) {
        Map<String, Long> values = new TreeMap<>();
        if (gauges) {
            for (Gauge gauge : registry.find(name).gauges()) {
                values.merge(gauge.getId().getTag(tag), (long) gauge.value(), Long::sum);
            }
        } else {
            for (Counter counter : registry.find(name).counters()) {
                values.merge(counter.getId().getTag(tag), (long) counter.count(), Long::sum);
            }
        }
        return values;
    }

    private ClusterView cluster(List<EntityShards> sharding) {
        if (!NodeSharding.clustered(system)) {
            String self = system.address().toString();
            return new ClusterView(self, null, List.of(new Member(self, "alone", true, List.of())), sharding);
        }
        Cluster cluster = Cluster.get(system);
        var state = cluster.state();
        Set<org.apache.pekko.cluster.Member> unreachable = state.getUnreachable();
        List<Member> members = new ArrayList<>();
        for (org.apache.pekko.cluster.Member member : state.getMembers()) {
            members.add(new Member(
                    member.address().toString(),
                    member.status().toString(),
                    !unreachable.contains(member),
                    StreamSupport.stream(member.getRoles().spliterator(), false)
                            .filter(role -> !role.startsWith("dc-"))
                            .sorted()
                            .toList()));
        }
        Address leader = state.getLeader();
        return new ClusterView(
                cluster.selfMember().address().toString(),
                leader == null ? null : leader.toString(),
                members,
                sharding);
    }

    private CompletableFuture<EntityShards> shards(EntityTypeKey<?> type) {
        if (!NodeSharding.clustered(system)) {
            String self = system.address().toString();
            return NodeSharding.liveEntitiesAlone(system, type, SHARDING_STATS_TIMEOUT)
                    .thenApply(entities -> new EntityShards(
                            type.name(), List.of(new RegionShards(self, 1, entities)), List.<String>of()))
                    .toCompletableFuture()
                    .exceptionally(failure ->
                            new EntityShards(type.name(), List.of(), List.of("no answer: " + failure.getMessage())));
        }
        return AskPattern
                .<org.apache.pekko.cluster.sharding.typed.ClusterShardingQuery, ShardRegion.ClusterShardingStats>ask(
                        ClusterSharding.get(system).shardState(),
                        replyTo -> new GetClusterShardingStats(type, SHARDING_STATS_TIMEOUT, replyTo),
                        SHARDING_STATS_TIMEOUT.plusSeconds(1),
                        system.scheduler())
                .thenApply(stats -> {
                    List<RegionShards> regions = new ArrayList<>();
                    List<String> failed = new ArrayList<>();
                    stats.getRegions().forEach((address, region) -> {
                        int entities = region.getStats().values().stream()
                                .mapToInt(count -> ((Number) count).intValue())
                                .sum();
                        regions.add(new RegionShards(
                                address.toString(), region.getStats().size(), entities));
                        region.getFailed().forEach(shard -> failed.add(address + " shard " + shard));
                    });
                    regions.sort(java.util.Comparator.comparing(RegionShards::address));
                    return new EntityShards(type.name(), regions, failed);
                })
                .toCompletableFuture()
                .exceptionally(failure ->
                        new EntityShards(type.name(), List.of(), List.of("no answer: " + failure.getMessage())));
    }
}
