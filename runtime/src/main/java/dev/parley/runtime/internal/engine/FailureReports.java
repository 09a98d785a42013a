package dev.parley.runtime.internal.engine;

import java.security.SecureRandom;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns an unexpected handler failure into what the client may see: a fixed message and an
 * error reference. The detail (exception and stack trace) goes to the log once, under the same
 * reference, so an operator can find it and a client learns nothing about the internals.
 */
public final class FailureReports {
    private static final Logger log = LoggerFactory.getLogger(FailureReports.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Off: clients see only the reference. On (development only): the exception's text is appended. */
    private final boolean showDetails;

    public FailureReports(boolean showDetails) {
        this.showDetails = showDetails;
    }

    /** Never shows details: the default of every shipped profile. */
    public static final FailureReports HIDDEN = new FailureReports(false);

    /** One reported failure: its reference, and the detail a client may see (null unless in development). */
    public record Report(String reference, String clientDetail) {}

    /** Logs {@code failure} once with a new reference; {@code subject} names what failed (e.g. "tools/call x"). */
    public Report report(String subject, Throwable failure) {
        String reference = newReference();
        log.warn("{} failed (reference {})", subject, reference, failure);
        return new Report(reference, showDetails ? String.valueOf(failure) : null);
    }

    /** 12 hex digits: unique enough to find one line in a day of logs, short enough to read out. */
    public static String newReference() {
        byte[] bytes = new byte[6];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
