package dev.parley.runtime;

/**
 * The action of a journaled step that is handed the step's idempotency key (see
 * {@link CallContext#step(String, Class, KeyedAction)}).
 */
@FunctionalInterface
public interface KeyedAction<T> {
    /**
     * Performs the step's effect. {@code idempotencyKey} is the same on every run of this step of
     * this call, on every node; pass it on (a payment API's idempotency header, a unique key in
     * your own table) so that an effect performed twice counts once.
     */
    T perform(String idempotencyKey);
}
