package dev.parley.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Elicitation;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpException;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import dev.parley.testing.SpecSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnswerValidationTest {
    private static final AskedQuestion RELEASE = AskedQuestion.of(
            "release",
            Elicitation.form("Plan the release")
                    .field("window", FormField.string("Window", "date-time"))
                    .field("day", FormField.string("Day", "date").optional())
                    .field("owner", FormField.string("Owner e-mail", "email").optional())
                    .field("currency", FormField.choice("Currency", List.of("EUR", "USD")))
                    .field("guests", FormField.integer("Guests").minimum(1).maximum(500))
                    .field("budget", FormField.number("Budget").optional())
                    .field("urgent", FormField.bool("Urgent").optional())
                    .build()
                    .toInputRequest());
    private static final AskedQuestion DEPOSIT = AskedQuestion.of(
            "deposit",
            Elicitation.url("Pay the deposit", "https://127.0.0.1:8443/pay/1").toInputRequest());

    private static void assertAccepted(AskedQuestion question, String response) {
        JsonNode answer = Json.parse(response);
        assertDoesNotThrow(() -> AnswerValidation.check(question, answer));
        SpecSchema.assertValid("ElicitResult", answer);
    }

    private static McpException assertRefused(AskedQuestion question, String response) {
        JsonNode answer = response == null ? null : Json.parse(response);
        McpException refused = assertThrows(
                McpException.class, () -> AnswerValidation.check(question, answer), () -> "accepted: " + response);
        assertEquals(-32602, refused.code());
        assertTrue(refused.getMessage().contains(question.key()), refused.getMessage());
        return refused;
    }

    @Test
    void aFormAnswerMatchingTheSchemaPasses() {
        assertAccepted(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\",\"currency\":\"EUR\","
                        + "\"guests\":40,\"budget\":1999,\"urgent\":true,\"day\":\"2026-08-01\",\"owner\":\"ops@example.com\"}}");
        assertAccepted(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00+02:00\","
                        + "\"currency\":\"USD\",\"guests\":1}}");
    }

    @Test
    void questionsThatDifferOnlyInTheirSchemaAreEachCheckedAgainstTheirOwn() {
        // Compiled schemas are kept by content: the second, stricter form must not reuse the first's.
        AskedQuestion optional = AskedQuestion.of(
                "guests",
                Elicitation.form("How many?")
                        .field("guests", FormField.integer("Guests").optional())
                        .build()
                        .toInputRequest());
        AskedQuestion required = AskedQuestion.of(
                "guests",
                Elicitation.form("How many?")
                        .field("guests", FormField.integer("Guests"))
                        .build()
                        .toInputRequest());

        assertAccepted(optional, "{\"action\":\"accept\",\"content\":{}}");
        assertRefused(required, "{\"action\":\"accept\",\"content\":{}}");
        assertAccepted(optional, "{\"action\":\"accept\",\"content\":{}}");
        assertAccepted(required, "{\"action\":\"accept\",\"content\":{\"guests\":2}}");
    }

    @Test
    void aNonIntegerNumberIsAcceptedThoughTheSpecJsonSchemaTypesAnswersAsIntegers() {
        // spec §4.3 / §13.4: schema.json says integer, schema.ts says number; accept non-integers.
        JsonNode answer = Json.parse("{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\","
                + "\"currency\":\"EUR\",\"guests\":2,\"budget\":19.95}}");

        assertDoesNotThrow(() -> AnswerValidation.check(RELEASE, answer));
    }

    @Test
    void aFieldOfTheWrongTypeIsRefused() {
        McpException refused = assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\",\"currency\":\"EUR\",\"guests\":\"forty\"}}");

        assertTrue(refused.getMessage().contains("guests"), refused.getMessage());
        assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\",\"currency\":\"EUR\",\"guests\":4.5}}");
        assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\",\"currency\":\"EUR\",\"guests\":4,\"urgent\":\"yes\"}}");
    }

    @Test
    void aMissingRequiredFieldIsRefused() {
        McpException refused =
                assertRefused(RELEASE, "{\"action\":\"accept\",\"content\":{\"currency\":\"EUR\",\"guests\":4}}");

        assertTrue(refused.getMessage().contains("window"), refused.getMessage());
    }

    @Test
    void aValueOutsideTheEnumIsRefused() {
        assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\",\"currency\":\"GBP\",\"guests\":4}}");
    }

    @Test
    void aNumberOutsideItsBoundsIsRefused() {
        assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\",\"currency\":\"EUR\",\"guests\":0}}");
    }

    @Test
    void aBadlyFormattedValueIsRefused() {
        assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"next tuesday\",\"currency\":\"EUR\",\"guests\":4}}");
        assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01\",\"currency\":\"EUR\",\"guests\":4}}");
        assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\",\"currency\":\"EUR\","
                        + "\"guests\":4,\"day\":\"01/08/2026\"}}");
        assertRefused(
                RELEASE,
                "{\"action\":\"accept\",\"content\":{\"window\":\"2026-08-01T10:00:00Z\",\"currency\":\"EUR\","
                        + "\"guests\":4,\"owner\":\"not-an-address\"}}");
    }

    @Test
    void aMissingOrUnknownActionIsRefused() {
        assertRefused(RELEASE, "{\"content\":{}}");
        assertRefused(RELEASE, "{\"action\":\"maybe\"}");
        assertRefused(RELEASE, "{\"action\":\"ACCEPT\"}");
        assertRefused(RELEASE, "{\"action\":1}");
        assertRefused(DEPOSIT, "{}");
    }

    @Test
    void aResponseThatIsNotAnObjectIsRefused() {
        assertRefused(RELEASE, null);
        assertRefused(RELEASE, "\"accept\"");
        assertRefused(RELEASE, "[{\"action\":\"accept\"}]");
        assertRefused(RELEASE, "null");
    }

    @Test
    void aFormAcceptWithoutContentIsRefused() {
        assertRefused(RELEASE, "{\"action\":\"accept\"}");
        assertRefused(RELEASE, "{\"action\":\"accept\",\"content\":\"2026-08-01\"}");
    }

    @Test
    void declineAndCancelNeedNoContent() {
        assertAccepted(RELEASE, "{\"action\":\"decline\"}");
        assertAccepted(RELEASE, "{\"action\":\"cancel\"}");
        assertAccepted(DEPOSIT, "{\"action\":\"decline\"}");
        assertAccepted(DEPOSIT, "{\"action\":\"cancel\"}");
    }

    @Test
    void aUrlModeAcceptNeedsNoContent() {
        assertAccepted(DEPOSIT, "{\"action\":\"accept\"}");
    }

    @Test
    void aFormQuestionWithoutAnExplicitModeIsValidatedAsAForm() {
        AskedQuestion implicit = AskedQuestion.of(
                "name",
                new InputRequest(
                        Methods.ELICITATION_CREATE,
                        Json.parse(
                                "{\"message\":\"Your name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                                        + "\"required\":[\"name\"]}}")));

        assertRefused(implicit, "{\"action\":\"accept\",\"content\":{}}");
        assertAccepted(implicit, "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
    }
}
