package dev.parley.runtime.engine;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
    sha256.update(Base64.getUrlDecoder().decode(seed));
    ByteBuffer digest = ByteBuffer.wrap(sha256.digest(ByteBuffer.allocate(Long.BYTES).putLong(index).array()));
    long high = (digest.getLong() & ~0xF000L) | 0x4000L;
    long low = (digest.getLong() & ~(0xC000L << 48)) | (0x8000L << 48);
    return new UUID(high, low);
  }
}
