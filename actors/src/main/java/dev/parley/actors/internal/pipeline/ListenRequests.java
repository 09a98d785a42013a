package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.ServerNotifications;
import dev.parley.runtime.McpException;
import dev.parley.runtime.ServerChange;
import dev.parley.runtime.internal.wire.Errors;
import dev.parley.runtime.internal.wire.JsonRpc.Notification;
import dev.parley.runtime.internal.wire.McpNames.Meta;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Notifications;
import dev.parley.runtime.internal.wire.Notifications.SubscriptionFilter;
import dev.parley.runtime.internal.wire.Tasks.TaskNotification;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * {@code subscriptions/listen}: the acknowledgement of what the server honours, then every
 * requested notification from any node of the cluster, each tagged with the subscription id.
 * A task's notifications reach only streams of the principal that owns the task.
 */
final class ListenRequests {
    private final ServerNotifications notifications;

    ListenRequests(ServerNotifications notifications) {
        this.notifications = notifications;
    }

    /** The stream; a filter that is not well-formed is refused before anything is opened. */
    McpReply.Stream listen(McpRequest request) {
        Wanted wanted = Wanted.of(request);
        Map<String, Object> meta = Notifications.subscription(request.id());
        Notification acknowledgement = new Notification(
                Methods.NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
                new Notifications.SubscriptionAcknowledged(wanted.honoured(), meta));
        var stream = notifications
                .notices()
                .filter(notice -> wanted.matches(notice, request.principal()))
                .map(notice -> notification(notice, meta));
        // The server never ends a subscription on its own: the client closes the stream.
        return new McpReply.Stream(
                org.apache.pekko.stream.javadsl.Source.single(acknowledgement).concat(stream),
                new CompletableFuture<>());
    }

    /** A 2025-11-25 session's server notifications (its GET stream): list changes, subscribed resource updates. */
    org.apache.pekko.stream.javadsl.Source<Notification, org.apache.pekko.NotUsed> forSession(
            String sessionId, String principal, LegacySessions sessions) {
        return notifications
                .notices()
                .filter(notice -> notice instanceof ServerNotifications.ChangeNotice)
                .mapAsync(1, notice -> {
                    ServerChange change = ((ServerNotifications.ChangeNotice) notice).change();
                    if (!(change instanceof ServerChange.ResourceUpdated updated)) {
                        return CompletableFuture.completedFuture(java.util.Optional.of(notification(notice, null)));
                    }
                    // Subscriptions are session state: read them when an update comes (updates are rare).
                    return sessions.find(sessionId, principal)
                            .thenApply(session ->
                                    session != null && session.subscriptions().contains(updated.uri())
                                            ? java.util.Optional.of(notification(notice, null))
                                            : java.util.Optional.<Notification>empty());
                })
                .filter(java.util.Optional::isPresent)
                .map(java.util.Optional::get);
    }

    private static Notification notification(ServerNotifications.Notice notice, Map<String, Object> meta) {
        if (notice instanceof ServerNotifications.TaskNotice task) {
            return new Notification(Methods.NOTIFICATION_TASKS, new TaskNotification(task.task(), meta));
        }
        ServerChange change = ((ServerNotifications.ChangeNotice) notice).change();
        if (change instanceof ServerChange.ResourceUpdated updated) {
            return new Notification(
                    Methods.NOTIFICATION_RESOURCES_UPDATED, new Notifications.ResourceUpdated(updated.uri(), meta));
        }
        String method = switch (((ServerChange.ListChanged) change).kind()) {
            case TOOLS -> Methods.NOTIFICATION_TOOLS_LIST_CHANGED;
            case PROMPTS -> Methods.NOTIFICATION_PROMPTS_LIST_CHANGED;
            case RESOURCES -> Methods.NOTIFICATION_RESOURCES_LIST_CHANGED;
        };
        return new Notification(method, new Notifications.ListChanged(meta));
    }

    /** What one stream asked for, and the subset it is told the server honours. */
    private record Wanted(
            Set<ServerChange.ListKind> kinds,
            Set<String> resourceUris,
            Set<String> taskIds,
            SubscriptionFilter honoured) {

        static Wanted of(McpRequest request) {
            ObjectNode filter = request.objectParam("notifications");
            Set<ServerChange.ListKind> kinds = EnumSet.noneOf(ServerChange.ListKind.class);
            if (filter == null) {
                return new Wanted(kinds, Set.of(), Set.of(), new SubscriptionFilter(null, null, null, null, null));
            }
            Boolean tools = flag(filter, "toolsListChanged", kinds, ServerChange.ListKind.TOOLS);
            Boolean prompts = flag(filter, "promptsListChanged", kinds, ServerChange.ListKind.PROMPTS);
            Boolean resources = flag(filter, "resourcesListChanged", kinds, ServerChange.ListKind.RESOURCES);
            List<String> uris = strings(filter, "resourceSubscriptions");
            if (filter.has("taskIds") && !request.capabilities().extension(Meta.TASKS_EXTENSION)) {
                throw Errors.tasksExtensionRequired();
            }
            List<String> taskIds = strings(filter, "taskIds");
            return new Wanted(
                    kinds,
                    new HashSet<>(uris),
                    new HashSet<>(taskIds),
                    new SubscriptionFilter(
                            tools,
                            prompts,
                            resources,
                            uris.isEmpty() ? null : uris,
                            taskIds.isEmpty() ? null : taskIds));
        }

        boolean matches(ServerNotifications.Notice notice, String principal) {
            if (notice instanceof ServerNotifications.TaskNotice task) {
                return taskIds.contains(task.taskId()) && task.principal().equals(principal);
            }
            ServerChange change = ((ServerNotifications.ChangeNotice) notice).change();
            return change instanceof ServerChange.ListChanged listChanged
                    ? kinds.contains(listChanged.kind())
                    : resourceUris.contains(((ServerChange.ResourceUpdated) change).uri());
        }

        /** A boolean member: honoured (echoed as true) when true. */
        private static Boolean flag(
                ObjectNode filter, String member, Set<ServerChange.ListKind> kinds, ServerChange.ListKind kind) {
            if (!filter.path(member).asBoolean(false)) {
                return null;
            }
            kinds.add(kind);
            return true;
        }

        /** A member that must be an array of strings (absent or null: none). */
        private static List<String> strings(ObjectNode filter, String member) {
            JsonNode values = filter.get(member);
            List<String> strings = new ArrayList<>();
            if (values == null || values.isNull()) {
                return strings;
            }
            if (!values.isArray()) {
                throw McpException.invalidParams("notifications." + member + " must be an array of strings");
            }
            for (JsonNode value : values) {
                if (!value.isTextual()) {
                    throw McpException.invalidParams("notifications." + member + " must be an array of strings");
                }
                strings.add(value.asText());
            }
            return strings;
        }
    }
}
