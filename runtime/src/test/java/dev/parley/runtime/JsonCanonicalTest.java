package dev.parley.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#canonical} is what request-state digests and journaled question fingerprints are
 * taken of, so its text must never change. It is checked against the way it was first made: the
 * tree read as plain maps and lists, written by the mapper with its entries ordered by key.
 */
class JsonCanonicalTest {
    private static final ObjectMapper FIRST_WAY =
            Json.MAPPER.copy().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private static String firstWay(JsonNode node) throws Exception {
        return FIRST_WAY.writeValueAsString(
                Json.MAPPER.treeToValue(node == null ? Json.MAPPER.nullNode() : node, Object.class));
    }

    @Test
    void knownValuesKeepTheirCanonicalText() {
        assertEquals(
                "{\"a\":[3,{\"x\":1.5,\"y\":\"é\\\"\\n\"}],\"b\":true,\"c\":{}}",
                Json.canonical(
                        Json.parse("{\"c\":{},\"b\":true,\"z\":null,\"a\":[3,{\"y\":\"é\\\"\\n\",\"x\":1.5}]}")));
        assertEquals("null", Json.canonical(null));
        assertEquals("[null,1]", Json.canonical(Json.parse("[null,1]")));
    }

    @Test
    void theTextIsTheSameAsTheFirstWayForHandPickedValues() throws Exception {
        String[] samples = {
            "{}",
            "[]",
            "null",
            "0",
            "-0",
            "1e400",
            "12345678901234567890123",
            "1.0",
            "-2.5e-7",
            "0.1",
            "\"\"",
            "\"\\u0000\\u001f\\u2028 \\ud83d\\ude00 </script>\"",
            "true",
            "false",
            "{\"b\":1,\"a\":2,\"B\":3,\"_\":4,\"\":5,\"é\":6,\"a1\":7,\"a10\":8,\"a2\":9}",
            "{\"n\":null,\"o\":{\"n\":null,\"a\":[null,{\"n\":null}]}}",
            "[[[]],{},[{}],{\"a\":{\"b\":{\"c\":[1,2,{\"d\":\"e\"}]}}}]",
            "{\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}"
        };
        for (String sample : samples) {
            JsonNode node = Json.parse(sample);
            assertEquals(firstWay(node), Json.canonical(node), sample);
        }
    }

    @Test
    void theTextIsTheSameAsTheFirstWayForGeneratedTrees() throws Exception {
        Random random = new Random(20261203);
        for (int i = 0; i < 2_000; i++) {
            JsonNode node = generate(random, 0);
            assertEquals(firstWay(node), Json.canonical(node), node::toString);
        }
    }

    private static JsonNode generate(Random random, int depth) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        int kind = random.nextInt(depth > 3 ? 8 : 10);
        switch (kind) {
            case 0:
                return nodes.nullNode();
            case 1:
                return nodes.booleanNode(random.nextBoolean());
            case 2:
                return nodes.numberNode(random.nextInt());
            case 3:
                return nodes.numberNode(random.nextLong());
            case 4:
                return nodes.numberNode(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
            case 5:
                return nodes.numberNode(new BigInteger(80, random));
            case 6:
                return nodes.numberNode(new BigDecimal(random.nextGaussian()));
            case 7:
                return nodes.textNode(text(random));
            case 8: {
                ArrayNode array = nodes.arrayNode();
                for (int n = random.nextInt(4); n > 0; n--) {
                    array.add(generate(random, depth + 1));
                }
                return array;
            }
            default: {
                ObjectNode object = nodes.objectNode();
                for (int n = random.nextInt(5); n > 0; n--) {
                    object.set(text(random), generate(random, depth + 1));
                }
                return object;
            }
        }
    }

    private static String text(Random random) {
        String alphabet = "aAbZ_0 é\"\\\n\u0001\u2028😀";
        StringBuilder text = new StringBuilder();
        for (int n = random.nextInt(6); n > 0; n--) {
            text.appendCodePoint(alphabet.codePoints()
                    .toArray()[random.nextInt((int) alphabet.codePoints().count())]);
        }
        return text.toString();
    }
}
