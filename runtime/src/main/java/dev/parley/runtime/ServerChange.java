package dev.parley.runtime;

/** Something about a server that open {@code subscriptions/listen} streams may want to hear. */
public sealed interface ServerChange {

    enum ListKind {
        TOOLS,
        PROMPTS,
        RESOURCES
    }

    /** Items of a list were added or removed at runtime. */
    record ListChanged(ListKind kind) implements ServerChange {}

    /** The contents of one resource changed. */
    record ResourceUpdated(String uri) implements ServerChange {}
}
