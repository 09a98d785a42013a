package dev.parley.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#size} counts what a quota limits: the bytes of the value's JSON as the mapper writes
 * them, which is also how the journal's serializer writes an event (a character outside the Basic
 * Multilingual Plane is written as two escapes, 12 bytes, where the text's UTF-8 has 4).
 */
class JsonSizeTest {
    @Test
    void countsTheBytesTheMapperWrites() throws Exception {
        for (Object value : List.of(
                Map.of("city", "Zürich", "note", "a \"quoted\"\nline\t\u0001", "emoji", "\uD83D\uDE00"),
                List.of(1, 2.5, true),
                "x".repeat(20_000), // more than one of the generator's buffers
                Json.parse("{\"nested\":{\"list\":[{},[],null]}}"))) {
            assertEquals(Json.MAPPER.writeValueAsBytes(value).length, Json.size(value), value::toString);
        }
    }
}
