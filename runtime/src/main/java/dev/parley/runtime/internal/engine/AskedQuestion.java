package dev.parley.runtime.internal.engine;

import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A question a run asked and could not answer from its history. The fingerprint (a digest of
 * method and params) tells whether a recorded answer still answers the question asked now.
 */
public record AskedQuestion(String key, String fingerprint, InputRequest request) {
    /**
     * Fingerprints of recent questions: a tool asks the same few questions call after call, once per
     * run, and the canonical form and its SHA-256 were about 2 % of a flow's CPU. Equal requests have
     * the same canonical form. Bounded; emptied when full (questions built from data are digested again).
     */
    private static final Map<InputRequest, String> FINGERPRINTS = new ConcurrentHashMap<>();

    private static final int MAX_FINGERPRINTS = 1024;

    public static AskedQuestion of(String key, InputRequest request) {
        return new AskedQuestion(key, fingerprint(request), request);
    }

    public static String fingerprint(InputRequest request) {
        String fingerprint = FINGERPRINTS.get(request);
        if (fingerprint == null) {
            fingerprint = Json.digest(Json.tree(request));
            if (FINGERPRINTS.size() >= MAX_FINGERPRINTS) {
                FINGERPRINTS.clear();
            }
            // a copy: the asker's params may change after the run
            InputRequest kept = new InputRequest(
                    request.method(),
                    request.params() == null ? null : request.params().deepCopy());
            FINGERPRINTS.put(kept, fingerprint);
        }
        return fingerprint;
    }
}
