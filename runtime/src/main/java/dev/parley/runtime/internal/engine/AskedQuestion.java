package dev.parley.runtime.internal.engine;

import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;

/**
 * A question a run asked and could not answer from its history. The fingerprint (a digest of
 * method and params) tells whether a recorded answer still answers the question asked now.
 */
public record AskedQuestion(String key, String fingerprint, InputRequest request) {

    public static AskedQuestion of(String key, InputRequest request) {
        return new AskedQuestion(key, fingerprint(request), request);
    }

    public static String fingerprint(InputRequest request) {
        return Json.digest(Json.tree(request));
    }
}
