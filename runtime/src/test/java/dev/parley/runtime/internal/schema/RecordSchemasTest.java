package dev.parley.runtime.internal.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Description;
import dev.parley.runtime.Json;
import dev.parley.testing.SpecSchema;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecordSchemasTest {

    enum Currency {
        EUR,
        USD,
        CHF
    }

    @Description("Where the event takes place")
    record Venue(@Description("Venue name") String name, int capacity) {}

    @Description("Book a venue for an event")
    record BookVenue(
            @Description("Who the booking is for") String client,
            int guests,
            boolean catering,
            double budget,
            Currency currency,
            List<String> tags,
            Optional<String> notes,
            LocalDate date,
            Venue venue,
            Instant deadline,
            long reference,
            Integer rooms,
            String[] aliases) {}

    private static final ObjectNode SCHEMA = RecordSchemas.derive(BookVenue.class);

    private static JsonNode property(String name) {
        return SCHEMA.path("properties").path(name);
    }

    @Test
    void aRecordBecomesAnObjectSchemaWithADescription() {
        assertEquals("object", SCHEMA.path("type").asText());
        assertEquals("Book a venue for an event", SCHEMA.path("description").asText());
    }

    @Test
    void everyComponentButAnOptionalOneIsRequired() {
        List<String> required = Json.MAPPER.convertValue(SCHEMA.get("required"), List.class);

        assertEquals(
                List.of(
                        "client",
                        "guests",
                        "catering",
                        "budget",
                        "currency",
                        "tags",
                        "date",
                        "venue",
                        "deadline",
                        "reference",
                        "rooms",
                        "aliases"),
                required);
        assertFalse(required.contains("notes"));
        assertTrue(SCHEMA.path("properties").has("notes"));
    }

    @Test
    void componentsMapToJsonSchemaTypes() {
        assertEquals(
                Json.parse("{\"type\":\"string\",\"description\":\"Who the booking is for\"}"), property("client"));
        assertEquals(Json.parse("{\"type\":\"integer\"}"), property("guests"));
        assertEquals(Json.parse("{\"type\":\"integer\"}"), property("reference"));
        assertEquals(Json.parse("{\"type\":\"integer\"}"), property("rooms"));
        assertEquals(Json.parse("{\"type\":\"boolean\"}"), property("catering"));
        assertEquals(Json.parse("{\"type\":\"number\"}"), property("budget"));
        assertEquals(Json.parse("{\"type\":\"string\",\"enum\":[\"EUR\",\"USD\",\"CHF\"]}"), property("currency"));
        assertEquals(Json.parse("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"), property("tags"));
        assertEquals(Json.parse("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"), property("aliases"));
        assertEquals(Json.parse("{\"type\":\"string\"}"), property("notes"));
        assertEquals(Json.parse("{\"type\":\"string\",\"format\":\"date\"}"), property("date"));
        assertEquals(Json.parse("{\"type\":\"string\",\"format\":\"date-time\"}"), property("deadline"));
    }

    @Test
    void aNestedRecordBecomesANestedObjectSchema() {
        assertEquals(
                Json.parse("{\"type\":\"object\",\"description\":\"Where the event takes place\","
                        + "\"properties\":{\"name\":{\"type\":\"string\",\"description\":\"Venue name\"},\"capacity\":{\"type\":\"integer\"}},"
                        + "\"required\":[\"name\",\"capacity\"]}"),
                property("venue"));
    }

    @Test
    void theDerivedSchemaAcceptsTheJsonOfAnInstanceAndRejectsBrokenOnes() {
        var schema = JsonSchemas.compile(SCHEMA);
        BookVenue booking = new BookVenue(
                "acme",
                40,
                true,
                1999.5,
                Currency.CHF,
                List.of("summer"),
                Optional.empty(),
                LocalDate.of(2026, 8, 1),
                new Venue("Hall", 120),
                Instant.parse("2026-07-30T12:00:00Z"),
                7L,
                null,
                new String[] {"ACME"});
        ObjectNode json = (ObjectNode) Json.tree(booking);
        json.put("rooms", 2);

        assertEquals(List.of(), JsonSchemas.problems(schema, json));
        assertFalse(JsonSchemas.problems(schema, json.deepCopy().put("currency", "GBP"))
                .isEmpty());
        assertFalse(JsonSchemas.problems(schema, json.deepCopy().put("date", "tomorrow"))
                .isEmpty());
        ObjectNode withoutVenueCapacity = json.deepCopy();
        ((ObjectNode) withoutVenueCapacity.get("venue")).remove("capacity");
        assertFalse(JsonSchemas.problems(schema, withoutVenueCapacity).isEmpty());
    }

    @Test
    void theDerivedSchemaIsAValidToolInputSchema() {
        ObjectNode tool = Json.object().put("name", "book_venue");
        tool.set("inputSchema", SCHEMA);

        SpecSchema.assertValid("Tool", tool);
    }

    @Test
    void aRecordWithoutComponentsHasNoRequiredList() {
        record Nothing() {}

        ObjectNode schema = RecordSchemas.derive(Nothing.class);

        assertEquals(Json.parse("{\"type\":\"object\",\"properties\":{}}"), schema);
    }

    @Test
    void aRecordWithOnlyOptionalComponentsHasNoRequiredList() {
        record Filter(Optional<String> query, Optional<Integer> limit) {}

        ObjectNode schema = RecordSchemas.derive(Filter.class);

        assertFalse(schema.has("required"));
        assertEquals("integer", schema.at("/properties/limit/type").asText());
    }

    @Test
    void aTypeThatIsNotARecordIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> RecordSchemas.derive(String.class));
    }

    @Test
    void aComponentWithNoJsonSchemaMappingIsRefused() {
        record WithMap(Map<String, String> labels) {}
        record WithSet(Set<Object> things) {}
        record WithObject(Object anything) {}

        assertThrows(IllegalArgumentException.class, () -> RecordSchemas.derive(WithMap.class));
        assertThrows(IllegalArgumentException.class, () -> RecordSchemas.derive(WithObject.class));
        assertThrows(IllegalArgumentException.class, () -> RecordSchemas.derive(WithSet.class));
    }
}
