package dev.parley.examples;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** README code comes from compiled, tested sources: each marked snippet must appear verbatim. */
class ReadmeSnippetTest {
  private static final Pattern SNIPPET =
      Pattern.compile("// snippet: (\\S+)\\n(.*?)\\n\\s*// end snippet", Pattern.DOTALL);

  @Test
  void readmeShowsEverySnippetExactlyAsCompiled() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    String source = Files.readString(Path.of("src/main/java/dev/parley/examples/DemoTools.java"));
    Matcher matcher = SNIPPET.matcher(source);
    int found = 0;
    while (matcher.find()) {
      found++;
      String unindented = matcher.group(2).lines()
          .map(line -> line.startsWith("  ") ? line.substring(2) : line)
          .collect(Collectors.joining("\n"));
      assertTrue(readme.contains(unindented),
          "README.md must contain snippet '" + matcher.group(1) + "' as it is in DemoTools.java");
    }
    assertTrue(found > 0, "DemoTools.java has no marked snippet");
  }

  @Test
  void readmeShowsTheAuthDemoConfigurationAsShipped() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    String conf = Files.readString(Path.of("src/main/resources/auth-demo.conf"));
    assertTrue(readme.contains(conf), "README.md must contain src/main/resources/auth-demo.conf verbatim");
  }
}
