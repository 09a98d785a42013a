package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Schema;
import dev.parley.runtime.McpException;
import dev.parley.runtime.internal.schema.JsonSchemas;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks one {@code inputResponses} entry against the question it answers, before anything is
 * persisted. A bad answer is refused with -32602 naming the key and the problem; the client
 * can correct it and retry with the same {@code requestState}.
 */
public final class AnswerValidation {
    private static final Set<String> ACTIONS = Set.of("accept", "decline", "cancel");
    /**
     * Requested schemas, compiled once: a tool asks the same few questions call after call, and
     * compiling costs far more than validating. Bounded; emptied when full (a tool that builds its
     * schemas from data compiles them again, as it would without the cache).
     */
    private static final Map<JsonNode, Schema> REQUESTED_SCHEMAS = new ConcurrentHashMap<>();

    private static final int MAX_REQUESTED_SCHEMAS = 256;

    private AnswerValidation() {}

    /**
     * The answers among {@code inputResponses} to the open {@code questions}, each checked and
     * recorded with the fingerprint of the question it answers; keys that answer no open question
     * are ignored. Throws -32602 for the first answer that does not fit.
     */
    public static Map<String, CallHistory.RecordedAnswer> answersTo(
            List<AskedQuestion> questions, JsonNode inputResponses) {
        Map<String, CallHistory.RecordedAnswer> answers = new LinkedHashMap<>();
        for (AskedQuestion question : questions) {
            JsonNode response = inputResponses.get(question.key());
            if (response != null) {
                check(question, response);
                answers.put(question.key(), new CallHistory.RecordedAnswer(question.fingerprint(), response));
            }
        }
        return answers;
    }

    public static void check(AskedQuestion question, JsonNode response) {
        String key = question.key();
        if (response == null || !response.isObject()) {
            throw McpException.invalidParams("inputResponses['" + key + "'] must be an object");
        }
        InputRequest request = question.request();
        if (Methods.SAMPLING_CREATE_MESSAGE.equals(request.method())) {
            checkSampling(key, response);
            return;
        }
        if (Methods.ROOTS_LIST.equals(request.method())) {
            checkRoots(key, response);
            return;
        }
        String action = response.path("action").asText(null);
        if (action == null || !ACTIONS.contains(action)) {
            throw McpException.invalidParams(
                    "inputResponses['" + key + "'].action must be one of accept, decline, cancel");
        }
        boolean formMode = !"url".equals(request.params().path("mode").asText("form"));
        if (!formMode || !"accept".equals(action)) {
            return;
        }
        JsonNode content = response.get("content");
        if (content == null || !content.isObject()) {
            throw McpException.invalidParams(
                    "inputResponses['" + key + "'].content must be an object when action is accept");
        }
        Schema schema = requestedSchema(request.params().get("requestedSchema"));
        List<String> problems = JsonSchemas.problems(schema, content);
        if (!problems.isEmpty()) {
            throw McpException.invalidParams("inputResponses['" + key + "'] does not match the requested schema: "
                    + String.join("; ", problems));
        }
    }

    private static Schema requestedSchema(JsonNode schema) {
        if (schema == null) {
            return JsonSchemas.compile(null);
        }
        Schema compiled = REQUESTED_SCHEMAS.get(schema);
        if (compiled == null) {
            compiled = JsonSchemas.compile(schema);
            if (REQUESTED_SCHEMAS.size() >= MAX_REQUESTED_SCHEMAS) {
                REQUESTED_SCHEMAS.clear();
            }
            REQUESTED_SCHEMAS.put(schema.deepCopy(), compiled);
        }
        return compiled;
    }

    /** A {@code CreateMessageResult}: role, content and model. */
    private static void checkSampling(String key, JsonNode response) {
        if (!response.path("role").isTextual()
                || !response.path("content").isContainerNode()
                || !response.path("model").isTextual()) {
            throw McpException.invalidParams(
                    "inputResponses['" + key + "'] must be a CreateMessageResult with role, content and model");
        }
    }

    /** A {@code ListRootsResult}: an array of roots, each with a string uri. */
    private static void checkRoots(String key, JsonNode response) {
        JsonNode roots = response.get("roots");
        boolean valid = roots != null && roots.isArray();
        if (valid) {
            for (JsonNode root : roots) {
                valid &= root.isObject() && root.path("uri").isTextual();
            }
        }
        if (!valid) {
            throw McpException.invalidParams(
                    "inputResponses['" + key + "'] must be a ListRootsResult with a roots array");
        }
    }
}
