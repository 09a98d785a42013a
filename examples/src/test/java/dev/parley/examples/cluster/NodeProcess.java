package dev.parley.examples.cluster;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One {@link ClusterTestNode} in a JVM of its own, with the test JVM's classpath. Its output goes
 * to {@code <name>.log} in the run's directory (drained on a thread, so the pipe never fills).
 */
final class NodeProcess {
    final String name;
    final int httpPort;
    final int arteryPort;
    private final Process process;
    private final Path log;
    private final CountDownLatch ready = new CountDownLatch(1);
    private volatile boolean failed;

    private NodeProcess(String name, int httpPort, int arteryPort, Process process, Path log) {
        this.name = name;
        this.httpPort = httpPort;
        this.arteryPort = arteryPort;
        this.process = process;
        this.log = log;
        Thread drain = new Thread(this::drain, "node-output-" + name);
        drain.setDaemon(true);
        drain.start();
    }

    static NodeProcess start(
            String name,
            int httpPort,
            int arteryPort,
            List<Integer> seedPorts,
            Path effects,
            Path runDirectory,
            Map<String, String> environment) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx256m",
                "-Xss512k",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath(),
                ClusterTestNode.class.getName(),
                name,
                String.valueOf(httpPort),
                String.valueOf(arteryPort),
                String.join(",", seedPorts.stream().map(String::valueOf).toList()),
                effects.toString(),
                runDirectory.resolve("data-" + name).toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        try {
            return new NodeProcess(name, httpPort, arteryPort, builder.start(), runDirectory.resolve(name + ".log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The test classpath. Surefire and Failsafe may run the tests from a manifest-only booter jar;
     * its real classpath is then in {@code surefire.test.class.path}.
     */
    private static String classpath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private void drain() {
        try (BufferedReader reader =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                out.write(line);
                out.newLine();
                out.flush();
                if (line.startsWith("NODE " + name + " READY")) {
                    ready.countDown();
                } else if (line.startsWith("NODE " + name + " FAILED")) {
                    failed = true;
                }
            }
        } catch (IOException ignored) {
            // the process is gone
        }
    }

    /** Waits for the ready line; false when the process died or the time ran out. */
    boolean awaitReady(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (ready.await(200, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (failed || !process.isAlive()) {
                return false;
            }
        }
        return false;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL (destroyForcibly on Linux): no shutdown hook, no leaving the cluster. */
    int kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("node " + name + " (pid " + process.pid() + ") did not die");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return process.exitValue();
    }

    /**
     * SIGTERM: the shutdown hook runs, the node leaves the cluster and hands over. Through the
     * process handle, since {@code Process.destroy()} also closes the node's standard input, which
     * the node takes for the death of the test JVM.
     */
    int terminate() {
        process.toHandle().destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        "node " + name + " (pid " + process.pid() + ") did not stop within 60 s of SIGTERM");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return process.exitValue();
    }

    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public String toString() {
        return name + "(http " + httpPort + ", artery " + arteryPort + ", pid " + process.pid() + ")";
    }
}
