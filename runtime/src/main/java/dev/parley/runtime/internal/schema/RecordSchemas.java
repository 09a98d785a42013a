package dev.parley.runtime.internal.schema;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Description;
import dev.parley.runtime.Json;
import dev.parley.runtime.NotASecret;
import dev.parley.runtime.Title;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Derives a JSON Schema (2020-12) from a Java record: components are required unless they are
 * {@link Optional}; {@link Description} becomes {@code description}.
 */
public final class RecordSchemas {
    private RecordSchemas() {}

    public static ObjectNode derive(Class<?> recordType) {
        if (!recordType.isRecord()) {
            throw new IllegalArgumentException(recordType + " is not a record");
        }
        ObjectNode schema = Json.object().put("type", "object");
        Description typeDescription = recordType.getAnnotation(Description.class);
        if (typeDescription != null) {
            schema.put("description", typeDescription.value());
        }
        ObjectNode properties = schema.putObject("properties");
        ArrayNode required = Json.MAPPER.createArrayNode();
        for (RecordComponent component : recordType.getRecordComponents()) {
            Type type = component.getGenericType();
            boolean optional = component.getType() == Optional.class;
            ObjectNode property = optional ? forType(typeArgument(type)) : forType(type);
            Title title = component.getAnnotation(Title.class);
            if (title != null) {
                property.put("title", title.value());
            }
            Description description = component.getAnnotation(Description.class);
            if (description != null) {
                property.put("description", description.value());
            }
            properties.set(component.getName(), property);
            if (!optional) {
                required.add(component.getName());
            }
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
        return schema;
    }

    private static final Set<String> FORM_TYPES = Set.of("string", "number", "integer", "boolean");

    /**
     * An elicitation form's {@code requestedSchema} from a record: like {@link #derive}, but every
     * component must be a primitive (string, number, integer, boolean, enum, date, date-time),
     * since a form is a flat object (spec: {@code PrimitiveSchemaDefinition}).
     */
    public static ObjectNode deriveForm(Class<?> recordType) {
        ObjectNode schema = derive(recordType);
        schema.path("properties").properties().forEach(property -> {
            String type = property.getValue().path("type").asText();
            if (!FORM_TYPES.contains(type)) {
                throw new IllegalArgumentException(recordType.getSimpleName() + "." + property.getKey()
                        + " is of JSON type " + type + "; a form's fields are strings, numbers, integers or booleans");
            }
        });
        return schema;
    }

    /** The {@link NotASecret} components of a form's record: field name to the author's reason. */
    public static Map<String, String> notSecrets(Class<?> recordType) {
        Map<String, String> reasons = new LinkedHashMap<>();
        for (RecordComponent component : recordType.getRecordComponents()) {
            NotASecret notASecret = component.getAnnotation(NotASecret.class);
            if (notASecret != null) {
                reasons.put(component.getName(), notASecret.value());
            }
        }
        return reasons;
    }

    /** The schema of one value of {@code type}, as a property of a derived schema. */
    public static ObjectNode property(Type type) {
        return forType(type);
    }

    private static ObjectNode forType(Type type) {
        Class<?> raw = type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
        if (raw == String.class || raw == char.class || raw == Character.class) {
            return Json.object().put("type", "string");
        }
        if (raw == int.class
                || raw == Integer.class
                || raw == long.class
                || raw == Long.class
                || raw == short.class
                || raw == Short.class
                || raw == BigInteger.class) {
            return Json.object().put("type", "integer");
        }
        if (raw == double.class
                || raw == Double.class
                || raw == float.class
                || raw == Float.class
                || raw == BigDecimal.class) {
            return Json.object().put("type", "number");
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return Json.object().put("type", "boolean");
        }
        if (raw == LocalDate.class) {
            return Json.object().put("type", "string").put("format", "date");
        }
        if (raw == Instant.class || raw == OffsetDateTime.class) {
            return Json.object().put("type", "string").put("format", "date-time");
        }
        if (raw.isEnum()) {
            ObjectNode schema = Json.object().put("type", "string");
            ArrayNode values = schema.putArray("enum");
            for (Object constant : raw.getEnumConstants()) {
                values.add(((Enum<?>) constant).name());
            }
            return schema;
        }
        if (raw.isArray()) {
            ObjectNode schema = Json.object().put("type", "array");
            schema.set("items", forType(raw.getComponentType()));
            return schema;
        }
        if (Collection.class.isAssignableFrom(raw)) {
            ObjectNode schema = Json.object().put("type", "array");
            schema.set("items", forType(typeArgument(type)));
            return schema;
        }
        if (raw.isRecord()) {
            return derive(raw);
        }
        throw new IllegalArgumentException(
                "no JSON Schema mapping for " + type.getTypeName() + "; give the tool an explicit input schema");
    }

    private static Type typeArgument(Type type) {
        if (type instanceof ParameterizedType p) {
            return p.getActualTypeArguments()[0];
        }
        throw new IllegalArgumentException("raw generic type " + type.getTypeName() + " needs a type argument");
    }
}
