package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.ParleySettings;

/** How long, and for whom, clients may cache lists, discovery and resource reads (spec §7.4). */
record CachePolicy(long ttlMs, String cacheScope) {
    static CachePolicy of(ParleySettings settings) {
        return new CachePolicy(settings.listTtlMs(), settings.listCacheScope());
    }

    /** Adds {@code ttlMs} and {@code cacheScope} to a result the definitions built. */
    ObjectNode applyTo(ObjectNode result) {
        return result.put("ttlMs", ttlMs).put("cacheScope", cacheScope);
    }
}
