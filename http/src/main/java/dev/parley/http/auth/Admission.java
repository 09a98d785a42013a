package dev.parley.http.auth;

import dev.parley.runtime.Principal;
import org.apache.pekko.http.javadsl.model.HttpResponse;

/** The edge's verdict on a request: go on as {@code principal}, or answer {@code refusal} at once. */
public record Admission(Principal principal, HttpResponse refusal) {
    public static Admission admitted(Principal principal) {
        return new Admission(principal, null);
    }

    public static Admission refused(HttpResponse refusal) {
        return new Admission(null, refusal);
    }

    public boolean isRefused() {
        return refusal != null;
    }
}
