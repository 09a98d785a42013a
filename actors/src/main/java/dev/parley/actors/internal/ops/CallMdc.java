package dev.parley.actors.internal.ops;

import dev.parley.runtime.Json;
import io.opentelemetry.context.Context;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.MDC;

/**
 * The Logback MDC fields of a call: {@value #CALL_ID}, {@value #ROUND}, {@value #TASK_ID},
 * {@value #PRINCIPAL} (a digest, never the principal itself), {@value #METHOD} and
 * {@value #TOOL}. Whoever starts work for a call opens a {@link Scope} around the hand-off; the
 * {@link #toolExecutor tool executor} carries the submitter's fields (and its OpenTelemetry
 * context) to the thread that runs the handler and clears them when the work ends, so a pooled
 * thread never keeps another call's fields.
 */
public final class CallMdc {
    public static final String CALL_ID = "callId";
    public static final String ROUND = "round";
    public static final String TASK_ID = "taskId";
    public static final String PRINCIPAL = "principal";
    public static final String METHOD = "mcpMethod";
    public static final String TOOL = "tool";

    private CallMdc() {}

    /** Restores the fields that were there before {@link #open}. */
    public static final class Scope implements AutoCloseable {
        /** The previous value of each of {@link #KEYS}, in that order (null: absent); null: the MDC was empty. */
        private final String[] previous;

        private Scope(String[] previous) {
            this.previous = previous;
        }

        @Override
        public void close() {
            if (previous == null) {
                MDC.clear();
                return;
            }
            for (int i = 0; i < KEYS.length; i++) {
                put(KEYS[i], previous[i]);
            }
        }
    }

    /** The fields {@link #open} sets; only these are saved and restored (not a copy of the whole MDC). */
    private static final String[] KEYS = {METHOD, TOOL, CALL_ID, ROUND, TASK_ID, PRINCIPAL};
    /** Digests of recent principals: a SHA-256 per request was about 0.7 % of a one-round call's CPU. */
    private static final int MAX_DIGESTS = 10_000;

    private static final Map<String, String> DIGESTS = new java.util.concurrent.ConcurrentHashMap<>();

    /** Sets the fields that are not null (and removes the others) until the scope closes. */
    public static Scope open(
            String method, String tool, String callId, Integer round, String taskId, String principal) {
        String[] previous = new String[KEYS.length];
        for (int i = 0; i < KEYS.length; i++) {
            previous[i] = MDC.get(KEYS[i]);
        }
        set(method, tool, callId, round, taskId, principal);
        return new Scope(previous);
    }

    /**
     * As {@link #open}, for a thread whose MDC is empty as a rule (one that serves requests, not an
     * actor's): there the fields go in as one map and the scope empties the MDC again. Six fields
     * set, read and restored one by one were about 2.5 % of a one-round call's CPU. Anywhere else
     * (the MDC holds something) it is {@link #open}.
     */
    public static Scope openOnRequestThread(
            String method, String tool, String callId, Integer round, String taskId, String principal) {
        Map<String, String> current = MDC.getCopyOfContextMap();
        if (current != null && !current.isEmpty()) {
            return open(method, tool, callId, round, taskId, principal);
        }
        Map<String, String> fields = new HashMap<>(16);
        putIfPresent(fields, METHOD, method);
        putIfPresent(fields, TOOL, tool);
        putIfPresent(fields, CALL_ID, callId);
        putIfPresent(fields, ROUND, round == null ? null : round.toString());
        putIfPresent(fields, TASK_ID, taskId);
        putIfPresent(fields, PRINCIPAL, principal == null ? null : principalDigest(principal));
        MDC.setContextMap(fields);
        return new Scope(null);
    }

    private static void putIfPresent(Map<String, String> fields, String key, String value) {
        if (value != null) {
            fields.put(key, value);
        }
    }

    /** Restores the whole MDC that was there before {@link #alone}. */
    public static final class Alone implements AutoCloseable {
        private final Map<String, String> previous;

        private Alone(Map<String, String> previous) {
            this.previous = previous;
        }

        @Override
        public void close() {
            if (previous == null) {
                MDC.clear();
            } else {
                MDC.setContextMap(previous);
            }
        }
    }

    /**
     * The call's fields and nothing else until the scope closes. On an entity's thread Pekko keeps
     * five fields of its own in the MDC (the actor's path, address and system, the persistence id
     * and phase): the call's id says as much, and they made each end-of-call line twice as long.
     */
    public static Alone alone(
            String method, String tool, String callId, Integer round, String taskId, String principal) {
        Map<String, String> previous = MDC.getCopyOfContextMap();
        MDC.clear();
        set(method, tool, callId, round, taskId, principal);
        return new Alone(previous);
    }

    private static void set(String method, String tool, String callId, Integer round, String taskId, String principal) {
        put(METHOD, method);
        put(TOOL, tool);
        put(CALL_ID, callId);
        put(ROUND, round == null ? null : round.toString());
        put(TASK_ID, taskId);
        put(PRINCIPAL, principal == null ? null : principalDigest(principal));
    }

    /** The first 16 hex digits of the principal's SHA-256: tells callers apart, names no one. */
    public static String principalDigest(String principal) {
        String digest = DIGESTS.get(principal);
        if (digest == null) {
            digest = Json.sha256Hex(principal).substring(0, 16);
            if (DIGESTS.size() >= MAX_DIGESTS) {
                DIGESTS.clear(); // bounded: many distinct principals only cost the digest again
            }
            DIGESTS.put(principal, digest);
        }
        return digest;
    }

    /** A fixed pool whose tasks run with the MDC their submitter had, and with none after. */
    public static ThreadPoolExecutor toolExecutor(int threads, ThreadFactory threadFactory) {
        return new ThreadPoolExecutor(
                threads, threads, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), threadFactory) {
            @Override
            public void execute(Runnable command) {
                super.execute(carrying(command));
            }
        };
    }

    /**
     * {@code work} wrapped to run with the calling thread's current MDC and OpenTelemetry context,
     * and to leave the running thread's MDC as it found it (none, on a pooled thread).
     */
    public static Runnable carrying(Runnable work) {
        Map<String, String> captured = MDC.getCopyOfContextMap();
        Map<String, String> fields = captured == null ? Map.of() : captured;
        Context trace = Context.current();
        return () -> {
            Map<String, String> before = MDC.getCopyOfContextMap();
            MDC.setContextMap(fields);
            try (io.opentelemetry.context.Scope scope = trace.makeCurrent()) {
                work.run();
            } finally {
                MDC.setContextMap(before == null ? Map.of() : before);
            }
        };
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
