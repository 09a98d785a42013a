package dev.parley.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.benchmarks.load.LoadOptions.Protocol;
import dev.parley.runtime.Json;
import java.net.URI;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The failover drill: opens {@code --calls} create_invoice calls over all nodes (each waits for
 * its currency), SIGKILLs the node process {@code --kill-pid} (node {@code --kill-node} of the
 * list), then every call's client retries on the surviving nodes, {@code --retry-every} after
 * each failed attempt, until its invoice comes back or {@code --limit} has passed. Prints the
 * kill's wall-clock time (to line it up with the node logs), how many calls answered within
 * 1 s and 10 s of the kill, the last one's time and the failed attempts by kind.
 *
 * <pre>java -jar parley-load.jar failover \
 *   --nodes http://127.0.0.1:8081/mcp,http://127.0.0.1:8082/mcp,http://127.0.0.1:8083/mcp \
 *   --kill-node 1 --kill-pid PID [--calls 200] [--retry-every 2s] [--limit 60s]</pre>
 *
 * Exit code 0 when every call completed, 1 otherwise.
 */
public final class FailoverDrill {
    private static final String TOOL = "create_invoice";

    private FailoverDrill() {}

    /** Runs the drill; the exit code. */
    public static int run(String[] args) throws Exception {
        Map<String, String> options = options(args);
        List<URI> nodes = Arrays.stream(required(options, "nodes").split(","))
                .map(URI::create)
                .toList();
        int killed = Integer.parseInt(required(options, "kill-node")) - 1;
        long pid = Long.parseLong(required(options, "kill-pid"));
        int calls = Integer.parseInt(options.getOrDefault("calls", "200"));
        Duration retryEvery = LoadOptions.parseDuration("--retry-every", options.getOrDefault("retry-every", "2s"));
        Duration limit = LoadOptions.parseDuration("--limit", options.getOrDefault("limit", "60s"));
        Duration warmup = LoadOptions.parseDuration("--warmup", options.getOrDefault("warmup", "20s"));
        List<URI> survivors = new ArrayList<>(nodes);
        survivors.remove(killed);

        List<JdkTransport> transports = nodes.stream()
                .map(url -> JdkTransport.shared(url, Duration.ofSeconds(30), 8))
                .toList();
        Answers answers = new Answers(Json.object().put("currency", "CHF"), "accept");
        String run = Long.toString(System.currentTimeMillis(), 36);
        System.out.printf("warm-up: %d calls completed in %s%n", warmUp(transports, answers, run, warmup), warmup);
        List<ObjectNode> retries = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            ObjectNode arguments =
                    Json.object().put("client", "failover-" + run + "-" + i).put("amount", i + 1);
            ObjectNode result = session(transports.get(i % nodes.size()))
                    .call("call", "tools/call", params(arguments), TOOL, Map.of());
            if (!"input_required".equals(result.path("resultType").asText())) {
                throw new IllegalStateException("call " + i + " did not wait for input: " + result);
            }
            retries.add(retryOf(arguments, result, answers));
        }
        System.out.printf("%d calls wait for input over %d nodes%n", calls, nodes.size());

        ProcessHandle victim = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no process " + pid));
        long killedAt = System.nanoTime();
        LocalTime killedClock = LocalTime.now();
        victim.destroyForcibly();
        System.out.printf(
                "killed node %d (pid %d) at %s%n", killed + 1, pid, killedClock.truncatedTo(ChronoUnit.MILLIS));

        long[] answeredAfterMillis = new long[calls];
        Arrays.fill(answeredAfterMillis, -1);
        Map<String, Integer> failures = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(calls);
        for (int i = 0; i < calls; i++) {
            int call = i;
            List<JdkTransport> order = new ArrayList<>();
            for (int attempt = 0; attempt < survivors.size(); attempt++) {
                order.add(transports.get(nodes.indexOf(survivors.get((call + attempt) % survivors.size()))));
            }
            Thread client = new Thread(
                    () -> {
                        try {
                            answeredAfterMillis[call] =
                                    retryUntilComplete(retries.get(call), order, killedAt, retryEvery, limit, failures);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            done.countDown();
                        }
                    },
                    "failover-client-" + i);
            client.start();
        }
        done.await(limit.toMillis() + 60_000, TimeUnit.MILLISECONDS);
        transports.forEach(JdkTransport::close);

        long[] answered = Arrays.stream(answeredAfterMillis)
                .filter(ms -> ms >= 0)
                .sorted()
                .toArray();
        long within1 = Arrays.stream(answered).filter(ms -> ms <= 1_000).count();
        long within10 = Arrays.stream(answered).filter(ms -> ms <= 10_000).count();
        System.out.printf(
                "answered %d of %d: %d within 1 s of the kill, %d within 10 s; last after %d ms%n",
                answered.length, calls, within1, within10, answered.length == 0 ? -1 : answered[answered.length - 1]);
        if (answered.length > within1) {
            // Those whose entity lived on the killed node, and those whose shard's home a survivor
            // had not learnt before the kill (they wait for the new coordinator when it died too).
            long[] waited = Arrays.copyOfRange(answered, (int) within1, answered.length);
            System.out.printf(
                    "the %d that waited: first after %d ms, median %d ms, last %d ms%n",
                    waited.length, waited[0], waited[waited.length / 2], waited[waited.length - 1]);
        }
        System.out.println("failed attempts by kind: " + failures);
        return answered.length == calls ? 0 : 1;
    }

    /**
     * Whole calls (both rounds) on every node, 4 at a time per node, for {@code duration}: a node
     * that has served traffic (its code compiled, its pools filled) is what fails over in
     * production, not one that just started.
     */
    private static int warmUp(List<JdkTransport> transports, Answers answers, String run, Duration duration)
            throws InterruptedException {
        long until = System.nanoTime() + duration.toNanos();
        AtomicInteger completed = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 4 * transports.size(); w++) {
            JdkTransport transport = transports.get(w % transports.size());
            String client = "warmup-" + run + "-" + w + "-";
            Thread worker = new Thread(() -> {
                for (int i = 0; System.nanoTime() < until; i++) {
                    try {
                        McpSession session = session(transport);
                        ObjectNode arguments =
                                Json.object().put("client", client + i).put("amount", 1);
                        ObjectNode first = session.call("call", "tools/call", params(arguments), TOOL, Map.of());
                        ObjectNode retry = retryOf(arguments, first, answers);
                        if (completed(session.call("retry", "tools/call", retry, TOOL, Map.of()))) {
                            completed.incrementAndGet();
                        }
                    } catch (McpSession.Failure failure) {
                        // counted by its absence
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
        return completed.get();
    }

    /**
     * Retries one call on the survivors in turn, {@code retryEvery} after each failed attempt;
     * the milliseconds from the kill to its invoice, or -1 when {@code limit} passed first.
     */
    private static long retryUntilComplete(
            ObjectNode retry,
            List<JdkTransport> survivors,
            long killedAt,
            Duration retryEvery,
            Duration limit,
            Map<String, Integer> failures)
            throws InterruptedException {
        for (int attempt = 0; System.nanoTime() - killedAt < limit.toNanos(); attempt++) {
            McpSession session = session(survivors.get(attempt % survivors.size()));
            try {
                ObjectNode result = session.call("retry", "tools/call", retry.deepCopy(), TOOL, Map.of());
                if (!completed(result)) {
                    throw new IllegalStateException("not complete: " + result);
                }
                return (System.nanoTime() - killedAt) / 1_000_000;
            } catch (McpSession.Failure failure) {
                failures.merge(failure.errorKind(), 1, Integer::sum);
            }
            Thread.sleep(retryEvery.toMillis());
        }
        return -1;
    }

    private static McpSession session(JdkTransport transport) {
        return new McpSession(transport.forWorker(), Protocol.V2026_07_28, false, Map.of(), (kind, start, end) -> {});
    }

    private static ObjectNode params(ObjectNode arguments) {
        ObjectNode params = Json.object().put("name", TOOL);
        params.set("arguments", arguments.deepCopy());
        return params;
    }

    /** The retry of a call that asked for input: its arguments, requestState and the answers. */
    private static ObjectNode retryOf(ObjectNode arguments, ObjectNode inputRequired, Answers answers) {
        ObjectNode retry = params(arguments);
        retry.set("requestState", inputRequired.get("requestState"));
        retry.set("inputResponses", answers.respond(inputRequired.get("inputRequests")));
        return retry;
    }

    private static boolean completed(JsonNode result) {
        String type = result.path("resultType").asText("complete");
        return type.equals("complete") && !result.path("isError").asBoolean(false);
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new java.util.HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --option value, got " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }
}
