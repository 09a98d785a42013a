package dev.parley.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The elicitation safety rules (MCP: servers must not use form mode for sensitive information).
 * Every question is checked where it is built, so a question that breaks them is never sent:
 *
 * <ul>
 *   <li>A form field never asks for a secret: its name, title and description must not name one
 *       of {@link #SENSITIVE_TERMS}, and a string field's {@code format} must not be one (e.g.
 *       {@code password}). Case, separators and camelCase are folded: {@code apiKey},
 *       {@code API_KEY}, {@code api-key}, {@code "API key"} and {@code apikey} all name an API key.
 *       A field that only looks like a secret is marked as no secret, with the reason, in code.
 *   <li>A URL question's URL is {@code https} (plain {@code http} only to a loopback host, for
 *       development), carries no credentials in its user-info, and is not a {@code javascript:}
 *       or {@code data:} URL.
 * </ul>
 */
public final class ElicitationSafety {
    /**
     * What a form field must not name. A term of several words matches those words in a row, or
     * written as one word ({@code cardnumber}); a term's last word may be plural.
     */
    public static final List<String> SENSITIVE_TERMS = List.of(
            "password",
            "passwd",
            "passphrase",
            "PIN",
            "secret",
            "token",
            "API key",
            "private key",
            "card number",
            "CVV",
            "CVC",
            "security code",
            "IBAN",
            "account number",
            "social security",
            "SSN",
            "tax number");

    /** Terms that no other English word contains: they match inside a word too ({@code newpassword}). */
    private static final List<String> INSIDE_WORDS = List.of("password", "passwd", "passphrase");

    /** Word boundaries inside a word: camelCase, an acronym before a capitalised word, letters and digits. */
    private static final Pattern INNER_BOUNDARY = Pattern.compile("(?<=[\\p{Ll}\\p{N}])(?=\\p{Lu})"
            + "|(?<=\\p{Lu})(?=\\p{Lu}\\p{Ll})"
            + "|(?<=\\p{L})(?=\\p{N})|(?<=\\p{N})(?=\\p{L})");

    private static final Pattern SEPARATORS = Pattern.compile("[^\\p{L}\\p{N}]+");

    /** After the patterns, which folding the terms needs. */
    private static final List<List<String>> TERM_WORDS =
            SENSITIVE_TERMS.stream().map(ElicitationSafety::words).toList();

    private static final String FIX = "a form never asks for passwords, keys, tokens or payment data: send the user to"
            + " a page of yours with Elicitation.url(...) instead; if the field is no secret, mark it with the"
            + " reason (@NotASecret(\"...\") on the record component, FormField.notASecret(\"...\"), or the"
            + " notSecrets of an Elicitation.Form)";

    private ElicitationSafety() {}

    /**
     * Texts checked recently, with what each names. A handler runs again on every round and builds
     * the same form each time; splitting its field names, titles and descriptions into words again
     * was a fifth of the allocations of a 2025-11-25 elicitation flow. Bounded: emptied when full,
     * and only short texts are kept.
     */
    private static final Map<String, Optional<String>> CHECKED = new ConcurrentHashMap<>();

    private static final int CHECKED_MAX = 1024;
    private static final int CHECKED_MAX_LENGTH = 256;

    /** The sensitive term {@code text} names (as listed in {@link #SENSITIVE_TERMS}), if any. */
    public static Optional<String> sensitiveTerm(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        Optional<String> checked = CHECKED.get(text);
        if (checked != null) {
            return checked;
        }
        Optional<String> term = findSensitiveTerm(text);
        if (text.length() <= CHECKED_MAX_LENGTH) {
            if (CHECKED.size() >= CHECKED_MAX) {
                CHECKED.clear();
            }
            CHECKED.put(text, term);
        }
        return term;
    }

    private static Optional<String> findSensitiveTerm(String text) {
        List<String> words = words(text);
        for (int t = 0; t < TERM_WORDS.size(); t++) {
            if (names(words, TERM_WORDS.get(t), INSIDE_WORDS.contains(SENSITIVE_TERMS.get(t)))) {
                return Optional.of(SENSITIVE_TERMS.get(t));
            }
        }
        return Optional.empty();
    }

    /** What is wrong with a URL question's URL, if anything. */
    public static Optional<String> urlProblem(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return Optional.of("is not a valid URL (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("javascript") || scheme.equals("data")) {
            return Optional.of(
                    "is a " + scheme + ": URL; the user must be sent to a page, not to script or inline content");
        }
        if (uri.getRawUserInfo() != null) {
            return Optional.of("carries credentials in its user-info; put no secret in a URL the client sees");
        }
        if (uri.getHost() == null) {
            return Optional.of("has no host; a URL question sends the user to a web page");
        }
        boolean allowed = scheme.equals("https") || (scheme.equals("http") && isLoopback(uri.getHost()));
        return allowed
                ? Optional.empty()
                : Optional.of("is not https (plain http only to a loopback host, for development)");
    }

    /** Refuses a form with a field that asks for a secret, unless the author marked that field as none. */
    static void checkForm(ObjectNode requestedSchema, Map<String, String> notSecrets) {
        JsonNode properties = requestedSchema.path("properties");
        notSecrets.forEach((field, reason) -> {
            if (!properties.has(field)) {
                throw new IllegalArgumentException("the form has no field '" + field + "' to mark as no secret");
            }
            if (reason == null || reason.isBlank()) {
                throw new IllegalArgumentException(
                        "form field '" + field + "' is marked as no secret without a reason");
            }
        });
        properties.properties().forEach(property -> {
            String field = property.getKey();
            if (!notSecrets.containsKey(field)) {
                fieldProblem(field, property.getValue()).ifPresent(problem -> {
                    throw new UnsafeQuestionException(field, "form field '" + field + "' " + problem + "; " + FIX);
                });
            }
        });
    }

    /** Refuses a URL question whose URL breaks the URL rules. */
    static void checkUrl(String url) {
        urlProblem(url).ifPresent(problem -> {
            throw new UnsafeQuestionException(null, "the URL question's URL " + problem);
        });
    }

    private static Optional<String> fieldProblem(String field, JsonNode schema) {
        String[][] parts = {
            {"name", field},
            {"title", schema.path("title").asText(null)},
            {"description", schema.path("description").asText(null)},
            {"format", schema.path("format").asText(null)}
        };
        for (String[] part : parts) {
            Optional<String> term = sensitiveTerm(part[1]);
            if (term.isPresent()) {
                return Optional.of(
                        "asks for a secret: its " + part[0] + " \"" + part[1] + "\" names \"" + term.get() + "\"");
            }
        }
        return Optional.empty();
    }

    private static boolean names(List<String> words, List<String> term, boolean insideWords) {
        int last = term.size() - 1;
        for (int start = 0; start + last < words.size(); start++) {
            boolean match = true;
            for (int i = 0; i <= last && match; i++) {
                String word = words.get(start + i);
                match = word.equals(term.get(i)) || (i == last && word.equals(term.get(i) + "s"));
            }
            if (match) {
                return true;
            }
        }
        // Written as one word: "apikey", "creditcardnumber", "newpassword".
        String joined = String.join("", term);
        return (last > 0 || insideWords) && words.stream().anyMatch(word -> word.contains(joined));
    }

    /** Lower-case words: split at separators, camelCase humps and letter-digit changes. */
    static List<String> words(String text) {
        String split = INNER_BOUNDARY.matcher(text).replaceAll(" ");
        return Arrays.stream(SEPARATORS.split(split.toLowerCase(Locale.ROOT)))
                .filter(word -> !word.isEmpty())
                .toList();
    }

    private static boolean isLoopback(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.equals("[::1]") || h.matches("127(\\.\\d{1,3}){3}");
    }
}
