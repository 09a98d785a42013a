package dev.parley.runtime.internal.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Warns once per process for each deprecated MCP feature a handler uses (SEP-2577). */
final class Deprecations {
    private static final Logger log = LoggerFactory.getLogger(Deprecations.class);
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private Deprecations() {}

    static void warnOnce(String feature) {
        if (WARNED.add(feature)) {
            log.warn(
                    "{} is deprecated in MCP 2026-07-28; it still works but will be removed in a later revision",
                    feature);
        }
    }
}
