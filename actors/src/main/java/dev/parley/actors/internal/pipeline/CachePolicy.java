package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** How long, and for whom, clients may cache lists, discovery and resource reads (spec §7.4). */
record CachePolicy(long ttlMs, String cacheScope) {
    /** Adds {@code ttlMs} and {@code cacheScope} to a result the definitions built. */
    ObjectNode applyTo(ObjectNode result) {
        return result.put("ttlMs", ttlMs).put("cacheScope", cacheScope);
    }
}
