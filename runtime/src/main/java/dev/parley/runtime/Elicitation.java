package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.schema.RecordSchemas;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A question for the user, sent as an {@code elicitation/create} input request (spec §4). */
public sealed interface Elicitation extends InputQuestion permits Elicitation.Form, Elicitation.Url {

    static Form.Builder form(String message) {
        return new Form.Builder(message);
    }

    /**
     * A form whose {@code requestedSchema} is derived from the record {@code answerType} (flat:
     * string, number, integer, boolean, enum, date and date-time components; {@link Title} and
     * {@link Description} label them; {@code Optional} ones are not required). Ask it with
     * {@link CallContext#elicit(String, TypedForm)} to get the answer as an {@code R}.
     */
    static <R extends Record> TypedForm<R> form(String message, Class<R> answerType) {
        return new TypedForm<>(
                new Form(message, RecordSchemas.deriveForm(answerType), RecordSchemas.notSecrets(answerType)),
                answerType);
    }

    /**
     * URL mode: the user opens {@code url} out of band; {@code accept} only means they agreed to.
     * The way to collect a secret (a password, a card, a key) is a page of yours behind such a URL.
     */
    static Url url(String message, String url) {
        return new Url(message, url);
    }

    /**
     * Form mode: a flat object of primitive fields. A field that asks for a secret is refused here
     * with an {@link UnsafeQuestionException} ({@link ElicitationSafety}) unless {@code notSecrets}
     * marks it as none: field name to the author's reason, kept on the server (never sent).
     */
    record Form(String message, ObjectNode requestedSchema, Map<String, String> notSecrets) implements Elicitation {
        public Form {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(requestedSchema, "requestedSchema");
            notSecrets = Map.copyOf(notSecrets);
            ElicitationSafety.checkForm(requestedSchema, notSecrets);
        }

        /** A form none of whose fields is marked as no secret. */
        public Form(String message, ObjectNode requestedSchema) {
            this(message, requestedSchema, Map.of());
        }

        @Override
        public InputRequest toInputRequest() {
            ObjectNode params = Json.object().put("mode", "form").put("message", message);
            params.set("requestedSchema", requestedSchema);
            return new InputRequest(Methods.ELICITATION_CREATE, params);
        }

        @Override
        public boolean supportedBy(ClientCapabilities capabilities) {
            return capabilities.elicitationForm();
        }

        @Override
        public ObjectNode requiredCapability() {
            ObjectNode required = Json.object();
            required.putObject("elicitation").putObject("form");
            return required;
        }

        public static final class Builder {
            private final String message;
            private final Map<String, FormField> fields = new LinkedHashMap<>();

            private Builder(String message) {
                this.message = message;
            }

            public Builder field(String name, FormField field) {
                fields.put(name, field);
                return this;
            }

            public Form build() {
                ObjectNode schema = Json.object().put("type", "object");
                ObjectNode properties = schema.putObject("properties");
                ArrayNode required = Json.MAPPER.createArrayNode();
                Map<String, String> notSecrets = new LinkedHashMap<>();
                fields.forEach((name, field) -> {
                    properties.set(name, field.schema());
                    if (field.required()) {
                        required.add(name);
                    }
                    if (field.notASecretBecause() != null) {
                        notSecrets.put(name, field.notASecretBecause());
                    }
                });
                if (!required.isEmpty()) {
                    schema.set("required", required);
                }
                return new Form(message, schema, notSecrets);
            }
        }
    }

    /**
     * A form question answered by an {@code R}. On the wire it is exactly {@link #form()}: its
     * fingerprint is the fingerprint of that form, so it changes when the message, the record's
     * components (names, types, titles, descriptions) or a default change.
     */
    record TypedForm<R>(Form form, Class<R> answerType) {
        public TypedForm {
            Objects.requireNonNull(form, "form");
            Objects.requireNonNull(answerType, "answerType");
        }

        /** The same form with a default value for {@code field} (e.g. a suggestion computed in the handler). */
        public TypedForm<R> defaultValue(String field, Object value) {
            ObjectNode schema = form.requestedSchema().deepCopy();
            if (!(schema.path("properties").get(field) instanceof ObjectNode property)) {
                throw new IllegalArgumentException(answerType.getSimpleName() + " has no field '" + field + "'");
            }
            property.set("default", Json.tree(value));
            return new TypedForm<>(new Form(form.message(), schema, form.notSecrets()), answerType);
        }
    }

    /**
     * URL mode. The URL is {@code https} (plain {@code http} only to a loopback host, for
     * development), without credentials in its user-info, and not {@code javascript:} or
     * {@code data:}; any other is refused here with an {@link UnsafeQuestionException}.
     */
    record Url(String message, String url) implements Elicitation {
        public Url {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(url, "url");
            ElicitationSafety.checkUrl(url);
        }

        @Override
        public InputRequest toInputRequest() {
            return new InputRequest(
                    Methods.ELICITATION_CREATE,
                    Json.object().put("mode", "url").put("message", message).put("url", url));
        }

        @Override
        public boolean supportedBy(ClientCapabilities capabilities) {
            return capabilities.elicitationUrl();
        }

        @Override
        public ObjectNode requiredCapability() {
            ObjectNode required = Json.object();
            required.putObject("elicitation").putObject("url");
            return required;
        }
    }

    /**
     * One primitive field of a form (spec §4.1 {@code PrimitiveSchemaDefinition}); immutable.
     * {@code notASecretBecause}: the author's reason why a field that looks like a secret is none
     * (null for most fields).
     */
    record FormField(ObjectNode schema, boolean required, String notASecretBecause) {

        public FormField(ObjectNode schema, boolean required) {
            this(schema, required, null);
        }

        public static FormField string(String title) {
            return of("string", title);
        }

        /** A string with a {@code format}: {@code email}, {@code uri}, {@code date} or {@code date-time}. */
        public static FormField string(String title, String format) {
            return new FormField(of("string", title).schema().put("format", format), true);
        }

        public static FormField integer(String title) {
            return of("integer", title);
        }

        public static FormField number(String title) {
            return of("number", title);
        }

        public static FormField bool(String title) {
            return of("boolean", title);
        }

        /** A single choice among {@code values}. */
        public static FormField choice(String title, List<String> values) {
            ObjectNode schema = of("string", title).schema();
            ArrayNode choices = schema.putArray("enum");
            values.forEach(choices::add);
            return new FormField(schema, true);
        }

        private static FormField of(String type, String title) {
            return new FormField(Json.object().put("type", type).put("title", title), true);
        }

        public FormField description(String description) {
            return with(schema.deepCopy().put("description", description));
        }

        public FormField defaultValue(String value) {
            return with(schema.deepCopy().put("default", value));
        }

        public FormField defaultValue(long value) {
            return with(schema.deepCopy().put("default", value));
        }

        public FormField defaultValue(boolean value) {
            return with(schema.deepCopy().put("default", value));
        }

        public FormField minimum(long minimum) {
            return with(schema.deepCopy().put("minimum", minimum));
        }

        public FormField maximum(long maximum) {
            return with(schema.deepCopy().put("maximum", maximum));
        }

        public FormField optional() {
            return new FormField(schema, false, notASecretBecause);
        }

        /**
         * Marks a field whose name, title or description names a sensitive term but which asks
         * for no secret; {@code reason} says why (it stays on the server).
         */
        public FormField notASecret(String reason) {
            return new FormField(schema, required, Objects.requireNonNull(reason, "reason"));
        }

        private FormField with(ObjectNode changed) {
            return new FormField(changed, required, notASecretBecause);
        }
    }
}
