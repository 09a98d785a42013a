package dev.parley.http;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.runtime.McpServerDefinition;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The {@code main} of a server of your own: {@code ParleyServer.run(definition, args)} reads the
 * command line ({@link #FLAGS}), starts the node and its HTTP endpoint, and serves until the node
 * stops (SIGTERM runs its coordinated shutdown) or, with {@code --stdio}, until stdin ends.
 * {@link #start} does the same without waiting and returns the running server, for tests.
 */
public final class ParleyServer {
    /** The command line {@link #run} and {@link #start} read. */
    public static final String FLAGS = "[--port P] [--data DIR] [--config FILE] [--stdio]";

    private ParleyServer() {}

    /**
     * Serves {@code definition} as the flags say: {@code --port} (else {@code parley.http.port},
     * 8080), {@code --data} (else {@code ./data}), {@code --config} (a file, else a classpath
     * resource, over {@code application.conf}), {@code --stdio} (MCP on stdin/stdout as well, logs
     * to stderr, HTTP on a free port unless {@code --port} names one). Returns once stdin ended
     * with {@code --stdio}; otherwise exits the JVM when the node has stopped. Call it before
     * anything logs: with {@code --stdio}, stdout carries only JSON-RPC.
     */
    public static void run(McpServerDefinition definition, String... args) throws IOException {
        Flags flags;
        McpHttpServer.Builder builder;
        try {
            flags = Flags.parse(args);
            builder = flags.applyTo(McpHttpServer.builder(definition));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage() + "\nflags: " + FLAGS);
            System.exit(2);
            return;
        }
        if (flags.stdio()) {
            stdio(builder, stdoutForProtocol());
        }
        serve(builder.start(), flags);
    }

    /** Starts {@code definition} as {@link #run} does and returns the running server; {@code --stdio} is not served. */
    public static McpHttpServer start(McpServerDefinition definition, String... args) {
        return Flags.parse(args).applyTo(McpHttpServer.builder(definition)).start();
    }

    /**
     * From here on stdout carries only the protocol: logs (a logback.xml that writes to
     * {@code ${parley.log.target:-System.out}}) and any stray print go to stderr. Returns the
     * stream the protocol writes to. Call it before anything logs.
     */
    public static PrintStream stdoutForProtocol() {
        PrintStream protocolOut = System.out;
        System.setProperty("parley.log.target", "System.err");
        System.setOut(System.err);
        return protocolOut;
    }

    /**
     * Serves MCP on the process's stdin and {@code protocolOut} too (see {@link
     * McpHttpServer.Builder#stdio}), for the user the process runs as: every requestState and
     * session of the stdio client binds to {@code stdio:<user>}. Stdin is read from the
     * builder's start on, so a {@code server/discover} written at process start is answered while
     * the node starts.
     */
    public static McpHttpServer.Builder stdio(McpHttpServer.Builder builder, PrintStream protocolOut) {
        return builder.stdio(System.in, protocolOut, "stdio:" + System.getProperty("user.name"));
    }

    /**
     * Blocks while {@code server} serves. With {@code --stdio} (the builder went through {@link
     * #stdio}): serves MCP on stdin and stdout until stdin ends (the host closed it), then stops
     * the node and returns. Otherwise: waits until the node has stopped, then exits the JVM
     * (SIGTERM runs Pekko's coordinated shutdown, which drains the node; there is no hook of our
     * own).
     */
    public static void serve(McpHttpServer server, Flags flags) {
        if (flags.stdio()) {
            server.serveStdio();
            server.close();
            return;
        }
        server.node().system().getWhenTerminated().toCompletableFuture().join();
        System.exit(0);
    }

    /**
     * The command line: what each flag asks for, empty where it was not given.
     *
     * @param port {@code --port}; {@code --stdio} without it asks for a free port (0)
     * @param configName {@code --config}: a file if one exists there, else a classpath resource
     */
    public record Flags(OptionalInt port, Optional<Path> dataDirectory, Optional<String> configName, boolean stdio) {

        /** Reads {@link #FLAGS}; a flag it does not know, or one without its value, is an IllegalArgumentException. */
        public static Flags parse(String... args) {
            Integer port = null;
            Path data = null;
            String config = null;
            boolean stdio = false;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--port" -> port = portNumber(value(args, ++i));
                    case "--data" -> data = Path.of(value(args, ++i));
                    case "--config" -> config = value(args, ++i);
                    case "--stdio" -> stdio = true;
                    default -> throw new IllegalArgumentException("unknown flag " + args[i]);
                }
            }
            if (port == null && stdio) {
                port = 0; // the HTTP port stays for what needs a browser (URL elicitations)
            }
            return new Flags(
                    port == null ? OptionalInt.empty() : OptionalInt.of(port),
                    Optional.ofNullable(data),
                    Optional.ofNullable(config),
                    stdio);
        }

        /**
         * The application settings: the {@code --config} file or resource over
         * {@code application.conf}, or {@code application.conf} alone; with {@code --stdio}, Pekko
         * keeps its start-up lines off stdout.
         */
        public Config config() {
            Config application = ConfigFactory.parseResourcesAnySyntax("application");
            Config config = configName
                    .map(name -> named(name).withFallback(application))
                    .orElse(application);
            return stdio
                    ? ConfigFactory.parseString("pekko.stdout-loglevel = OFF").withFallback(config)
                    : config;
        }

        /** Sets what the flags ask for on {@code builder}: settings, data directory and port. */
        public McpHttpServer.Builder applyTo(McpHttpServer.Builder builder) {
            builder.config(config());
            dataDirectory.ifPresent(builder::dataDirectory);
            port.ifPresent(builder::port);
            return builder;
        }

        private static Config named(String name) {
            Path file = Path.of(name);
            Config parsed = Files.isRegularFile(file)
                    ? ConfigFactory.parseFile(file.toFile())
                    : ConfigFactory.parseResourcesAnySyntax(name);
            if (parsed.isEmpty()) {
                throw new IllegalArgumentException("no configuration at " + name);
            }
            return parsed;
        }

        private static String value(String[] args, int index) {
            if (index >= args.length) {
                throw new IllegalArgumentException("missing value for " + args[index - 1]);
            }
            return args[index];
        }

        private static int portNumber(String value) {
            try {
                return Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--port needs a number, not " + value);
            }
        }
    }
}
