package dev.parley.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import org.junit.jupiter.api.Test;

class AskedQuestionTest {

    @Test
    void theFingerprintIsTheDigestOfTheQuestionAsItIsWhenAsked() {
        ObjectNode params = Json.object().put("message", "Your name?");
        InputRequest asked = new InputRequest("elicitation/create", params);
        String first = AskedQuestion.fingerprint(asked);
        assertEquals(Json.digest(Json.tree(asked)), first);
        assertEquals(first, AskedQuestion.fingerprint(new InputRequest("elicitation/create", params.deepCopy())));

        // the asker changes its params object afterwards: the changed question is another question
        params.put("message", "Your age?");
        String changed = AskedQuestion.fingerprint(asked);
        assertNotEquals(first, changed);
        assertEquals(Json.digest(Json.tree(asked)), changed);
        assertEquals(
                first,
                AskedQuestion.fingerprint(
                        new InputRequest("elicitation/create", Json.object().put("message", "Your name?"))));
    }
}
