package dev.parley.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import org.junit.jupiter.api.Test;

class AnswersTest {
    private static ObjectNode json(String text) {
        return (ObjectNode) Json.parse(text);
    }

    @Test
    void formValuesComeFromConfigurationThenSchema() {
        Answers answers = new Answers(json("{\"currency\":\"CHF\"}"), "accept");
        JsonNode content = answers.fill(json("""
        {"type":"object","properties":{
          "currency":{"type":"string","enum":["EUR","USD"]},
          "size":{"type":"string","enum":["S","M"]},
          "date":{"type":"string","format":"date","default":"2027-01-01"},
          "when":{"type":"string","format":"date-time"},
          "guests":{"type":"integer","minimum":10},
          "ratio":{"type":"number","maximum":0.5},
          "ok":{"type":"boolean"},
          "name":{"type":"string","minLength":3},
          "plan":{"type":"string","oneOf":[{"const":"basic","title":"Basic"},{"const":"pro"}]},
          "tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}"""));
        assertEquals("CHF", content.path("currency").asText());
        assertEquals("S", content.path("size").asText());
        assertEquals("2027-01-01", content.path("date").asText());
        assertEquals("2026-12-20T10:00:00Z", content.path("when").asText());
        assertEquals(10, content.path("guests").asInt());
        assertEquals(0.5, content.path("ratio").asDouble());
        assertEquals(true, content.path("ok").asBoolean());
        assertEquals("xxx", content.path("name").asText());
        assertEquals("basic", content.path("plan").asText());
        assertEquals("a", content.path("tags").get(0).asText());
    }

    @Test
    void answersEveryKindOfInputRequest() {
        Answers answers = new Answers(Json.object(), "accept");
        ObjectNode responses = answers.respond(json("""
        {"currency":{"method":"elicitation/create","params":{"mode":"form","message":"?",
            "requestedSchema":{"type":"object","properties":{"currency":{"type":"string","enum":["EUR"]}}}}},
         "pay":{"method":"elicitation/create","params":{"mode":"url","message":"pay","url":"http://127.0.0.1/pay"}},
         "llm":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}},
         "roots":{"method":"roots/list"}}"""));
        assertEquals(
                "{\"action\":\"accept\",\"content\":{\"currency\":\"EUR\"}}",
                responses.get("currency").toString());
        assertEquals("{\"action\":\"accept\"}", responses.get("pay").toString());
        assertEquals("assistant", responses.path("llm").path("role").asText());
        assertEquals("text", responses.path("llm").path("content").path("type").asText());
        assertEquals(0, responses.path("roots").path("roots").size());
    }

    @Test
    void declineCarriesNoContent() {
        ObjectNode answer = new Answers(json("{\"currency\":\"CHF\"}"), "decline").respondTo(json("""
        {"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object",
          "properties":{"currency":{"type":"string"}}}}}"""));
        assertEquals("decline", answer.path("action").asText());
        assertFalse(answer.has("content"));
    }
}
