package dev.parley.runtime.annotations;

import dev.parley.runtime.McpApps;
import dev.parley.runtime.TaskSupport;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a tool; register its object with
 * {@link dev.parley.runtime.McpServerDefinition.Builder#annotated(Object)}. The method takes
 * either one record (the arguments, schema derived from it) or {@link Arg} parameters, and
 * optionally a {@link dev.parley.runtime.CallContext}; it returns a
 * {@link dev.parley.runtime.ToolResult} or a {@code String} (a text result). It is a
 * {@link dev.parley.runtime.ToolDefinition} like any other, under the same determinism contract.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Tool {
    /** The tool's name; the method's name when empty. */
    String name() default "";

    String title() default "";

    String description() default "";

    /** OAuth scopes a caller's token must carry (with authorization on). */
    String[] scopes() default {};

    TaskSupport taskSupport() default TaskSupport.FORBIDDEN;

    /** An ISO-8601 duration ({@code PT2S}): see {@link dev.parley.runtime.ToolDefinition.Builder#taskBudget}. */
    String taskBudget() default "";

    /** See {@link dev.parley.runtime.ToolDefinition.Builder#asksInTask()}. */
    boolean asksInTask() default false;

    /** Marks the tool read-only ({@link dev.parley.runtime.ToolAnnotations#readOnly()}). */
    boolean readOnly() default false;

    /**
     * The MCP Apps view (a {@code ui://} resource the server registers) that renders this tool's
     * results; none when empty. See {@link dev.parley.runtime.ToolDefinition.Builder#ui}.
     */
    String ui() default "";

    /**
     * Who may call a tool that has a {@link #ui()} view: the model and the view when empty;
     * {@code APP} alone for a tool only its view calls (hidden from clients without MCP Apps).
     */
    McpApps.Visibility[] uiVisibility() default {};

    /**
     * The answer records of the typed forms the method asks: checked at registration, see
     * {@link dev.parley.runtime.ToolDefinition.Builder#asks}.
     */
    Class<? extends Record>[] asks() default {};
}
