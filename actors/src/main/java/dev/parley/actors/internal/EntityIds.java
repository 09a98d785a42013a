package dev.parley.actors.internal;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Ids of new calls and tasks: version 7 UUIDs, a millisecond timestamp followed by 74 random
 * bits from {@link SecureRandom}. The journal's primary key starts with the entity id, so ids
 * that grow with time put each commit's new rows into the same few index pages; random ids put
 * every row into a different page, and the H2 journal rewrites each touched page at every
 * commit. 74 random bits keep task ids unguessable (they are bound to their principal as well).
 */
public final class EntityIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private EntityIds() {}

    public static String next() {
        long random = RANDOM.nextLong();
        long high = (System.currentTimeMillis() << 16) | 0x7000L | (random >>> 52);
        long low = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(high, low).toString();
    }
}
