package dev.parley.examples;

import dev.parley.http.McpHttpServer;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code java -jar parley.jar demo|fixtures [--port P] [--data DIR]}: the demo server (port 8080,
 * data in {@code ./data}) or the conformance fixture server (port 3001, the port the
 * conformance suite's own fixture uses, data in {@code ./data/fixtures}).
 */
public final class Launcher {
  private Launcher() {}

  public static void main(String[] args) throws InterruptedException {
    LoggerFactory.getILoggerFactory(); // initialise logging before Pekko's threads log
    if (args.length == 0 || !(args[0].equals("demo") || args[0].equals("fixtures"))) {
      usage();
      return;
    }
    boolean fixtures = args[0].equals("fixtures");
    int port = fixtures ? 3001 : 8080;
    Path data = fixtures ? Path.of("data", "fixtures") : Path.of("data");
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(value(args, ++i));
        case "--data" -> data = Path.of(value(args, ++i));
        default -> {
          usage();
          return;
        }
      }
    }
    long started = System.nanoTime();
    McpHttpServer server = fixtures ? startFixtures(port, data) : startDemo(port, data);
    System.out.printf("Parley %s ready in %d ms: http://127.0.0.1:%d/mcp (data in %s)%n", args[0],
        (System.nanoTime() - started) / 1_000_000, server.port(), data.toAbsolutePath());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "parley-shutdown"));
    stopped.await();
  }

  /** Starts the demo server; port 0 picks a free port. */
  public static McpHttpServer startDemo(int port, Path data) {
    DemoLedger ledger = new DemoLedger(data);
    AtomicInteger boundPort = new AtomicInteger(port);
    DemoTools tools = new DemoTools(ledger, () -> "http://127.0.0.1:" + boundPort.get());
    McpHttpServer server = McpHttpServer.builder(tools.definition())
        .dataDirectory(data)
        .port(port)
        .route(node -> new PaymentPage(ledger).route())
        .start();
    boundPort.set(server.port());
    return server;
  }

  /** Starts the conformance fixture server; port 0 picks a free port. */
  public static McpHttpServer startFixtures(int port, Path data) {
    return McpHttpServer.builder(new FixtureServer().definition())
        .dataDirectory(data)
        .port(port)
        .start();
  }

  private static String value(String[] args, int index) {
    if (index >= args.length) {
      throw new IllegalArgumentException("missing value for " + args[index - 1]);
    }
    return args[index];
  }

  private static void usage() {
    System.err.println("usage: java -jar parley.jar demo|fixtures [--port P] [--data DIR]");
    System.exit(2);
  }
}
