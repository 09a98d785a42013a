package dev.parley.http;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.NodeConfig;
import dev.parley.actors.ParleyNode;
import dev.parley.actors.ParleySettings;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.actors.internal.pipeline.McpPipeline;
import dev.parley.http.auth.AuthSettings;
import dev.parley.http.auth.RequestAuthorization;
import dev.parley.http.internal.ConnectionGuard;
import dev.parley.http.internal.ConnectionLimits;
import dev.parley.http.internal.McpRoutes;
import dev.parley.http.internal.StdioTransport;
import dev.parley.http.internal.auth.OAuthResourceServer;
import dev.parley.http.internal.auth.ProtectedResourceRoutes;
import dev.parley.http.internal.console.ConsoleJournal;
import dev.parley.http.internal.ops.ManagementSettings;
import dev.parley.http.internal.ops.NodeLifecycle;
import dev.parley.http.internal.ops.TracingSetup;
import dev.parley.persistence.JournalDatabase;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.RequestLimits;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.Uri;
import org.apache.pekko.http.javadsl.server.Directives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.management.javadsl.PekkoManagement;
import org.apache.pekko.stream.Materializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Boots a Parley server: a {@link ParleyNode} plus the HTTP binding of its MCP endpoint.
 *
 * <pre>{@code
 * McpHttpServer server = McpHttpServer.builder(definition).dataDirectory(Path.of("data")).start();
 * }</pre>
 */
public final class McpHttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(McpHttpServer.class);

    private final ParleyNode node;
    private final ServerBinding binding;
    private final int managementPort;
    /** The pipes {@link Builder#stdio} opened; null without. */
    private final StdioTransport.Pipes stdio;
    /** {@code parley.http.request-limits}: stdio parses with the same limits as HTTP. */
    private final RequestLimits requestLimits;

    private McpHttpServer(
            ParleyNode node,
            ServerBinding binding,
            int managementPort,
            StdioTransport.Pipes stdio,
            RequestLimits requestLimits) {
        this.node = node;
        this.binding = binding;
        this.managementPort = managementPort;
        this.stdio = stdio;
        this.requestLimits = requestLimits;
    }

    public static Builder builder(McpServerDefinition definition) {
        return new Builder(definition);
    }

    public int port() {
        return binding.localAddress().getPort();
    }

    /** The port of {@code /ready}, {@code /alive} and {@code /metrics}; -1 when management is off. */
    public int managementPort() {
        return managementPort;
    }

    public ParleyNode node() {
        return node;
    }

    /**
     * Serves MCP over stdio as well (both eras, newline-delimited JSON-RPC) until {@code in} ends:
     * the same pipeline, journal and durability as the HTTP endpoint. Blocks.
     *
     * @param principal who is on the other end of the pipes (every requestState and session binds to it)
     */
    public void serveStdio(InputStream in, OutputStream out, String principal) {
        serve(StdioTransport.Pipes.open(in, out, principal, null));
    }

    /**
     * Serves the pipes {@link Builder#stdio} opened until their input ends; the requests that
     * arrived while the node started come first. Blocks.
     */
    public void serveStdio() {
        if (stdio == null) {
            throw new IllegalStateException("no stdio pipes: the builder was not given any");
        }
        serve(stdio);
    }

    private void serve(StdioTransport.Pipes pipes) {
        new StdioTransport(node.pipeline(), requestLimits, Materializer.matFromSystem(node.system()), pipes).serve();
    }

    /**
     * Runs the node's coordinated shutdown (see {@link NodeLifecycle}: not ready, refuse new
     * requests, unbind, let in-flight requests finish, hand over, leave, stop) and waits for it.
     */
    @Override
    public void close() {
        node.close();
    }

    public static final class Builder {
        private final McpServerDefinition definition;
        private Config config = ConfigFactory.parseResourcesAnySyntax("application");
        private Path dataDirectory = Path.of("data");
        private JournalDatabase database;
        private Integer port;
        private PrincipalResolver principals = PrincipalResolver.ANONYMOUS;
        private final List<Function<ParleyNode, Route>> extraRoutes = new ArrayList<>();
        private OpenTelemetry openTelemetry;
        private InputStream stdioIn;
        private OutputStream stdioOut;
        private String stdioPrincipal;

        private Builder(McpServerDefinition definition) {
            this.definition = definition;
        }

        /**
         * Application settings (overrides only): {@link NodeConfig} layers them with the system
         * properties, the journal's settings and the defaults at start.
         */
        public Builder config(Config config) {
            this.config = config;
            return this;
        }

        /**
         * Holds the H2 journal (unless {@code parley.journal} or {@link #database} names another) and
         * the generated state key (unless keys are configured).
         */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = dataDirectory;
            return this;
        }

        public Builder database(JournalDatabase database) {
            this.database = database;
            return this;
        }

        /** Overrides {@code parley.http.port}; 0 picks a free port. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Who a caller is when {@code parley.auth} is off (with it on, the access token says). */
        public Builder principals(PrincipalResolver principals) {
            this.principals = principals;
            return this;
        }

        /**
         * Traces with {@code openTelemetry} (the caller owns it). Without it, a node traces only when
         * {@code parley.tracing.enabled} is on or the OTEL_* variables name an exporter ({@link TracingSetup}).
         */
        public Builder openTelemetry(OpenTelemetry openTelemetry) {
            this.openTelemetry = openTelemetry;
            return this;
        }

        /**
         * Serves MCP on {@code in} and {@code out} too, for {@code principal}, once
         * {@link McpHttpServer#serveStdio()} is called. {@link #start} reads {@code in} from its
         * first moment: a {@code server/discover} written then is answered from the definition
         * while the node starts, and every other message waits for the node, in order.
         */
        public Builder stdio(InputStream in, OutputStream out, String principal) {
            this.stdioIn = in;
            this.stdioOut = out;
            this.stdioPrincipal = principal;
            return this;
        }

        /** Serves more routes beside the MCP endpoint on the same binding. */
        public Builder route(Function<ParleyNode, Route> route) {
            extraRoutes.add(route);
            return this;
        }

        /** Starts the node and binds; blocks until the endpoint accepts requests. */
        public McpHttpServer start() {
            warmUpTls();
            JournalDatabase journal =
                    database != null ? database : JournalDatabase.fromConfig(NodeConfig.load(config), dataDirectory);
            Config effective = NodeConfig.load(config, journal);
            StdioTransport.Pipes stdio = stdioIn == null
                    ? null
                    : StdioTransport.Pipes.open(
                            stdioIn,
                            stdioOut,
                            stdioPrincipal,
                            McpPipeline.discovery(definition, ParleySettings.from(effective)));
            HttpSettings settings = HttpSettings.from(effective);
            AuthSettings auth = AuthSettings.from(effective);
            ManagementSettings management = ManagementSettings.from(effective);
            // Management starts (on the system's dispatcher) as soon as the actor system exists, beside
            // the cluster, sharding and the MCP route: /ready says "not ready" until the node is.
            CompletableFuture<Uri> managementBound = new CompletableFuture<>();
            ParleyNode node = ParleyNode.builder(definition)
                    .config(config)
                    .journal(journal)
                    // Configured shared keys, or (standalone) the key kept in the data directory.
                    .stateKeyFile(dataDirectory.resolve("request-state.key"))
                    .whenSystemStarted(system -> {
                        ConsoleJournal.get(system).use(journal); // the console (on the management port) reads it
                        if (management.enabled()) {
                            CompletableFuture.supplyAsync(
                                            () -> PekkoManagement.get(system.classicSystem())
                                                    .start(),
                                            system.executionContext())
                                    .thenCompose(started -> started)
                                    .whenComplete((uri, failure) -> {
                                        if (failure != null) {
                                            managementBound.completeExceptionally(failure);
                                        } else {
                                            managementBound.complete(uri);
                                        }
                                    });
                        }
                    })
                    .start();
            try {
                ParleyTracing.get(node.system()).use(tracing(node, effective));
                NodeLifecycle lifecycle = new NodeLifecycle(node.system(), NodeLifecycle.Settings.from(effective));
                RequestAuthorization authorization = auth.enabled()
                        ? new OAuthResourceServer(auth, definition)
                        : RequestAuthorization.open(principals);
                McpRoutes mcp = new McpRoutes(
                        node.pipeline(), settings, authorization, Materializer.matFromSystem(node.system()));
                // What else the port serves; anything it does not match is answered 404.
                Route route = Directives.reject();
                if (auth.enabled()) {
                    route = route.orElse(new ProtectedResourceRoutes(auth).route());
                    log.info(
                            "OAuth resource server for {}, tokens from {}",
                            auth.resource(),
                            auth.authorizationServers());
                }
                for (Function<ParleyNode, Route> extra : extraRoutes) {
                    route = route.orElse(extra.apply(node));
                }
                // Each connection is counted and timed before any request is read (ConnectionGuard).
                ConnectionLimits connections = new ConnectionLimits(settings.connections());
                ParleyMetrics metrics = ParleyMetrics.get(node.system());
                // The MCP endpoint's requests skip the routing DSL (McpRoutes.serves); the rest are routed.
                org.apache.pekko.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> routed =
                        route.handler(node.system());
                ServerBinding binding = Http.get(node.system())
                        .newServerAt(settings.host(), port != null ? port : settings.port())
                        .bindFlow(ConnectionGuard.flow(
                                connections,
                                lifecycle.gate(
                                        request -> mcp.serves(request) ? mcp.respond(request) : routed.apply(request)),
                                () -> metrics.refusedAtEdge("too_many_connections")))
                        .toCompletableFuture()
                        .get(30, TimeUnit.SECONDS);
                int managementPort = -1;
                if (management.enabled()) {
                    managementPort = managementBound.get(30, TimeUnit.SECONDS).port();
                    log.info(
                            "management (/ready, /alive, /metrics, /console) at http://{}:{}/",
                            management.host(),
                            managementPort);
                }
                lifecycle.install(binding, managementPort >= 0);
                log.info(
                        "MCP endpoint at http://{}:{}/{}",
                        settings.host(),
                        binding.localAddress().getPort(),
                        settings.path());
                return new McpHttpServer(node, binding, managementPort, stdio, settings.requestLimits());
            } catch (Exception e) {
                node.close();
                throw new IllegalStateException("could not start the HTTP endpoint: " + e.getMessage(), e);
            }
        }

        /**
         * pekko-http's server stage makes a TLS engine even for plain HTTP (its TLS placebo), and the
         * JDK's default TLS context takes 0.1–0.2 s to make the first time: on the start's critical
         * path, just before the bind. Made on a second thread while the node starts instead.
         */
        private static void warmUpTls() {
            Thread warmUp = new Thread(
                    () -> {
                        try {
                            SSLContext.getDefault().createSSLEngine();
                        } catch (GeneralSecurityException | RuntimeException e) {
                            // The bind meets the same failure and reports it.
                        }
                    },
                    "parley-tls-warm-up");
            warmUp.setDaemon(true);
            warmUp.start();
        }

        private OpenTelemetry tracing(ParleyNode node, Config effective) {
            if (openTelemetry != null) {
                return openTelemetry;
            }
            if (!TracingSetup.enabled(effective, System.getenv())) {
                return TracingSetup.off();
            }
            OpenTelemetrySdk sdk = TracingSetup.fromEnvironment();
            // Flush and close the exporter as the node stops, after the last request ended.
            CoordinatedShutdown.get(node.system())
                    .addTask(
                            CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
                            "parley-tracing-close",
                            () -> CompletableFuture.supplyAsync(() -> {
                                sdk.close();
                                return Done.getInstance();
                            }));
            return sdk;
        }
    }
}
