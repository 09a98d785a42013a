package dev.parley.actors.internal.ops;

import dev.parley.actors.internal.NodeSharding;
import dev.parley.actors.internal.journal.JournalAvailability;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.persistence.jdbc.db.SlickExtension;
import org.apache.pekko.persistence.jdbc.db.SlickExtensionImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node should get traffic. Ready means: the MCP endpoint is bound, this member is
 * Up in the cluster, the sharding regions are started, the journal answers a cheap query, and
 * the node is not draining. The parts are reported by whoever owns them ({@code ParleyNode},
 * the HTTP server, the shutdown tasks); the management endpoint's {@code /ready} asks here.
 */
public final class NodeHealth implements Extension {
    private static final Logger log = LoggerFactory.getLogger(NodeHealth.class);

    private static final ExtensionId<NodeHealth> ID = new ExtensionId<>() {
        @Override
        public NodeHealth createExtension(ActorSystem<?> system) {
            return new NodeHealth(system);
        }
    };

    private final ActorSystem<?> system;
    private final Executor blocking;
    /** Within pekko-management's check-timeout (2 s), so a slow journal is a clean "not ready". */
    private static final Duration JOURNAL_ANSWER_LIMIT = Duration.ofMillis(1500);

    private final AtomicReference<CompletableFuture<Boolean>> probe = new AtomicReference<>();
    private volatile boolean shardingStarted;
    private volatile boolean endpointBound;
    private volatile boolean draining;

    private NodeHealth(ActorSystem<?> system) {
        this.system = system;
        this.blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
    }

    public static NodeHealth get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    /** The journal schema is set up and the sharding regions of calls and tasks are started. */
    public void shardingStarted() {
        this.shardingStarted = true;
    }

    /** The MCP endpoint accepts connections. */
    public void endpointBound() {
        this.endpointBound = true;
    }

    /** Shutdown began: from now on the node reports not ready and refuses new requests. */
    public void startDraining() {
        this.draining = true;
    }

    public boolean draining() {
        return draining;
    }

    /** Completes with true when the node is ready; the journal query runs on Pekko's blocking dispatcher. */
    public CompletionStage<Boolean> ready() {
        List<String> missing = new ArrayList<>();
        if (draining) {
            missing.add("draining");
        }
        if (!endpointBound) {
            missing.add("MCP endpoint not bound");
        }
        if (!shardingStarted) {
            missing.add("sharding not started");
        }
        if (NodeSharding.clustered(system)
                && !Cluster.get(system).selfMember().status().equals(MemberStatus.up())) {
            missing.add("cluster member is " + Cluster.get(system).selfMember().status());
        }
        if (!JournalAvailability.get(system).available()) {
            missing.add("journal unavailable");
        }
        if (!missing.isEmpty()) {
            log.debug("not ready: {}", missing);
            return CompletableFuture.completedFuture(false);
        }
        return journalProbe();
    }

    /**
     * At most one journal query in flight (a stopped database may hold a pool connection attempt
     * for seconds; probes must not pile up); an answer later than {@link #JOURNAL_ANSWER_LIMIT}
     * counts as not ready.
     */
    private CompletableFuture<Boolean> journalProbe() {
        CompletableFuture<Boolean> running = probe.get();
        if (running != null && !running.isDone()) {
            return running.copy().completeOnTimeout(false, JOURNAL_ANSWER_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        CompletableFuture<Boolean> started = CompletableFuture.supplyAsync(this::journalAnswers, blocking);
        probe.set(started);
        return started.copy().completeOnTimeout(false, JOURNAL_ANSWER_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * A cheap query through the journal plugin's own connection pool (the one entities write
     * through), with a one-second query timeout.
     */
    private boolean journalAnswers() {
        SlickExtensionImpl slick = (SlickExtensionImpl) SlickExtension.get(system.classicSystem());
        try (Connection connection = slick.database(system.settings().config().getConfig("jdbc-journal"))
                        .database()
                        .source()
                        .createConnection();
                Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(1);
            statement.execute("SELECT 1");
            return true;
        } catch (SQLException | RuntimeException e) {
            log.warn("not ready: the journal does not answer ({})", e.getMessage());
            JournalAvailability.get(system).probeFailed(e); // requests that need it get 503 at once
            return false;
        }
    }
}
