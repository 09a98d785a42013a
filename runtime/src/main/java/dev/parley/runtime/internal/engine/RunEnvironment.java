package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.Principal;

/** What one run knows of the request it serves, and where its notifications go. */
public record RunEnvironment(
        Principal principal,
        ClientCapabilities capabilities,
        RequestSink sink,
        Cancellation cancellation,
        TaskMode taskMode) {

    /** How {@code ctx.becomeTask()} behaves in this run. */
    public enum TaskMode {
        /** The call cannot become a task (no extension, or the tool forbids it): a no-op. */
        SYNCHRONOUS,
        /** The call may become a task: the run ends there with {@link RunOutcome.BecameTask}. */
        MAY_BECOME_TASK,
        /** This is the task's background run: a no-op. */
        TASK
    }

    /** A run for a stored binding key (a later round, a task's background run): issuer and subject only. */
    public RunEnvironment(
            String principalId,
            ClientCapabilities capabilities,
            RequestSink sink,
            Cancellation cancellation,
            TaskMode taskMode) {
        this(Principal.fromId(principalId), capabilities, sink, cancellation, taskMode);
    }

    public RunEnvironment(
            String principalId, ClientCapabilities capabilities, RequestSink sink, Cancellation cancellation) {
        this(principalId, capabilities, sink, cancellation, TaskMode.SYNCHRONOUS);
    }

    public RunEnvironment(
            Principal principal, ClientCapabilities capabilities, RequestSink sink, Cancellation cancellation) {
        this(principal, capabilities, sink, cancellation, TaskMode.SYNCHRONOUS);
    }

    public static RunEnvironment of(String principalId, ClientCapabilities capabilities) {
        return new RunEnvironment(principalId, capabilities, RequestSink.NONE, new Cancellation());
    }

    /**
     * Request-scoped notifications of a run. The transport decides what reaches the client: no
     * progress without a progress token, no log messages below the request's log level.
     */
    public interface RequestSink {
        RequestSink NONE = new RequestSink() {};

        default void progress(double done, Double total, String message) {}

        default void log(LogLevel level, String logger, JsonNode data) {}
    }
}
