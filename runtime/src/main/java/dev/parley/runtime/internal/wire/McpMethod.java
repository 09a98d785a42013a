package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every MCP request method Parley knows, with the facts the edge, authorization, metrics, the
 * 2025-11-25 routes and the pipeline read about it. Adding a method is a constant here, its wire
 * records, a handler, and the case that the pipeline's exhaustive switch then asks for.
 */
public enum McpMethod {
    SERVER_DISCOVER(Methods.SERVER_DISCOVER, Era.MODERN, Target.NONE, Trait.CACHEABLE),
    INITIALIZE(Legacy.INITIALIZE, Era.LEGACY, Target.NONE),
    PING(Legacy.PING, Era.LEGACY, Target.NONE),
    TOOLS_LIST(Methods.TOOLS_LIST, Era.BOTH, Target.NONE, Trait.CACHEABLE),
    TOOLS_CALL(Methods.TOOLS_CALL, Era.BOTH, Target.TOOL, Trait.MAY_ASK, Trait.MAY_BECOME_TASK),
    PROMPTS_LIST(Methods.PROMPTS_LIST, Era.BOTH, Target.NONE, Trait.CACHEABLE),
    PROMPTS_GET(Methods.PROMPTS_GET, Era.BOTH, Target.PROMPT, Trait.MAY_ASK),
    RESOURCES_LIST(Methods.RESOURCES_LIST, Era.BOTH, Target.NONE, Trait.CACHEABLE),
    RESOURCES_TEMPLATES_LIST(Methods.RESOURCES_TEMPLATES_LIST, Era.BOTH, Target.NONE, Trait.CACHEABLE),
    RESOURCES_READ(Methods.RESOURCES_READ, Era.BOTH, Target.RESOURCE, Trait.MAY_ASK, Trait.CACHEABLE),
    RESOURCES_SUBSCRIBE(Legacy.RESOURCES_SUBSCRIBE, Era.LEGACY, Target.RESOURCE),
    RESOURCES_UNSUBSCRIBE(Legacy.RESOURCES_UNSUBSCRIBE, Era.LEGACY, Target.RESOURCE),
    COMPLETION_COMPLETE(Methods.COMPLETION_COMPLETE, Era.BOTH, Target.NONE),
    LOGGING_SET_LEVEL(Legacy.LOGGING_SET_LEVEL, Era.LEGACY, Target.NONE),
    SUBSCRIPTIONS_LISTEN(Methods.SUBSCRIPTIONS_LISTEN, Era.MODERN, Target.NONE),
    TASKS_GET(Methods.TASKS_GET, Era.MODERN, Target.TASK),
    TASKS_UPDATE(Methods.TASKS_UPDATE, Era.MODERN, Target.TASK),
    TASKS_CANCEL(Methods.TASKS_CANCEL, Era.MODERN, Target.TASK),
    /** The 2025-11-25 tasks draft's methods: not served, but counted under their own metric label. */
    TASKS_LIST("tasks/list", Era.NEITHER, Target.NONE),
    TASKS_RESULT("tasks/result", Era.NEITHER, Target.TASK);

    /** The metric label of a method Parley does not know (a client's typo, a future method). */
    public static final String OTHER_LABEL = "_other";

    private static final Map<String, McpMethod> BY_WIRE_NAME =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(McpMethod::wireName, Function.identity()));

    /** The protocol eras that serve a method. */
    public enum Era {
        MODERN,
        LEGACY,
        BOTH,
        NEITHER;

        /** Served on the stateless 2026-07-28 wire. */
        public boolean modern() {
            return this == MODERN || this == BOTH;
        }

        /** Served on a 2025-11-25 session. */
        public boolean legacy() {
            return this == LEGACY || this == BOTH;
        }
    }

    /**
     * What a request of the method is about: the param that names it (repeated in the
     * {@code Mcp-Name} header, a span's name) and whose own required scopes apply.
     */
    public enum Target {
        NONE(null),
        TOOL("name"),
        PROMPT("name"),
        RESOURCE("uri"),
        TASK("taskId");

        private final String param;

        Target(String param) {
            this.param = param;
        }

        /** The param that names the target; null for {@link #NONE}. */
        public String param() {
            return param;
        }
    }

    private enum Trait {
        /** Its handler may ask the client (elicitation, sampling, roots). */
        MAY_ASK,
        /** It may run as a task: long work. */
        MAY_BECOME_TASK,
        /** Its result carries {@code ttlMs} and {@code cacheScope} (spec: caching). */
        CACHEABLE
    }

    private final String wireName;
    private final Era era;
    private final Target target;
    private final Set<Trait> traits;

    McpMethod(String wireName, Era era, Target target, Trait... traits) {
        this.wireName = wireName;
        this.era = era;
        this.target = target;
        this.traits = traits.length == 0 ? EnumSet.noneOf(Trait.class) : EnumSet.of(traits[0], traits);
    }

    /** The method named {@code wireName}, or null for a method Parley does not know. */
    public static McpMethod of(String wireName) {
        return wireName == null ? null : BY_WIRE_NAME.get(wireName);
    }

    /** The metric and span label of {@code wireName}: the name itself when known, else {@link #OTHER_LABEL}. */
    public static String labelOf(String wireName) {
        McpMethod method = of(wireName);
        return method == null ? OTHER_LABEL : method.wireName;
    }

    public String wireName() {
        return wireName;
    }

    public Era era() {
        return era;
    }

    public Target target() {
        return target;
    }

    public boolean mayAsk() {
        return traits.contains(Trait.MAY_ASK);
    }

    public boolean mayBecomeTask() {
        return traits.contains(Trait.MAY_BECOME_TASK);
    }

    public boolean cacheable() {
        return traits.contains(Trait.CACHEABLE);
    }

    /** The target's name in {@code params} when it is a string, else null (also for {@link Target#NONE}). */
    public String targetIn(JsonNode params) {
        if (target == Target.NONE || params == null) {
            return null;
        }
        JsonNode value = params.get(target.param);
        return value != null && value.isTextual() ? value.asText() : null;
    }
}
