package dev.parley.runtime.internal.wire;

import java.util.List;

/** Every method name and {@code _meta} key Parley reads or writes, in one place (spec §5, §7; ext-tasks). */
public final class McpNames {
    private McpNames() {}

    /** The protocol revision this runtime speaks, and every revision it accepts. */
    public static final String PROTOCOL_VERSION = "2026-07-28";

    public static final List<String> SUPPORTED_VERSIONS = List.of(PROTOCOL_VERSION);

    /** JSON-RPC method names: requests, then notifications. */
    public static final class Methods {
        private Methods() {}

        public static final String SERVER_DISCOVER = "server/discover";
        public static final String TOOLS_LIST = "tools/list";
        public static final String TOOLS_CALL = "tools/call";
        public static final String PROMPTS_LIST = "prompts/list";
        public static final String PROMPTS_GET = "prompts/get";
        public static final String RESOURCES_LIST = "resources/list";
        public static final String RESOURCES_TEMPLATES_LIST = "resources/templates/list";
        public static final String RESOURCES_READ = "resources/read";
        public static final String COMPLETION_COMPLETE = "completion/complete";
        public static final String SUBSCRIPTIONS_LISTEN = "subscriptions/listen";
        public static final String TASKS_GET = "tasks/get";
        public static final String TASKS_UPDATE = "tasks/update";
        public static final String TASKS_CANCEL = "tasks/cancel";

        /** Server-to-client requests that travel inside {@code inputRequests} (MRTR). */
        public static final String ELICITATION_CREATE = "elicitation/create";

        public static final String SAMPLING_CREATE_MESSAGE = "sampling/createMessage";
        public static final String ROOTS_LIST = "roots/list";

        public static final String NOTIFICATION_PROGRESS = "notifications/progress";
        public static final String NOTIFICATION_MESSAGE = "notifications/message";
        public static final String NOTIFICATION_TOOLS_LIST_CHANGED = "notifications/tools/list_changed";
        public static final String NOTIFICATION_PROMPTS_LIST_CHANGED = "notifications/prompts/list_changed";
        public static final String NOTIFICATION_RESOURCES_LIST_CHANGED = "notifications/resources/list_changed";
        public static final String NOTIFICATION_RESOURCES_UPDATED = "notifications/resources/updated";
        public static final String NOTIFICATION_TASKS = "notifications/tasks";
        public static final String NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
    }

    /** Keys of {@code params._meta} and {@code result._meta}, and extension ids. */
    public static final class Meta {
        private Meta() {}

        public static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
        public static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
        public static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
        public static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";
        public static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";
        public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
        public static final String PROGRESS_TOKEN = "progressToken";

        /** The tasks extension's id, in client and server capabilities. */
        public static final String TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
    }

    /** Values of {@code resultType}. */
    public static final class ResultTypes {
        private ResultTypes() {}

        public static final String COMPLETE = "complete";
        public static final String INPUT_REQUIRED = "input_required";
        public static final String TASK = "task";
    }
}
