package dev.parley.examples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.NodeConfig;
import dev.parley.http.McpHttpServer;
import dev.parley.http.ParleyServer;
import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.JournalSchema;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar parley.jar demo|fixtures|migrate [--port P] [--data DIR] [--config FILE] [--stdio]}:
 * the demo server (port 8080, data in {@code ./data}), the conformance fixture server (port
 * 3001, the port the conformance suite's own fixture uses, data in {@code ./data/fixtures}), or
 * the journal schema migration alone. {@code --config} names a configuration file or a resource
 * such as {@code local1.conf} (a node of the loopback cluster). {@code --stdio} serves MCP on
 * stdin/stdout as well, logs to stderr and exits at the end of stdin. {@code cds-training} is the
 * training run of a class-data-sharing archive ({@link CdsTraining}).
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("cds-training")) {
            CdsTraining.run();
            return;
        }
        if (args.length == 0 || !List.of("demo", "fixtures", "migrate").contains(args[0])) {
            usage();
            return;
        }
        ParleyServer.Flags flags;
        Config config;
        try {
            flags = ParleyServer.Flags.parse(Arrays.copyOfRange(args, 1, args.length));
            config = flags.config();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            usage();
            return;
        }
        PrintStream protocolOut = flags.stdio() ? ParleyServer.stdoutForProtocol() : System.out;
        LoggerFactory.getILoggerFactory(); // initialise logging before Pekko's threads log
        boolean fixtures = args[0].equals("fixtures");
        Path data = flags.dataDirectory().orElse(fixtures ? Path.of("data", "fixtures") : Path.of("data"));
        if (args[0].equals("migrate")) {
            JournalDatabase database = JournalDatabase.fromConfig(NodeConfig.load(config), data);
            JournalSchema.create(database);
            System.out.println("journal schema ready on " + database);
            return;
        }
        // -Dparley.http.port wins over the file, as every other system property does (NodeConfig).
        Config withProperties = ConfigFactory.systemProperties().withFallback(config);
        int port = flags.port()
                .orElse(
                        withProperties.hasPath("parley.http.port")
                                ? withProperties.getInt("parley.http.port")
                                : fixtures ? 3001 : 8080);
        // The demo's management endpoint is on 8558 unless configured; fixtures and port 0 take a free port.
        if (!withProperties.hasPath("parley.management.port")) {
            config = ConfigFactory.parseString(
                            "parley.management.port = " + (fixtures || port == 0 ? 0 : DEMO_MANAGEMENT_PORT))
                    .withFallback(config);
        }
        long started = System.nanoTime();
        Consumer<McpHttpServer.Builder> stdio = builder -> {
            if (flags.stdio()) {
                ParleyServer.stdio(builder, protocolOut);
            }
        };
        McpHttpServer server =
                fixtures ? startFixtures(port, data, config, stdio) : startDemo(port, data, config, stdio);
        System.out.printf(
                "Parley %s ready in %d ms: http://127.0.0.1:%d/mcp, management http://127.0.0.1:%d/ready (data in %s)%n",
                args[0],
                (System.nanoTime() - started) / 1_000_000,
                server.port(),
                server.managementPort(),
                data.toAbsolutePath());
        ParleyServer.serve(server, flags);
    }

    private static final int DEMO_MANAGEMENT_PORT = 8558;

    /** Starts the demo server; port 0 picks a free port. */
    public static McpHttpServer startDemo(int port, Path data) {
        return startDemo(port, data, ConfigFactory.parseResourcesAnySyntax("application"));
    }

    /** Starts the demo server with application settings {@code config} (e.g. a cluster node's). */
    public static McpHttpServer startDemo(int port, Path data, Config config) {
        return startDemo(port, data, config, builder -> {});
    }

    /** Starts the demo server, with whatever {@code more} sets on its builder. */
    private static McpHttpServer startDemo(int port, Path data, Config config, Consumer<McpHttpServer.Builder> more) {
        DemoLedger ledger = new DemoLedger(data);
        AtomicInteger boundPort = new AtomicInteger(port);
        DemoTools tools = new DemoTools(ledger, () -> "http://127.0.0.1:" + boundPort.get());
        McpHttpServer.Builder builder = McpHttpServer.builder(tools.definition())
                .config(config)
                .dataDirectory(data)
                .port(port)
                .route(node -> new PaymentPage(ledger).route());
        more.accept(builder);
        McpHttpServer server = builder.start();
        boundPort.set(server.port());
        return server;
    }

    /** Starts the conformance fixture server; port 0 picks a free port. */
    public static McpHttpServer startFixtures(int port, Path data) {
        return startFixtures(port, data, ConfigFactory.parseResourcesAnySyntax("application"));
    }

    /**
     * The conformance suite is one client address running hundreds of scenarios, each with its own
     * calls and sessions: per-address caps would refuse it; the node-wide ceilings stay.
     */
    private static final String FIXTURE_QUOTAS =
            "parley.quotas.per-principal { waiting-calls = 0, open-tasks = 0, sessions = 0 }";

    public static McpHttpServer startFixtures(int port, Path data, Config config) {
        return startFixtures(port, data, config, builder -> {});
    }

    private static McpHttpServer startFixtures(
            int port, Path data, Config config, Consumer<McpHttpServer.Builder> more) {
        McpHttpServer.Builder builder = McpHttpServer.builder(new FixtureServer().definition())
                .config(ConfigFactory.parseString(FixtureLegacy.POLL_AFTER)
                        .withFallback(config)
                        .withFallback(ConfigFactory.parseString(FIXTURE_QUOTAS)))
                .dataDirectory(data)
                .port(port);
        more.accept(builder);
        return builder.start();
    }

    private static void usage() {
        System.err.println("usage: java -jar parley.jar demo|fixtures|migrate " + ParleyServer.FLAGS);
        System.exit(2);
    }
}
