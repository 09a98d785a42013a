package dev.parley.runtime;

import java.util.Locale;

/** How a user said no to a question: both are normal outcomes a handler decides about. */
public enum Refusal {
    DECLINED,
    CANCELLED;

    /** {@code declined} or {@code cancelled}, ready for a sentence. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
