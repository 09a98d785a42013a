package dev.parley.benchmarks.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Defaults every Parley benchmark inherits: throughput in operations per second, one fork with
 * a fixed 1 GiB heap, 3 warm-up and 5 measured iterations of 5 s. {@link BenchRunner} overrides
 * them from system properties ({@code parley.bench.forks}, {@code .warmupIterations},
 * {@code .warmupTime}, {@code .iterations}, {@code .time}; {@code parley.bench.short=true} for
 * the short run) or from JMH options given after {@code --}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 5, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
public abstract class ParleyBenchmark {
    /** JMH threads of the benchmarks that measure a server under concurrent flows. */
    public static final int CONCURRENT_THREADS = 16;

    static {
        initLogging();
    }

    /** Initialises SLF4J before an actor system logs (STACK.md G10); call it before starting one. */
    public static void initLogging() {
        org.slf4j.LoggerFactory.getILoggerFactory();
    }
}
