package dev.parley.runtime.internal.engine;

import dev.parley.runtime.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Idempotency keys of journaled steps: SHA-256 over the call's secret seed and the step's name.
 * The seed is made in a call's first run, journaled with its first event and handed over with
 * its steps when the call becomes a task, so the key of a step never changes; and without the
 * seed nobody can compute another call's keys.
 */
final class StepKeys {
    private static final byte[] DOMAIN = "parley step key v1\0".getBytes(StandardCharsets.UTF_8);

    private StepKeys() {}

    /** 32 hex digits (128 bits): fits any idempotency header or key column. */
    static String derive(String seed, String stepName) {
        byte[] seedBytes = Base64.getUrlDecoder().decode(seed);
        byte[] name = stepName.getBytes(StandardCharsets.UTF_8);
        byte[] input = new byte[DOMAIN.length + seedBytes.length + 1 + name.length];
        System.arraycopy(DOMAIN, 0, input, 0, DOMAIN.length);
        System.arraycopy(seedBytes, 0, input, DOMAIN.length, seedBytes.length);
        input[DOMAIN.length + seedBytes.length] = 0;
        System.arraycopy(name, 0, input, DOMAIN.length + seedBytes.length + 1, name.length);
        return HexFormat.of().formatHex(Json.sha256(input), 0, 16);
    }
}
