package dev.parley.runtime.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.Discovery.DiscoverResult;
import dev.parley.runtime.internal.wire.Discovery.Empty;
import dev.parley.runtime.internal.wire.Discovery.Implementation;
import dev.parley.runtime.internal.wire.Discovery.ListChangedCapability;
import dev.parley.runtime.internal.wire.Discovery.ResourcesCapability;
import dev.parley.runtime.internal.wire.Discovery.ServerCapabilities;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.JsonRpc.Notification;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import dev.parley.runtime.internal.wire.Mrtr.InputRequiredResult;
import dev.parley.runtime.internal.wire.Notifications.SubscriptionFilter;
import dev.parley.runtime.internal.wire.Tasks.CreateTaskResult;
import dev.parley.runtime.internal.wire.Tasks.DetailedTask;
import dev.parley.runtime.internal.wire.Tasks.GetTaskResult;
import dev.parley.runtime.internal.wire.Tasks.TaskNotification;
import dev.parley.testing.SpecSchema;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every wire record, serialized, equals its golden JSON in {@code src/test/resources/golden/wire}
 * (member names and values: a renamed field fails here), and, where the core schema defines the
 * shape, validates against MCP 2026-07-28's JSON Schema.
 */
class WireRecordsGoldenTest {
    private static final Implementation SERVER_INFO = new Implementation("parley-test", "1.0.0", null);
    private static final Map<String, Object> SUBSCRIPTION = Notifications.subscription(LongNode.valueOf(7));
    private static final Map<String, InputRequest> ONE_QUESTION =
            Map.of("window", new InputRequest(Methods.ELICITATION_CREATE, Json.parse("""
          {"mode":"form","message":"When?","requestedSchema":{"type":"object",
           "properties":{"window":{"type":"string","format":"date-time"}},"required":["window"]}}""")));
    private static final DetailedTask WORKING = new DetailedTask(
            "0193e0a6-task",
            "working",
            "2026-12-01T10:00:00Z",
            "2026-12-01T10:00:01Z",
            3_600_000,
            1_000,
            "Drafting",
            null,
            null,
            null);

    static Stream<Arguments> records() {
        Map<String, InputRequest> open = new LinkedHashMap<>(ONE_QUESTION);
        return Stream.of(
                Arguments.of(
                        "discover-result",
                        "DiscoverResult",
                        new DiscoverResult(
                                McpNames.SUPPORTED_VERSIONS,
                                new ServerCapabilities(
                                        new ListChangedCapability(true),
                                        new ListChangedCapability(true),
                                        new ResourcesCapability(true, true),
                                        new Empty(),
                                        new Empty(),
                                        Map.of(McpNames.Meta.TASKS_EXTENSION, new Empty())),
                                "Be brief.",
                                60_000,
                                "public",
                                SERVER_INFO)),
                Arguments.of(
                        "list-tools-result",
                        "ListToolsResult",
                        new Lists.ListToolsResult(
                                new Lists.Page(
                                        List.of(Json.parse(
                                                "{\"name\":\"ping\",\"inputSchema\":{\"type\":\"object\"}}")),
                                        Lists.Cursor.encode(1)),
                                60_000,
                                "public")),
                Arguments.of(
                        "list-prompts-result",
                        "ListPromptsResult",
                        new Lists.ListPromptsResult(
                                new Lists.Page(List.of(Json.parse("{\"name\":\"greet\"}")), null), 0, "private")),
                Arguments.of(
                        "list-resources-result",
                        "ListResourcesResult",
                        new Lists.ListResourcesResult(
                                new Lists.Page(List.of(Json.parse("{\"uri\":\"demo://a\",\"name\":\"a\"}")), null),
                                0,
                                "public")),
                Arguments.of(
                        "list-resource-templates-result",
                        "ListResourceTemplatesResult",
                        new Lists.ListResourceTemplatesResult(
                                new Lists.Page(
                                        List.of(Json.parse("{\"uriTemplate\":\"demo://{id}\",\"name\":\"item\"}")),
                                        null),
                                0,
                                "public")),
                Arguments.of(
                        "complete-result",
                        "CompleteResult",
                        new Completion.CompleteResult(Completion.Values.of(List.of("paris", "parma")))),
                Arguments.of(
                        "input-required-result",
                        "InputRequiredResult",
                        new InputRequiredResult(ONE_QUESTION, "AQAJ-sealed")),
                Arguments.of("create-task-result", null, CreateTaskResult.of(WORKING)),
                Arguments.of("get-task-result-working", null, new GetTaskResult(WORKING)),
                Arguments.of(
                        "get-task-result-input-required",
                        null,
                        new GetTaskResult(new DetailedTask(
                                "0193e0a6-task",
                                "input_required",
                                "2026-12-01T10:00:00Z",
                                "2026-12-01T10:00:02Z",
                                3_600_000,
                                1_000,
                                null,
                                null,
                                null,
                                open))),
                Arguments.of(
                        "get-task-result-completed",
                        null,
                        new GetTaskResult(new DetailedTask(
                                "0193e0a6-task",
                                "completed",
                                "2026-12-01T10:00:00Z",
                                "2026-12-01T10:00:03Z",
                                3_600_000,
                                1_000,
                                null,
                                Json.parse(
                                        "{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}"),
                                null,
                                null))),
                Arguments.of(
                        "get-task-result-failed",
                        null,
                        new GetTaskResult(new DetailedTask(
                                "0193e0a6-task",
                                "failed",
                                "2026-12-01T10:00:00Z",
                                "2026-12-01T10:00:03Z",
                                3_600_000,
                                1_000,
                                "crashed",
                                null,
                                new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Internal error", null),
                                null))),
                Arguments.of("ack", "EmptyResult", Results.EmptyResult.ACK),
                Arguments.of(
                        "progress-notification",
                        "ProgressNotification",
                        new Notification(
                                Methods.NOTIFICATION_PROGRESS,
                                new Notifications.Progress(TextNode.valueOf("tok-1"), 1, 2.0, "Halfway"))),
                Arguments.of(
                        "log-message-notification",
                        "LoggingMessageNotification",
                        new Notification(
                                Methods.NOTIFICATION_MESSAGE,
                                new Notifications.LogMessage("info", "demo", TextNode.valueOf("hello")))),
                Arguments.of(
                        "tools-list-changed-notification",
                        "ToolListChangedNotification",
                        new Notification(
                                Methods.NOTIFICATION_TOOLS_LIST_CHANGED, new Notifications.ListChanged(SUBSCRIPTION))),
                Arguments.of(
                        "resource-updated-notification",
                        "ResourceUpdatedNotification",
                        new Notification(
                                Methods.NOTIFICATION_RESOURCES_UPDATED,
                                new Notifications.ResourceUpdated("demo://a", SUBSCRIPTION))),
                Arguments.of(
                        "subscriptions-acknowledged-notification",
                        "SubscriptionsAcknowledgedNotification",
                        new Notification(
                                Methods.NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
                                new Notifications.SubscriptionAcknowledged(
                                        new SubscriptionFilter(true, null, null, List.of("demo://a"), null),
                                        SUBSCRIPTION))),
                Arguments.of(
                        "tasks-notification",
                        null,
                        new Notification(Methods.NOTIFICATION_TASKS, new TaskNotification(WORKING, SUBSCRIPTION))),
                Arguments.of(
                        "unsupported-version-error",
                        "UnsupportedProtocolVersionError",
                        JsonRpc.ErrorObject.of(Errors.unsupportedVersion("2024-11-05"))),
                Arguments.of(
                        "missing-tasks-capability-error",
                        "MissingRequiredClientCapabilityError",
                        JsonRpc.ErrorObject.of(Errors.tasksExtensionRequired())),
                Arguments.of(
                        "resource-not-found-error",
                        "InvalidParamsError",
                        JsonRpc.ErrorObject.of(Errors.resourceNotFound("demo://gone"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("records")
    void serializesAsItsGoldenJson(String golden, String schemaDefinition, Object record) throws IOException {
        JsonNode actual = Json.parse(Json.write(record)); // via text, so numbers compare by value, not by node type
        assertEquals(
                golden(golden), actual, () -> golden + ".json differs; the record now writes " + Json.write(actual));
        if (record instanceof ErrorObject error) {
            SpecSchema.assertValidErrorResponse(
                    schemaDefinition, Json.tree(JsonRpc.Response.error(LongNode.valueOf(1), error)));
        } else if (schemaDefinition != null) {
            SpecSchema.assertValid(schemaDefinition, actual);
        }
    }

    private static JsonNode golden(String name) throws IOException {
        try (InputStream in = WireRecordsGoldenTest.class.getResourceAsStream("/golden/wire/" + name + ".json")) {
            assertNotNull(in, "missing golden file golden/wire/" + name + ".json");
            return Json.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
