package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Code in the README and the docs/ pages comes from compiled, tested sources: each marked
 * snippet must appear verbatim in one of them. Markers are comments: {@code // snippet: name} in
 * Java, {@code <!-- snippet: name -->} in XML, {@code # snippet: name} in HOCON, each closed by an
 * {@code end snippet} comment.
 */
class ReadmeSnippetTest {
    private static final Pattern SNIPPET = Pattern.compile(
            "(?://|#|<!--) snippet: (\\S+?)(?: -->)?\\n(.*?)\\n\\s*(?://|#|<!--) end snippet", Pattern.DOTALL);
    /** The starter project (built by CI outside the reactor, against the installed artifacts). */
    private static final Path STARTER = Path.of("../starter");
    /** A fenced code block of a docs page, in a language that is compiled or read by the build. */
    private static final Pattern CODE_BLOCK = Pattern.compile("```(?:java|xml|hocon)\\n(.*?)\\n```", Pattern.DOTALL);

    /** The README followed by every page under docs/. */
    static String allDocs() throws IOException {
        StringBuilder docs = new StringBuilder(Files.readString(Path.of("../README.md")));
        try (Stream<Path> pages = Files.list(Path.of("../docs"))) {
            for (Path page :
                    pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                docs.append('\n').append(Files.readString(page));
            }
        }
        return docs.toString();
    }

    @Test
    void theDocsShowEverySnippetExactlyAsCompiled() throws Exception {
        String docs = allDocs();
        int found = 0;
        // Main sources (the demo) and test sources (the guide's test kit examples).
        try (Stream<Path> sources =
                Stream.concat(Files.walk(Path.of("src/main/java")), Files.walk(Path.of("src/test/java")))) {
            for (Path file :
                    sources.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                Matcher matcher = SNIPPET.matcher(Files.readString(file));
                while (matcher.find()) {
                    found++;
                    String unindented = unindent(matcher.group(2));
                    assertTrue(
                            docs.contains(unindented),
                            "README.md or docs/ must contain snippet '" + matcher.group(1) + "' as it is in "
                                    + file.getFileName());
                }
            }
        }
        assertTrue(found > 0, "the examples have no marked snippet");
    }

    @Test
    void theDocsShowEveryStarterSnippetExactlyAsBuilt() throws Exception {
        String docs = allDocs();
        Map<String, String> snippets = starterSnippets();
        assertTrue(snippets.size() >= 5, "the starter has too few marked snippets: " + snippets.keySet());
        snippets.forEach((name, snippet) -> assertTrue(
                docs.contains(snippet),
                "README.md or docs/ must contain the starter's snippet '" + name + "' as built"));
    }

    @Test
    void everyCodeBlockOfTheGettingStartedPageIsAStarterSnippet() throws Exception {
        String page = Files.readString(Path.of("../docs/getting-started.md"));
        Collection<String> snippets = starterSnippets().values();
        Matcher block = CODE_BLOCK.matcher(page);
        int blocks = 0;
        while (block.find()) {
            blocks++;
            String code = block.group(1);
            assertTrue(
                    snippets.contains(code),
                    "docs/getting-started.md shows code that is no snippet of the starter:\n" + code);
        }
        assertTrue(blocks > 0, "docs/getting-started.md has no code block");
    }

    /** The starter's marked snippets by name: its sources, resources and pom.xml. */
    static Map<String, String> starterSnippets() throws IOException {
        Map<String, String> snippets = new TreeMap<>();
        try (Stream<Path> files =
                Stream.concat(Files.walk(STARTER.resolve("src")), Stream.of(STARTER.resolve("pom.xml")))) {
            for (Path file : files.filter(p -> p.toString().matches(".*\\.(java|xml|conf)"))
                    .sorted()
                    .toList()) {
                Matcher matcher = SNIPPET.matcher(Files.readString(file));
                while (matcher.find()) {
                    snippets.put(matcher.group(1), unindent(matcher.group(2)));
                }
            }
        }
        return snippets;
    }

    @Test
    void theSecurityPageShowsTheAuthDemoConfigurationAsShipped() throws Exception {
        String security = Files.readString(Path.of("../docs/security.md"));
        String conf = Files.readString(Path.of("src/main/resources/auth-demo.conf"));
        assertTrue(security.contains(conf), "docs/security.md must contain src/main/resources/auth-demo.conf verbatim");
    }

    /** The snippet without the indentation its lines share (a class member's, in the source). */
    static String unindent(String snippet) {
        int shared = snippet.lines()
                .filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length())
                .min()
                .orElse(0);
        return snippet.lines()
                .map(line -> line.length() >= shared ? line.substring(shared) : line.strip())
                .collect(Collectors.joining("\n"));
    }
}
