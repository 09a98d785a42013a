package dev.parley.http.internal.ops;

import com.typesafe.config.Config;
import dev.parley.actors.internal.ops.NodeHealth;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.http.internal.HttpReplies;
import dev.parley.http.internal.HttpStatusTable.Refusal;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.Connection;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.management.javadsl.PekkoManagement;
import org.apache.pekko.pattern.Patterns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's shutdown on Pekko's {@link CoordinatedShutdown} (run by its JVM hook on SIGTERM, or
 * by {@code close()}), in Pekko's phases:
 * <ol>
 *   <li>{@code before-service-unbind}: the node reports not ready and refuses new MCP requests
 *       with 503 and {@code Retry-After}; it waits {@code parley.lifecycle.readiness-delay} so
 *       load balancers see the change before the port closes;</li>
 *   <li>{@code service-unbind}: the MCP port stops accepting connections;</li>
 *   <li>{@code service-requests-done}: in-flight requests finish, for at most
 *       {@code parley.lifecycle.in-flight-timeout};</li>
 *   <li>Pekko's own phases: the shards are handed over, the member leaves the cluster, the
 *       actor system stops (and with it the journal's connection pool);</li>
 *   <li>{@code before-actor-system-terminate}: the management endpoint stops.</li>
 * </ol>
 */
public final class NodeLifecycle {
    private static final Logger log = LoggerFactory.getLogger(NodeLifecycle.class);
    private static final Duration START_GARBAGE_DELAY = Duration.ofSeconds(2);

    /** The {@code parley.lifecycle} block. */
    public record Settings(
            Duration readinessDelay,
            Duration inFlightTimeout,
            Duration retryAfter,
            boolean collectStartGarbage,
            Duration trimNativeHeapEvery) {
        public static Settings from(Config config) {
            Config lifecycle = config.getConfig("parley.lifecycle");
            return new Settings(
                    lifecycle.getDuration("readiness-delay"),
                    lifecycle.getDuration("in-flight-timeout"),
                    lifecycle.getDuration("retry-after"),
                    lifecycle.getBoolean("collect-start-garbage"),
                    lifecycle.getDuration("trim-native-heap-every"));
        }
    }

    private final ActorSystem<?> system;
    private final NodeHealth health;
    private final ParleyMetrics metrics;
    private final Settings settings;

    /** The lifecycle of the node on {@code system}; {@link #install} adds its shutdown tasks. */
    public NodeLifecycle(ActorSystem<?> system, Settings settings) {
        this.system = system;
        this.health = NodeHealth.get(system);
        this.metrics = ParleyMetrics.get(system);
        this.settings = settings;
    }

    /**
     * Registers the shutdown tasks for the MCP endpoint's {@code binding}; marks the endpoint bound;
     * schedules the start collection.
     */
    public void install(ServerBinding binding, boolean managementStarted) {
        CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
        shutdown.addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "parley-not-ready", () -> {
            health.startDraining();
            log.info(
                    "draining: not ready; new requests get 503; the MCP port closes in {} ms",
                    settings.readinessDelay().toMillis());
            return Patterns.after(
                    settings.readinessDelay(),
                    system.classicSystem().scheduler(),
                    system.executionContext(),
                    () -> CompletableFuture.completedFuture(Done.getInstance()));
        });
        // service-unbind: stop accepting; service-requests-done: in-flight requests get their time.
        binding.addToCoordinatedShutdown(settings.inFlightTimeout(), system);
        if (managementStarted) {
            shutdown.addTask(
                    CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
                    "parley-management-stop",
                    () -> PekkoManagement.get(system.classicSystem()).stop());
        }
        health.endpointBound();
        if (settings.collectStartGarbage()) {
            collectStartGarbage();
        }
    }

    /**
     * One full collection, on a thread of its own, two seconds after the endpoint is bound (after a
     * client's first requests, which come at once). A start allocates far more than the node keeps
     * (configuration, class loading, tool definitions), and the heap regions it touched stay resident
     * until a full collection gives them back to the operating system: about 15 MB of an idle node's
     * memory. The pause is tens of milliseconds, once. Then the same thread gives the C library's
     * free memory back ({@link #trimNativeHeap}), at once and every {@code trim-native-heap-every}.
     */
    private void collectStartGarbage() {
        long trimEveryMillis = settings.trimNativeHeapEvery().toMillis();
        Thread collect = new Thread(
                () -> {
                    try {
                        Thread.sleep(START_GARBAGE_DELAY.toMillis());
                        if (running()) {
                            System.gc();
                            trimNativeHeap();
                        }
                        while (trimEveryMillis > 0 && running()) {
                            Thread.sleep(trimEveryMillis);
                            trimNativeHeap();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "parley-memory");
        collect.setDaemon(true);
        collect.start();
    }

    private boolean running() {
        return !system.getWhenTerminated().toCompletableFuture().isDone();
    }

    /**
     * Gives the C library's free memory back to the operating system, as {@code jcmd PID
     * System.trim_native_heap} does. The JIT compiler and class parsing malloc and free as they work,
     * and glibc keeps what was freed resident: 6-12 MB of an idle demo node some seconds after its
     * start. The JVM offers it from 17.0.9 on glibc; elsewhere the command is missing or says it is
     * not supported, and nothing happens.
     */
    private static void trimNativeHeap() {
        try {
            Object outcome = ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "systemTrimNativeHeap",
                            new Object[] {new String[0]},
                            new String[] {String[].class.getName()});
            log.debug("{}", String.valueOf(outcome).strip());
        } catch (JMException | RuntimeException e) {
            log.debug("the native heap is not trimmed on this JVM: {}", e.toString());
        }
    }

    /** {@code inner}, unless the node is draining: then a clean, retryable 503 with {@code Retry-After}. */
    public Function<HttpRequest, CompletionStage<HttpResponse>> gate(
            Function<HttpRequest, CompletionStage<HttpResponse>> inner) {
        return request -> {
            if (!health.draining()) {
                return inner.apply(request);
            }
            metrics.refusedAtEdge("draining");
            request.discardEntityBytes(system);
            return CompletableFuture.completedFuture(HttpReplies.refusal(
                            Refusal.DRAINING, "The server is shutting down; retry the request")
                    .addHeader(RawHeader.create(
                            "Retry-After",
                            Long.toString(Math.max(1, settings.retryAfter().toSeconds()))))
                    .addHeader(Connection.create("close")));
        };
    }
}
