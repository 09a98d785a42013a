package dev.parley.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * How one round of a call ended: it asks questions, it completed with a result, or it failed
 * with a JSON-RPC error. An accessor that does not fit the ending fails with an
 * {@link AssertionError} saying what the round did instead.
 */
public final class Round {

    public enum Ending {
        INPUT_REQUIRED,
        COMPLETED,
        FAILED
    }

    private final Ending ending;
    private final Map<String, JsonNode> questions;
    private final ObjectNode result;
    private final int errorCode;
    private final String errorMessage;

    private Round(
            Ending ending, Map<String, JsonNode> questions, ObjectNode result, int errorCode, String errorMessage) {
        this.ending = ending;
        this.questions = Collections.unmodifiableMap(new LinkedHashMap<>(questions));
        this.result = result;
        this.errorCode = errorCode;
        this.errorMessage = errorMessage;
    }

    static Round asked(Map<String, JsonNode> questions) {
        return new Round(Ending.INPUT_REQUIRED, questions, null, 0, null);
    }

    static Round completed(ObjectNode result) {
        return new Round(Ending.COMPLETED, Map.of(), result, 0, null);
    }

    static Round failed(int code, String message) {
        return new Round(Ending.FAILED, Map.of(), null, code, message);
    }

    public Ending ending() {
        return ending;
    }

    public boolean asks() {
        return ending == Ending.INPUT_REQUIRED;
    }

    /** The open questions by key: each one's {@code params} as sent (mode, message, requestedSchema or url). */
    public Map<String, JsonNode> questions() {
        expect(Ending.INPUT_REQUIRED);
        return questions;
    }

    /** The {@code params} of the open question {@code key}. */
    public JsonNode question(String key) {
        JsonNode params = questions().get(key);
        if (params == null) {
            throw new AssertionError("the round does not ask '" + key + "'; it asks " + questions.keySet());
        }
        return params;
    }

    /** The wire {@code CallToolResult} (or prompt or resource result). */
    public ObjectNode result() {
        expect(Ending.COMPLETED);
        return result;
    }

    /** The text of the result's text blocks, joined by newlines. */
    public String text() {
        return StreamSupport.stream(result().path("content").spliterator(), false)
                .filter(block -> "text".equals(block.path("type").asText()))
                .map(block -> block.path("text").asText())
                .collect(Collectors.joining("\n"));
    }

    /** Whether the tool reported a failure ({@code isError}: a normal result, not a JSON-RPC error). */
    public boolean isError() {
        return result().path("isError").asBoolean(false);
    }

    public int errorCode() {
        expect(Ending.FAILED);
        return errorCode;
    }

    public String errorMessage() {
        expect(Ending.FAILED);
        return errorMessage;
    }

    private void expect(Ending expected) {
        if (ending != expected) {
            throw new AssertionError("the round ended " + ending + ", not " + expected + ": " + this);
        }
    }

    @Override
    public String toString() {
        return switch (ending) {
            case INPUT_REQUIRED -> "asks " + questions.keySet();
            case COMPLETED -> "completed with " + result;
            case FAILED -> "failed with " + errorCode + " " + errorMessage;
        };
    }
}
