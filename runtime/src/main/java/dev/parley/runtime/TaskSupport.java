package dev.parley.runtime;

/**
 * Whether a tool may run as a task ({@code io.modelcontextprotocol/tasks}). The server decides:
 * a task-capable handler calls {@link CallContext#becomeTask()} where its long part begins, and
 * becomes a task there if the request declared the extension.
 */
public enum TaskSupport {
    /** Never a task. */
    FORBIDDEN,
    /** A task when the client declared the extension; otherwise it runs synchronously. */
    OPTIONAL,
    /** Only as a task: a request without the extension gets -32021 before the handler runs. */
    REQUIRED
}
