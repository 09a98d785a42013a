package dev.parley.benchmarks.jmh;

import dev.parley.runtime.Json;
import dev.parley.runtime.internal.state.InvalidRequestStateException;
import dev.parley.runtime.internal.state.PointerBinding;
import dev.parley.runtime.internal.state.RequestStateKey;
import dev.parley.runtime.internal.state.SealedPointers;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Sealing and opening {@code requestState} (HMAC-SHA256 over a small binary record, base64url),
 * with a binding as the pipeline builds it (including the arguments' canonical digest, which
 * the pipeline computes once per request: measured separately in {@link #bindingDigest}).
 */
@State(Scope.Benchmark)
public class RequestStateBenchmark extends ParleyBenchmark {
    private final com.fasterxml.jackson.databind.node.ObjectNode arguments =
            BenchTools.object(BenchTools.INVOICE_ARGUMENTS);
    private SealedPointers codec;
    private PointerBinding binding;
    private String callId;
    private String sealed;

    @Setup
    public void setUp() {
        codec = new SealedPointers(List.of(RequestStateKey.generate()), Duration.ofMinutes(30), Clock.systemUTC());
        binding = bindingDigest();
        callId = UUID.randomUUID().toString();
        sealed = codec.seal(callId, 1, binding);
    }

    @Benchmark
    public String seal() {
        return codec.seal(callId, 1, binding);
    }

    @Benchmark
    public SealedPointers.Opened open() throws InvalidRequestStateException {
        return codec.open(sealed, binding);
    }

    @Benchmark
    public PointerBinding bindingDigest() {
        return PointerBinding.requestState(
                BenchTools.PRINCIPAL, "tools/call", "create_invoice", Json.digest(arguments));
    }
}
