package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The runnable jar as a separate process, for the SIGKILL tests:
 * {@code java [options] -jar parley.jar demo --port 0 --data <data>}, with the same java as this
 * JVM. Its output is drained on a thread so it never blocks on a full pipe; the port is read from
 * the launcher's ready line.
 */
final class DemoProcess {
    /**
     * How long one process may take to print its ready line: the shaded jar starts in seconds on
     * a quiet machine, in over a minute on a loaded one.
     */
    private static final long STARTUP_LIMIT_SECONDS = 180;

    private static final Pattern READY = Pattern.compile(
            "ready.*http://127\\.0\\.0\\.1:(\\d+)/mcp(?:, management http://127\\.0\\.0\\.1:(-?\\d+)/ready)?");

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer output = new StringBuffer();
    private int port;
    private int managementPort = -1;
    private long readyAtNanos;

    private DemoProcess(Process process) {
        this.process = process;
        Thread drain = new Thread(this::drain, "demo-output-" + process.pid());
        drain.setDaemon(true);
        drain.start();
    }

    /** Starts the demo on {@code data} with these JVM options and waits (bounded) until it is ready. */
    static DemoProcess start(Path data, List<String> jvmOptions) {
        List<String> command = javaJar(jar(), jvmOptions);
        command.addAll(
                List.of("demo", "--port", "0", "--data", data.toAbsolutePath().toString()));
        DemoProcess started;
        try {
            started = new DemoProcess(
                    new ProcessBuilder(command).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        started.awaitReady();
        return started;
    }

    /**
     * {@code java -Xmx512m [the jar's class-data-sharing archive] [options] -jar jar}, with the java
     * of this JVM: started as the README starts it, with the archive the build made beside the jar
     * (its warnings, if it does not fit, on stderr).
     */
    static List<String> javaJar(Path jar, List<String> jvmOptions) {
        List<String> command = new ArrayList<>(List.of(java(), "-Xmx512m"));
        Path archive = archive(jar);
        if (Files.isRegularFile(archive)) {
            command.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:disable", "-Xlog:all=warning:stderr"));
        }
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
        return command;
    }

    /** The class-data-sharing archive the build makes beside {@code jar} ({@code parley.jsa} for {@code parley.jar}). */
    static Path archive(Path jar) {
        return jar.resolveSibling(jar.getFileName().toString().replaceFirst("\\.jar$", ".jsa"));
    }

    /** The java of this JVM, for the processes the tests start. */
    static String java() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    static Path jar() {
        String configured = System.getProperty("parley.jar");
        List<Path> candidates = new ArrayList<>();
        if (configured != null) {
            candidates.add(Path.of(configured));
        }
        candidates.add(Path.of("target", "parley.jar"));
        candidates.add(Path.of("..", "examples", "target", "parley.jar"));
        return candidates.stream()
                .filter(Files::isRegularFile)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("parley.jar not found in " + candidates
                        + "; build it with mvn package (this test runs in the integration-test phase)"));
    }

    private void drain() {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                output.append(line).append('\n');
                lines.add(line);
            }
        } catch (IOException ignored) {
            // the process is gone
        }
    }

    /** Waits (bounded) for the launcher's "ready" line and reads the port from it. */
    private void awaitReady() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_LIMIT_SECONDS);
        try {
            while (System.nanoTime() < deadline) {
                String line = lines.poll(500, TimeUnit.MILLISECONDS);
                if (line != null) {
                    Matcher ready = READY.matcher(line);
                    if (ready.find()) {
                        port = Integer.parseInt(ready.group(1));
                        if (ready.group(2) != null) {
                            managementPort = Integer.parseInt(ready.group(2));
                        }
                        readyAtNanos = System.nanoTime();
                        return;
                    }
                } else if (!process.isAlive()) {
                    fail("the demo exited with " + process.exitValue() + " before it was ready:\n" + output);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
        fail("the demo printed no ready line within " + STARTUP_LIMIT_SECONDS + " s:\n" + output);
    }

    int port() {
        return port;
    }

    /** The port of {@code /ready}; -1 when management is off. */
    int managementPort() {
        return managementPort;
    }

    /** When this test saw the ready line ({@link System#nanoTime()}). */
    long readyAtNanos() {
        return readyAtNanos;
    }

    /** Everything the process printed so far. */
    String output() {
        return output.toString();
    }

    int exitValue() {
        return process.exitValue();
    }

    /** Sends SIGTERM ({@link Process#destroy()} on Linux): the JVM runs its shutdown hooks and drains. */
    void terminate() {
        process.destroy();
    }

    /** Waits (bounded) until the process has exited; whether it did. */
    boolean awaitExit(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    /** SIGKILL (on Linux, destroyForcibly sends SIGKILL): no shutdown hook, no clean close. */
    void kill() {
        if (!process.isAlive()) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("demo process " + process.pid() + " did not die");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
