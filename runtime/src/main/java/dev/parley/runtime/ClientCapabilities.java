package dev.parley.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The capabilities one request declared in {@code _meta} (they hold for that request only). */
public record ClientCapabilities(ObjectNode declared) {

    public static final ClientCapabilities NONE = new ClientCapabilities(Json.object());

    public static ClientCapabilities of(JsonNode node) {
        return node instanceof ObjectNode o ? new ClientCapabilities(o) : NONE;
    }

    /** {@code elicitation: {}} alone means form mode (spec §4). */
    public boolean elicitationForm() {
        JsonNode elicitation = declared.get("elicitation");
        return elicitation != null && elicitation.isObject() && (elicitation.has("form") || !elicitation.has("url"));
    }

    public boolean elicitationUrl() {
        JsonNode elicitation = declared.get("elicitation");
        return elicitation != null && elicitation.has("url");
    }

    public boolean sampling() {
        return declared.has("sampling");
    }

    public boolean roots() {
        return declared.has("roots");
    }

    public boolean extension(String id) {
        return declared.path("extensions").has(id);
    }
}
