package dev.parley.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Elicitation.FormField;
import dev.parley.runtime.annotations.Tool;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The elicitation safety rules: the term matcher, forms refused where they are built, URL checks, registration. */
class ElicitationSafetyTest {

    // --- the matcher --------------------------------------------------------------------------

    /** Each term, as a field name would spell it in several styles. */
    static Stream<Arguments> spellings() {
        return Stream.of(
                Arguments.of(
                        "password",
                        List.of(
                                "password",
                                "Password",
                                "userPassword",
                                "new_password",
                                "PASSWORD",
                                "Your password",
                                "newpassword",
                                "passwords")),
                Arguments.of("passwd", List.of("passwd", "user-passwd")),
                Arguments.of("passphrase", List.of("passphrase", "keyPassphrase", "PASSPHRASE")),
                Arguments.of("PIN", List.of("pin", "PIN", "cardPin", "PINCode", "pin-code", "Your PIN", "pins")),
                Arguments.of("secret", List.of("secret", "clientSecret", "client_secret", "Shared secret")),
                Arguments.of("token", List.of("token", "accessToken", "refresh-token", "API_TOKEN", "tokens")),
                Arguments.of(
                        "API key",
                        List.of(
                                "apiKey",
                                "api_key",
                                "API-KEY",
                                "API key",
                                "apikey",
                                "ApiKeys",
                                "APIKey",
                                "openaiApiKey")),
                Arguments.of("private key", List.of("privateKey", "private_key", "Private key (PEM)", "privatekey")),
                Arguments.of(
                        "card number",
                        List.of(
                                "cardNumber",
                                "card_number",
                                "Card number",
                                "creditCardNumber",
                                "creditcardnumber",
                                "CARD-NUMBER")),
                Arguments.of("CVV", List.of("cvv", "CVV", "cvv2", "cardCvv")),
                Arguments.of("CVC", List.of("cvc", "CVC", "cardCVC")),
                Arguments.of("security code", List.of("securityCode", "Card security code", "securitycode")),
                Arguments.of("IBAN", List.of("iban", "IBAN", "payoutIban", "Your IBAN")),
                Arguments.of(
                        "account number",
                        List.of("accountNumber", "bank_account_number", "Account number", "accountnumber")),
                Arguments.of(
                        "social security",
                        List.of("socialSecurityNumber", "Social security number", "social_security_no")),
                Arguments.of("SSN", List.of("ssn", "SSN", "userSsn")),
                Arguments.of("tax number", List.of("taxNumber", "tax_number", "Tax number", "taxnumber")));
    }

    @ParameterizedTest
    @MethodSource("spellings")
    void everyTermIsFoundHoweverItIsSpelled(String term, List<String> spellings) {
        for (String spelling : spellings) {
            assertEquals(Optional.of(term), ElicitationSafety.sensitiveTerm(spelling), spelling);
        }
    }

    @Test
    void theSpellingsCoverEveryTerm() {
        assertEquals(
                ElicitationSafety.SENSITIVE_TERMS,
                spellings().map(arguments -> arguments.get()[0]).toList());
    }

    /** Words that contain a term's letters or one of its words, and the demo's and fixtures' labels. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "shipping",
                "opinion",
                "spinner",
                "Pinned to top",
                "secretary",
                "tokenizer",
                "keyboard",
                "monkey",
                "account",
                "Account holder",
                "card",
                "Greeting card",
                "number",
                "Number of guests",
                "security",
                "Social media handle",
                "tax",
                "Tax rate",
                "Caribbean",
                "passage",
                "key",
                "Key date",
                // the demo's form fields (schedule_release, create_invoice, book_venue, publish_report)
                "window",
                "Release window start",
                "currency",
                "Currency",
                "date",
                "Event date",
                "channel",
                "Where to publish",
                // the conformance fixture server's form fields
                "username",
                "Your username",
                "email",
                "Your email address",
                "name",
                "Name",
                "age",
                "score",
                "status",
                "verified",
                "untitledSingle",
                "titledSingle",
                "legacyEnum",
                "untitledMulti",
                "titledMulti",
                "ok",
                "context",
                "color",
                "value",
                "confirm",
                "Delete it",
                "Proceed",
                "email",
                "uri",
                "date-time"
            })
    void innocentWordsAreNoSecret(String text) {
        assertEquals(Optional.empty(), ElicitationSafety.sensitiveTerm(text), text);
    }

    @Test
    void answersStayTheSameWhenCheckedAgainPastTheRememberedBound() {
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 1500; i++) {
                assertEquals(Optional.of("password"), ElicitationSafety.sensitiveTerm("password" + i));
                assertEquals(Optional.empty(), ElicitationSafety.sensitiveTerm("field" + i));
            }
        }
        String longText = "a long description that is not remembered ".repeat(10) + "with an API key";
        assertEquals(Optional.of("API key"), ElicitationSafety.sensitiveTerm(longText));
        assertEquals(Optional.of("API key"), ElicitationSafety.sensitiveTerm(longText));
    }

    @Test
    void foldingSplitsCamelCaseAcronymsSeparatorsAndDigits() {
        assertEquals(List.of("api", "key", "id"), ElicitationSafety.words("APIKeyId"));
        assertEquals(List.of("card", "number", "2"), ElicitationSafety.words("card-Number2"));
        assertEquals(List.of("your", "iban", "please"), ElicitationSafety.words("  Your IBAN, please!"));
    }

    // --- forms --------------------------------------------------------------------------------

    record SignIn(String username, String password) {}

    record Payout(
            @Title("Where to") @Description("Your IBAN for the payout")
            String destination) {}

    record Invoice(
            @NotASecret("the customer number printed on every invoice; it grants nothing")
            String accountNumber,

            int copies) {}

    @Test
    void aTypedFormThatAsksForASecretIsRefusedWhereItIsBuilt() {
        UnsafeQuestionException refused =
                assertThrows(UnsafeQuestionException.class, () -> Elicitation.form("Sign in", SignIn.class));
        assertEquals("password", refused.field());
        assertTrue(refused.getMessage().contains("form field 'password' asks for a secret"), refused.getMessage());
        assertTrue(refused.getMessage().contains("Elicitation.url(...)"), refused.getMessage());
    }

    @Test
    void aDescriptionOrTitleThatNamesASecretIsRefusedToo() {
        UnsafeQuestionException refused =
                assertThrows(UnsafeQuestionException.class, () -> Elicitation.form("Payout", Payout.class));
        assertEquals("destination", refused.field());
        assertTrue(refused.getMessage().contains("its description \"Your IBAN for the payout\" names \"IBAN\""));
        assertThrows(
                UnsafeQuestionException.class,
                () -> Elicitation.form("Card")
                        .field("code", FormField.string("Card security code"))
                        .build());
    }

    @Test
    void aSecretFormatIsRefused() {
        UnsafeQuestionException refused = assertThrows(
                UnsafeQuestionException.class,
                () -> Elicitation.form("Unlock")
                        .field("value", FormField.string("Value", "password"))
                        .build());
        assertTrue(refused.getMessage().contains("its format \"password\""), refused.getMessage());
        Elicitation.form("Contact")
                .field("mail", FormField.string("Mail", "email"))
                .build();
    }

    @Test
    void aHandBuiltSchemaIsCheckedLikeTheOthers() {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject("client_secret").put("type", "string");
        assertThrows(UnsafeQuestionException.class, () -> new Elicitation.Form("Connect", schema));
    }

    @Test
    void aFieldMarkedAsNoSecretPassesWithItsReasonKept() {
        Elicitation.Form typed = Elicitation.form("Copies", Invoice.class).form();
        assertEquals(
                Map.of("accountNumber", "the customer number printed on every invoice; it grants nothing"),
                typed.notSecrets());
        // the reason stays on the server
        assertFalse(Json.write(typed.toInputRequest()).contains("grants nothing"));
        assertEquals(
                typed.notSecrets(),
                Elicitation.form("Copies", Invoice.class)
                        .defaultValue("copies", 2)
                        .form()
                        .notSecrets());

        Elicitation.Form built = Elicitation.form("Where to ship?")
                .field(
                        "pin",
                        FormField.string("PIN code")
                                .notASecret("an Indian postal index number")
                                .optional())
                .build();
        assertEquals(Map.of("pin", "an Indian postal index number"), built.notSecrets());

        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject("token").put("type", "integer");
        assertEquals(
                Map.of("token", "a raffle ticket's number"),
                new Elicitation.Form("Which ticket?", schema, Map.of("token", "a raffle ticket's number"))
                        .notSecrets());
    }

    @Test
    void anOptOutNeedsAReasonAndAField() {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject("token").put("type", "integer");
        assertThrows(IllegalArgumentException.class, () -> new Elicitation.Form("?", schema, Map.of("token", " ")));
        assertThrows(IllegalArgumentException.class, () -> new Elicitation.Form("?", schema, Map.of("tokn", "typo")));
    }

    // --- URL questions --------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(
            strings = {
                "https://pay.example/checkout/42",
                "https://127.0.0.1:8443/pay/1",
                "http://127.0.0.1:8080/pay/1",
                "http://localhost:8080/pay/1",
                "http://[::1]:8080/pay/1",
                "HTTPS://Pay.Example/x"
            })
    void safeUrlsAreAsked(String url) {
        assertEquals(Optional.empty(), ElicitationSafety.urlProblem(url), url);
        Elicitation.url("Pay", url);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://pay.example/checkout/42",
                "http://127.0.0.1.pay.example/x",
                "http://localhost.pay.example/x",
                "https://user:secret@pay.example/x",
                "https://user@pay.example/x",
                "javascript:alert(1)",
                "JavaScript:alert(1)",
                "data:text/html,<script>alert(1)</script>",
                "ftp://pay.example/x",
                "/pay/1",
                "https:///nohost",
                "https://pay.example/a b"
            })
    void unsafeUrlsAreRefused(String url) {
        assertTrue(ElicitationSafety.urlProblem(url).isPresent(), url);
        UnsafeQuestionException refused =
                assertThrows(UnsafeQuestionException.class, () -> Elicitation.url("Pay", url));
        assertTrue(refused.getMessage().startsWith("the URL question's URL "), refused.getMessage());
    }

    // --- registration -------------------------------------------------------------------------

    record Release(String service) {}

    record Window(@Title("Release window start") java.time.Instant window) {}

    @Test
    void aToolThatDeclaresASecretFormFailsItsRegistration() {
        UnsafeQuestionException refused = assertThrows(
                UnsafeQuestionException.class,
                () -> ToolDefinition.tool("sign_in", Release.class).asks(Window.class, SignIn.class));
        assertEquals("password", refused.field());
        assertTrue(
                refused.getMessage().startsWith("tool sign_in, form SignIn: form field 'password' asks for a secret"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("Elicitation.url(...)"), refused.getMessage());
    }

    @Test
    void aDeclaredFormWithAnOptOutShowsItInTheDefinition() {
        ToolDefinition<Release> tool = ToolDefinition.tool("invoice", Release.class)
                .asks(Window.class, Invoice.class)
                .handler((args, ctx) -> ToolResult.text("ok"));
        assertEquals(2, tool.forms().size());
        assertEquals(Map.of(), tool.forms().get(0).form().notSecrets());
        assertEquals(
                "the customer number printed on every invoice; it grants nothing",
                tool.forms().get(1).form().notSecrets().get("accountNumber"));
    }

    static final class AnnotatedSignIn {
        @Tool(name = "sign_in", asks = SignIn.class)
        String signIn(CallContext ctx) {
            return "never runs";
        }
    }

    @Test
    void anAnnotatedToolThatDeclaresASecretFormFailsAtRegistration() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> McpServerDefinition.builder("s", "1").annotated(new AnnotatedSignIn()));
        assertTrue(
                refused.getMessage().contains("tool sign_in, form SignIn: form field 'password' asks for a secret"),
                refused.getMessage());
    }
}
