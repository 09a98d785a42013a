package dev.parley.persistence.internal;

/**
 * Marker for everything Parley writes to the journal. Bound to {@link JournalEventSerializer},
 * which stores each event under a stable type name, never its class name.
 */
public interface JournalEvent {}
