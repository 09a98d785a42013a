package dev.parley.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The build's class-data-sharing archive ({@code target/parley.jsa}, made by {@link CdsTraining})
 * fits the jar and this JVM: with {@code -Xshare:on} a JVM that cannot map it refuses to start, and
 * the classes of Parley, Pekko and pekko-http come from it. A build on JDK 25 or later makes it an AOT
 * cache, which {@code -XX:SharedArchiveFile} maps as well (its classes then come from a static
 * archive, where a dynamic one says "(top)").
 */
class CdsArchiveIT {
    @Test
    @Timeout(120)
    void theJarsClassesComeFromTheArchive() throws IOException, InterruptedException {
        Path jar = DemoProcess.jar();
        List<String> command = new ArrayList<>(List.of(
                DemoProcess.java(),
                "-Xshare:on",
                "-XX:SharedArchiveFile=" + DemoProcess.archive(jar),
                "-Xlog:class+load=info",
                "-jar",
                jar.toAbsolutePath().toString(),
                "migrate",
                "--data",
                Path.of("target", "cds-archive-it").toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));

        assertEquals(0, process.exitValue(), output);
        for (String expected : List.of(
                "dev.parley.examples.Launcher source: shared objects file",
                "dev.parley.persistence.JournalSchema source: shared objects file",
                "journal schema ready")) {
            assertTrue(output.contains(expected), () -> "no '" + expected + "' in:\n" + output);
        }
    }
}
