package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.McpException;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.Mrtr.InputRequiredResult;
import dev.parley.runtime.internal.wire.Tasks.CreateTaskResult;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;

/**
 * What the request pipeline answers, independent of the transport. A transport renders it (JSON,
 * SSE, a stdio line) and decides nothing else: the reply says what happened, and for an error
 * where it was decided ({@link Origin}), which is all an HTTP status needs.
 */
public sealed interface McpReply {

    /** A reply that ends its request: exactly one JSON-RPC response. */
    sealed interface Final extends McpReply {
        JsonNode id();

        /** The JSON-RPC response this reply is on every transport. */
        JsonRpc.Response response();
    }

    /** A {@code complete} result (its wire record, with {@code resultType} set). */
    record Complete(JsonNode id, Object result) implements Final {
        public Complete {
            Objects.requireNonNull(result, "result");
        }

        @Override
        public JsonRpc.Response response() {
            return JsonRpc.Response.result(id, result);
        }
    }

    /**
     * The call waits for answers: {@code inputRequests} and a sealed {@code requestState}. {@code callId}
     * and {@code round} name the waiting call for transports that deliver the questions themselves
     * (2025-11-25 server→client requests); they are never sent as such.
     */
    record InputRequired(JsonNode id, InputRequiredResult result, String callId, int round) implements Final {
        @Override
        public JsonRpc.Response response() {
            return JsonRpc.Response.result(id, result);
        }
    }

    /** The call continues as a task: the {@code CreateTaskResult}, sent only after the task was journaled. */
    record TaskCreated(JsonNode id, CreateTaskResult result) implements Final {
        @Override
        public JsonRpc.Response response() {
            return JsonRpc.Response.result(id, result);
        }
    }

    /** A JSON-RPC error, and where it was decided. */
    record Error(JsonNode id, ErrorObject error, Origin origin) implements Final {
        public Error {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(origin, "origin");
        }

        /** A request refused at the gate (or by a transport's own checks) with {@code failure}. */
        public static Error atGate(JsonNode id, McpException failure) {
            return new Error(id, JsonRpc.ErrorObject.of(failure), Origin.GATE);
        }

        public static Error inBand(JsonNode id, ErrorObject error) {
            return new Error(id, error, Origin.IN_BAND);
        }

        @Override
        public JsonRpc.Response response() {
            return JsonRpc.Response.error(id, error);
        }
    }

    /** Where an error was decided; the transports map it (with the code) to their own status. */
    enum Origin {
        /** Before any handler: parsing, the stateless gate, a transport's header checks. */
        GATE,
        /** By a request handler or a tool: the request was understood and answered with an error. */
        IN_BAND
    }

    /**
     * Notifications first, then (when {@code end} completes) the final reply, which ends the
     * stream. A {@code subscriptions/listen} stream has an {@code end} that completes only when the
     * server ends the subscription.
     */
    record Stream(Source<JsonRpc.Notification, NotUsed> notifications, CompletionStage<Final> end)
            implements McpReply {}
}
