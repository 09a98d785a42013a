package dev.parley.runtime.internal.annotations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.CallContext;
import dev.parley.runtime.Json;
import dev.parley.runtime.PromptDefinition;
import dev.parley.runtime.ResourceContents;
import dev.parley.runtime.ResourceDefinition;
import dev.parley.runtime.Title;
import dev.parley.runtime.ToolAnnotations;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.ToolResult;
import dev.parley.runtime.annotations.Arg;
import dev.parley.runtime.annotations.Prompt;
import dev.parley.runtime.annotations.Resource;
import dev.parley.runtime.annotations.Tool;
import dev.parley.runtime.internal.schema.RecordSchemas;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Turns the {@link Tool}, {@link Prompt} and {@link Resource} methods of one object into the
 * builder's definitions. A thin layer: every annotated method becomes exactly the
 * {@link ToolDefinition}, {@link PromptDefinition} or {@link ResourceDefinition} the builder
 * would make, with a handler that calls the method. Only the object's own class (and its
 * superclasses) is looked at, once, at registration; there is no scanning. Methods are taken in
 * the order of their names, so lists are the same on every start.
 */
public final class AnnotatedDefinitions {
    private AnnotatedDefinitions() {}

    /** What one object declares. */
    public record Found(
            List<ToolDefinition<?>> tools, List<PromptDefinition> prompts, List<ResourceDefinition> resources) {}

    /** Reads {@code bean}'s annotated methods; a method that cannot be a handler is refused with its name. */
    public static Found of(Object bean) {
        List<ToolDefinition<?>> tools = new ArrayList<>();
        List<PromptDefinition> prompts = new ArrayList<>();
        List<ResourceDefinition> resources = new ArrayList<>();
        for (Method method : annotatedMethods(bean.getClass())) {
            String where = bean.getClass().getSimpleName() + "." + method.getName();
            try {
                method.setAccessible(true);
                if (method.isAnnotationPresent(Tool.class)) {
                    tools.add(tool(bean, method, method.getAnnotation(Tool.class)));
                } else if (method.isAnnotationPresent(Prompt.class)) {
                    prompts.add(prompt(bean, method, method.getAnnotation(Prompt.class)));
                } else {
                    resources.add(resource(bean, method, method.getAnnotation(Resource.class)));
                }
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        if (tools.isEmpty() && prompts.isEmpty() && resources.isEmpty()) {
            throw new IllegalArgumentException(
                    bean.getClass().getName() + " has no @Tool, @Prompt or @Resource method");
        }
        return new Found(List.copyOf(tools), List.copyOf(prompts), List.copyOf(resources));
    }

    private static List<Method> annotatedMethods(Class<?> type) {
        List<Method> methods = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method method : c.getDeclaredMethods()) {
                int marks = (method.isAnnotationPresent(Tool.class) ? 1 : 0)
                        + (method.isAnnotationPresent(Prompt.class) ? 1 : 0)
                        + (method.isAnnotationPresent(Resource.class) ? 1 : 0);
                if (marks > 1) {
                    throw new IllegalArgumentException(type.getSimpleName() + "." + method.getName()
                            + " has more than one of @Tool, @Prompt, @Resource");
                }
                if (marks == 1) {
                    if (Modifier.isStatic(method.getModifiers())) {
                        throw new IllegalArgumentException(type.getSimpleName() + "." + method.getName()
                                + " is static; " + "annotated handlers are instance methods of the registered object");
                    }
                    methods.add(method);
                }
            }
        }
        methods.sort(Comparator.comparing(Method::getName));
        return methods;
    }

    // --- tools ---------------------------------------------------------------------------------

    private static ToolDefinition<?> tool(Object bean, Method method, Tool tool) {
        String name = tool.name().isEmpty() ? method.getName() : tool.name();
        if (method.getReturnType() != ToolResult.class && method.getReturnType() != String.class) {
            throw new IllegalArgumentException("a @Tool method returns ToolResult or String, not "
                    + method.getReturnType().getSimpleName());
        }
        Parameter[] parameters = method.getParameters();
        Class<?> argumentsRecord = null;
        for (Parameter parameter : parameters) {
            if (parameter.getType() == CallContext.class || parameter.isAnnotationPresent(Arg.class)) {
                continue;
            }
            if (!parameter.getType().isRecord() || argumentsRecord != null) {
                throw new IllegalArgumentException("parameter " + parameter.getName() + " of type "
                        + parameter.getType().getSimpleName()
                        + " needs @Arg (or is the one arguments record, or a CallContext)");
            }
            argumentsRecord = parameter.getType();
        }
        if (argumentsRecord != null) {
            for (Parameter parameter : parameters) {
                if (parameter.isAnnotationPresent(Arg.class)) {
                    throw new IllegalArgumentException(
                            "take the arguments either as one record or as @Arg parameters, not both");
                }
            }
            return recordTool(bean, method, tool, name, argumentsRecord);
        }
        return argTool(bean, method, tool, name, parameters);
    }

    private static <A> ToolDefinition<A> recordTool(
            Object bean, Method method, Tool tool, String name, Class<A> record) {
        Parameter[] parameters = method.getParameters();
        return configure(ToolDefinition.tool(name, record), tool).handler((args, ctx) -> {
            Object[] values = new Object[parameters.length];
            for (int i = 0; i < parameters.length; i++) {
                values[i] = parameters[i].getType() == CallContext.class ? ctx : args;
            }
            return toolResult(invoke(bean, method, values));
        });
    }

    private static ToolDefinition<ObjectNode> argTool(
            Object bean, Method method, Tool tool, String name, Parameter[] parameters) {
        ObjectNode schema = Json.object().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        ArrayNode required = Json.MAPPER.createArrayNode();
        for (Parameter parameter : parameters) {
            Arg arg = parameter.getAnnotation(Arg.class);
            if (arg == null) {
                continue;
            }
            boolean optional = parameter.getType() == Optional.class;
            ObjectNode property =
                    RecordSchemas.property(optional ? typeArgument(parameter) : parameter.getParameterizedType());
            Title title = parameter.getAnnotation(Title.class);
            if (title != null) {
                property.put("title", title.value());
            }
            if (!arg.description().isEmpty()) {
                property.put("description", arg.description());
            }
            if (properties.has(arg.value())) {
                throw new IllegalArgumentException("two parameters are @Arg(\"" + arg.value() + "\")");
            }
            properties.set(arg.value(), property);
            if (!optional) {
                required.add(arg.value());
            }
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
        return configure(ToolDefinition.tool(name, schema), tool).handler((args, ctx) -> {
            Object[] values = new Object[parameters.length];
            for (int i = 0; i < parameters.length; i++) {
                Parameter parameter = parameters[i];
                if (parameter.getType() == CallContext.class) {
                    values[i] = ctx;
                    continue;
                }
                String argName = parameter.getAnnotation(Arg.class).value();
                try {
                    values[i] = convert(args.get(argName), parameter);
                } catch (IllegalArgumentException e) {
                    // Same words as a record tool's: Jackson's own message names Java classes.
                    return ToolResult.error("Invalid arguments for tool " + name + ": the value at /" + argName
                            + " does not fit the tool's argument type");
                }
            }
            return toolResult(invoke(bean, method, values));
        });
    }

    private static <A> ToolDefinition.Builder<A> configure(ToolDefinition.Builder<A> builder, Tool tool) {
        if (!tool.title().isEmpty()) {
            builder.title(tool.title());
        }
        if (!tool.description().isEmpty()) {
            builder.description(tool.description());
        }
        if (tool.scopes().length > 0) {
            builder.requiredScopes(tool.scopes());
        }
        builder.taskSupport(tool.taskSupport());
        builder.asks(tool.asks());
        if (!tool.taskBudget().isEmpty()) {
            builder.taskBudget(Duration.parse(tool.taskBudget()));
        }
        if (tool.asksInTask()) {
            builder.asksInTask();
        }
        if (tool.readOnly()) {
            builder.annotations(ToolAnnotations.readOnly());
        }
        if (!tool.ui().isEmpty()) {
            builder.ui(tool.ui(), tool.uiVisibility());
        } else if (tool.uiVisibility().length > 0) {
            throw new IllegalArgumentException("uiVisibility needs a ui view");
        }
        return builder;
    }

    private static ToolResult toolResult(Object returned) {
        return returned instanceof String text ? ToolResult.text(text) : (ToolResult) returned;
    }

    private static Object convert(JsonNode value, Parameter parameter) {
        if (parameter.getType() == Optional.class) {
            return value == null || value.isNull()
                    ? Optional.empty()
                    : Optional.of(Json.MAPPER.convertValue(value, Json.MAPPER.constructType(typeArgument(parameter))));
        }
        return Json.MAPPER.convertValue(value, Json.MAPPER.constructType(parameter.getParameterizedType()));
    }

    private static Type typeArgument(Parameter parameter) {
        if (parameter.getParameterizedType() instanceof ParameterizedType p) {
            return p.getActualTypeArguments()[0];
        }
        throw new IllegalArgumentException("parameter " + parameter.getName() + " is a raw Optional");
    }

    // --- prompts -------------------------------------------------------------------------------

    private static PromptDefinition prompt(Object bean, Method method, Prompt prompt) {
        if (method.getReturnType() != PromptDefinition.Result.class) {
            throw new IllegalArgumentException("a @Prompt method returns PromptDefinition.Result");
        }
        PromptDefinition.Builder builder =
                PromptDefinition.prompt(prompt.name().isEmpty() ? method.getName() : prompt.name());
        if (!prompt.title().isEmpty()) {
            builder.title(prompt.title());
        }
        if (!prompt.description().isEmpty()) {
            builder.description(prompt.description());
        }
        if (prompt.scopes().length > 0) {
            builder.requiredScopes(prompt.scopes());
        }
        Parameter[] parameters = method.getParameters();
        for (Parameter parameter : parameters) {
            Arg arg = parameter.getAnnotation(Arg.class);
            if (parameter.getType() == CallContext.class) {
                continue;
            }
            boolean optional = parameter.getType() == Optional.class && typeArgument(parameter) == String.class;
            if (arg == null || !(optional || parameter.getType() == String.class)) {
                throw new IllegalArgumentException("a @Prompt method takes @Arg String or Optional<String> parameters "
                        + "and a CallContext; " + parameter.getName() + " is neither");
            }
            builder.argument(arg.value(), arg.description().isEmpty() ? null : arg.description(), !optional);
        }
        return builder.handler((args, ctx) -> {
            Object[] values = new Object[parameters.length];
            for (int i = 0; i < parameters.length; i++) {
                Parameter parameter = parameters[i];
                if (parameter.getType() == CallContext.class) {
                    values[i] = ctx;
                } else {
                    String value = args.get(parameter.getAnnotation(Arg.class).value());
                    values[i] = parameter.getType() == Optional.class ? Optional.ofNullable(value) : value;
                }
            }
            return (PromptDefinition.Result) invoke(bean, method, values);
        });
    }

    // --- resources -----------------------------------------------------------------------------

    private static ResourceDefinition resource(Object bean, Method method, Resource resource) {
        Class<?> returned = method.getReturnType();
        if (returned != List.class && returned != String.class && !ResourceContents.class.isAssignableFrom(returned)) {
            throw new IllegalArgumentException(
                    "a @Resource method returns List<ResourceContents>, ResourceContents or String");
        }
        String uri = resource.uri();
        boolean template = uri.contains("{");
        String name = resource.name().isEmpty() ? method.getName() : resource.name();
        ResourceDefinition.Builder builder =
                template ? ResourceDefinition.template(uri, name) : ResourceDefinition.resource(uri, name);
        if (!resource.title().isEmpty()) {
            builder.title(resource.title());
        }
        if (!resource.description().isEmpty()) {
            builder.description(resource.description());
        }
        String mimeType = resource.mimeType().isEmpty() ? null : resource.mimeType();
        if (mimeType != null) {
            builder.mimeType(mimeType);
        }
        if (resource.scopes().length > 0) {
            builder.requiredScopes(resource.scopes());
        }
        Parameter[] parameters = method.getParameters();
        for (Parameter parameter : parameters) {
            Arg arg = parameter.getAnnotation(Arg.class);
            if (parameter.getType() == CallContext.class
                    || parameter.getType() == ResourceDefinition.ReadRequest.class) {
                continue;
            }
            if (arg == null || parameter.getType() != String.class) {
                throw new IllegalArgumentException(
                        "a @Resource method takes @Arg String template variables, the ReadRequest "
                                + "and a CallContext; " + parameter.getName() + " is none of them");
            }
            if (!uri.contains("{" + arg.value() + "}")) {
                throw new IllegalArgumentException("@Arg(\"" + arg.value() + "\") is not a variable of " + uri);
            }
        }
        return builder.handler((request, ctx) -> {
            Object[] values = new Object[parameters.length];
            for (int i = 0; i < parameters.length; i++) {
                Parameter parameter = parameters[i];
                if (parameter.getType() == CallContext.class) {
                    values[i] = ctx;
                } else if (parameter.getType() == ResourceDefinition.ReadRequest.class) {
                    values[i] = request;
                } else {
                    values[i] = request.variables()
                            .get(parameter.getAnnotation(Arg.class).value());
                }
            }
            Object contents = invoke(bean, method, values);
            if (contents instanceof String text) {
                return List.of(ResourceContents.text(request.uri(), mimeType, text));
            }
            if (contents instanceof ResourceContents one) {
                return List.of(one);
            }
            @SuppressWarnings("unchecked")
            List<ResourceContents> list = (List<ResourceContents>) contents;
            return list;
        });
    }

    /** Calls the handler method; what it throws (a round ending included) passes through unchanged. */
    private static Object invoke(Object bean, Method method, Object[] values) throws Exception {
        try {
            return method.invoke(bean, values);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }
}
