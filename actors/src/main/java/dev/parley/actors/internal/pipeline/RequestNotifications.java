package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.wire.JsonRpc.Notification;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Notifications;
import java.util.function.Consumer;

/**
 * The request-scoped notifications of one streamed request, as the request asked for them: progress
 * only with a progress token, log messages only at or above the request's log level; {@code send}
 * puts one where the request's stream is.
 */
record RequestNotifications(McpRequest request, Consumer<Notification> send) implements RunEnvironment.RequestSink {

    @Override
    public void progress(double done, Double total, String message) {
        if (request.progressToken() != null) {
            send.accept(new Notification(
                    Methods.NOTIFICATION_PROGRESS,
                    new Notifications.Progress(request.progressToken(), done, total, message)));
        }
    }

    @Override
    public void log(LogLevel level, String logger, JsonNode data) {
        if (request.logLevel() != null && level.compareTo(request.logLevel()) >= 0) {
            send.accept(new Notification(
                    Methods.NOTIFICATION_MESSAGE, new Notifications.LogMessage(level.wireName(), logger, data)));
        }
    }
}
