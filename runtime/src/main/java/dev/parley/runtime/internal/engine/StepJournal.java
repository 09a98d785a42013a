package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Where a run records a step result the moment the step has run. An implementation may block
 * until the record is durable; it throws if it cannot record (the run then fails and the step
 * will run again on the next attempt).
 */
@FunctionalInterface
public interface StepJournal {
    StepJournal NONE = (name, value) -> {};

    void record(String name, JsonNode value);

    /**
     * Called when a run reaches step {@code name}, before anything runs; {@code recorded} tells
     * whether its result comes from the history. A replay check watches the order here and stops
     * an unrecorded step (by throwing) before its action runs.
     */
    default void reached(String name, boolean recorded) {}
}
