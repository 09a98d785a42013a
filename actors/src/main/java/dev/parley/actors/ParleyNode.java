package dev.parley.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalRetention;
import dev.parley.persistence.JournalSchema;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.engine.ReplayEngine;
import dev.parley.runtime.state.RequestStateCodec;
import dev.parley.runtime.state.RequestStateKey;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One Parley node: the actor system (a cluster member; of one when no seed nodes are set), the
 * journal, the sharded call entities, the tool executor and the dispatcher. Transport-free.
 */
public final class ParleyNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ParleyNode.class);

  private final ActorSystem<Void> system;
  private final ExecutorService toolExecutor;
  private final McpDispatcher dispatcher;
  private final ScheduledExecutorService housekeeping;

  private ParleyNode(ActorSystem<Void> system, ExecutorService toolExecutor, McpDispatcher dispatcher,
      ScheduledExecutorService housekeeping) {
    this.system = system;
    this.toolExecutor = toolExecutor;
    this.dispatcher = dispatcher;
    this.housekeeping = housekeeping;
  }

  /**
   * The configuration a node runs with, strongest first: system properties, the database,
   * {@code overrides} (application settings, without reference.conf), Parley's node and
   * persistence settings, then every library's reference.conf.
   */
  public static Config effectiveConfig(Config overrides, JournalDatabase database) {
    return ConfigFactory.load(database.config()
        .withFallback(overrides)
        .withFallback(ConfigFactory.parseResources("parley-node.conf"))
        .withFallback(ConfigFactory.parseResources("parley-persistence.conf")));
  }

  /**
   * Creates the journal schema, starts the actor system with {@link #effectiveConfig}, joins
   * the cluster (itself, without seed nodes) and starts sharding for calls.
   */
  public static ParleyNode start(String systemName, Config overrides, JournalDatabase database,
      McpServerDefinition server, List<RequestStateKey> stateKeys) {
    JournalSchema.create(database);
    Config effective = effectiveConfig(overrides, database);
    ParleySettings settings = ParleySettings.from(effective);
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), systemName, effective);
    Cluster cluster = Cluster.get(system);
    if (effective.getStringList("pekko.cluster.seed-nodes").isEmpty()) {
      cluster.manager().tell(Join.create(cluster.selfMember().address()));
    }
    ExecutorService toolExecutor = Executors.newFixedThreadPool(settings.toolExecutorThreads(), threads("parley-tool"));
    ReplayEngine engine = new ReplayEngine(toolExecutor);
    ClusterSharding sharding = ClusterSharding.get(system);
    sharding.init(Entity.of(ToolCallEntity.ENTITY_TYPE_KEY, entityContext ->
        ToolCallEntity.create(entityContext.getEntityId(), server, engine, toolExecutor, settings.stepTimeout())));
    RequestStateCodec codec = new RequestStateCodec(stateKeys, settings.requestStateLifetime(), Clock.systemUTC());
    ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(threads("parley-retention"));
    JournalRetention retention = new JournalRetention(
        database, ToolCallEntity.ENTITY_TYPE_KEY.name() + "|", settings.retentionAfter(), Clock.systemUTC());
    long interval = settings.retentionInterval().toMillis();
    housekeeping.scheduleWithFixedDelay(() -> {
      try {
        retention.purge();
      } catch (RuntimeException e) {
        log.warn("journal retention run failed; will retry", e);
      }
    }, interval, interval, TimeUnit.MILLISECONDS);
    return new ParleyNode(system, toolExecutor, new McpDispatcher(server, engine, codec, sharding, settings,
        ServerNotifications.start(system, server)), housekeeping);
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  public ActorSystem<Void> system() {
    return system;
  }

  public McpDispatcher dispatcher() {
    return dispatcher;
  }

  /** Leaves the cluster, stops the actor system and the tool executor; waits up to 30 s. */
  @Override
  public void close() {
    housekeeping.shutdownNow();
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("actor system did not stop in time", e);
    } finally {
      housekeeping.shutdownNow();
      toolExecutor.shutdownNow();
    }
  }
}
