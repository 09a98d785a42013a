package dev.parley.runtime.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ElicitAnswer;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.InputAnswer;
import dev.parley.runtime.InputQuestion;
import dev.parley.runtime.RootsAnswer;
import dev.parley.runtime.SamplingAnswer;
import dev.parley.runtime.SamplingRequest;
import java.util.ArrayList;
import java.util.List;

/** Reads a recorded (already validated) input response as the answer type of its question. */
@SuppressWarnings("deprecation")
final class InputAnswers {
    private InputAnswers() {}

    static InputAnswer fromWire(InputQuestion question, JsonNode response) {
        if (question instanceof Elicitation) {
            return ElicitAnswer.fromWire(response);
        }
        if (question instanceof SamplingRequest) {
            return new SamplingAnswer((ObjectNode) response);
        }
        List<RootsAnswer.Root> roots = new ArrayList<>();
        response.path("roots")
                .forEach(root -> roots.add(new RootsAnswer.Root(
                        root.path("uri").asText(), root.path("name").asText(null))));
        return new RootsAnswer(roots);
    }
}
