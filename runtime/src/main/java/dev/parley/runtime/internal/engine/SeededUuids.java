package dev.parley.runtime.internal.engine;

import dev.parley.runtime.Json;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.UUID;

/**
 * The values of {@code ctx.randomUuid()}: the n-th UUID of a call is derived from the call's
 * secret random seed and n, so a re-run gets the same values without a journal write per value.
 * The seed is 128 bits from {@link SecureRandom}; SHA-256 over seed and counter keeps the
 * values as unpredictable as {@link UUID#randomUUID()} to anyone who has not seen the journal.
 */
final class SeededUuids {
    private static final SecureRandom RANDOM = new SecureRandom();

    private SeededUuids() {}

    static String newSeed() {
        byte[] seed = new byte[16];
        RANDOM.nextBytes(seed);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(seed);
    }

    /** A version-4 (random) UUID: the first 128 bits of SHA-256(seed, index), version and variant bits set. */
    static UUID derive(String seed, long index) {
        byte[] seedBytes = Base64.getUrlDecoder().decode(seed);
        ByteBuffer input = ByteBuffer.allocate(seedBytes.length + Long.BYTES)
                .put(seedBytes)
                .putLong(index);
        ByteBuffer digest = ByteBuffer.wrap(Json.sha256(input.array()));
        long high = (digest.getLong() & ~0xF000L) | 0x4000L;
        long low = (digest.getLong() & ~(0xC000L << 48)) | (0x8000L << 48);
        return new UUID(high, low);
    }
}
