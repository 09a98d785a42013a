package dev.parley.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Stored events outlive code: the bytes every event type was stored as (the golden fixtures in
 * {@code src/test/resources/golden/events}) must read back, field for field, with today's
 * classes and serializer. A renamed or removed field, a changed type or a lost stable name fails
 * here. Adding a field (with a default) is allowed and keeps the fixtures green.
 */
class GoldenEventFixturesTest {
    private final JournalEventSerializer serializer = new JournalEventSerializer();

    @BeforeAll
    static void writeMissingFixturesWhenAsked() throws Exception {
        if (Boolean.getBoolean("parley.golden.write")) {
            GoldenEventFixtures.writeMissing().forEach(name -> System.out.println("wrote golden fixture " + name));
        }
    }

    @Test
    void everyStoredEventTypeHasAFixture() {
        Set<String> declared = new TreeSet<>();
        for (Class<?> root : List.of(CallEvent.class, TaskEvent.class, SessionEvent.class)) {
            for (Class<?> type : root.getPermittedSubclasses()) {
                Object sample = GoldenEventFixtures.samples().values().stream()
                        .filter(type::isInstance)
                        .findFirst()
                        .orElseThrow(() ->
                                new AssertionError(type.getSimpleName() + " has no sample in GoldenEventFixtures"));
                declared.add(serializer.manifest(sample));
            }
        }
        Set<String> missing = declared.stream()
                .filter(name -> !Files.exists(GoldenEventFixtures.file(name)))
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(
                missing.isEmpty(),
                () -> "no golden fixture for " + missing + "; write it with -Dparley.golden.write=true "
                        + "(see GoldenEventFixtures) and commit it");
    }

    @Test
    void everyFixtureHasASampleAndNoFixtureIsOrphaned() throws Exception {
        Set<String> files;
        try (Stream<Path> listing = Files.list(GoldenEventFixtures.DIRECTORY)) {
            files = listing.map(path -> path.getFileName().toString().replaceFirst("\\.json$", ""))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertEquals(
                new TreeSet<>(GoldenEventFixtures.samples().keySet()),
                files,
                "fixtures and samples must match one to one (a fixture is never deleted: its events are in journals)");
    }

    @Test
    void everyFixtureReadsBackFieldForField() throws Exception {
        List<String> problems = new ArrayList<>();
        for (String fixture : GoldenEventFixtures.samples().keySet()) {
            Path file = GoldenEventFixtures.file(fixture);
            if (!Files.exists(file)) {
                continue; // reported by everyStoredEventTypeHasAFixture
            }
            byte[] stored = Files.readAllBytes(file);
            Object event = serializer.fromBinary(stored, GoldenEventFixtures.manifestOf(fixture));
            JsonNode storedJson = Json.MAPPER.readTree(stored);
            JsonNode readJson = Json.tree(event);
            // Every stored field must survive: a renamed or retyped field reads as absent or different.
            for (Map.Entry<String, JsonNode> field : storedJson.properties()) {
                JsonNode read = readJson.get(field.getKey());
                if (read == null || !Json.canonical(field.getValue()).equals(Json.canonical(read))) {
                    problems.add(
                            fixture + "." + field.getKey() + ": stored " + field.getValue() + ", read back " + read);
                }
            }
            // And what it reads as must be stored again under the same name and read back the same.
            String manifest = serializer.manifest(event);
            assertEquals(GoldenEventFixtures.manifestOf(fixture), manifest, fixture);
            Object again = serializer.fromBinary(serializer.toBinary(event), manifest);
            assertEquals(Json.canonical(readJson), Json.canonical(Json.tree(again)), fixture);
        }
        assertTrue(problems.isEmpty(), () -> "stored events no longer read back:\n" + String.join("\n", problems));
    }

    @Test
    void todaysSamplesStillSerializeToTheStoredFields() throws Exception {
        // A sample is the event as it is written today: its stored fields must be the fixture's (plus
        // fields added since, which old rows lack and read with their defaults).
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, JournalEvent> sample :
                GoldenEventFixtures.samples().entrySet()) {
            Path file = GoldenEventFixtures.file(sample.getKey());
            if (!Files.exists(file)) {
                continue;
            }
            JsonNode stored = Json.MAPPER.readTree(Files.readAllBytes(file));
            JsonNode written = Json.MAPPER.readTree(serializer.toBinary(sample.getValue()));
            Set<String> lost = new TreeSet<>();
            stored.fieldNames().forEachRemaining(name -> {
                if (!written.has(name) || !Json.canonical(stored.get(name)).equals(Json.canonical(written.get(name)))) {
                    lost.add(name);
                }
            });
            if (!lost.isEmpty()) {
                problems.add(sample.getKey() + ": " + lost);
            }
        }
        assertTrue(
                problems.isEmpty(),
                () -> "today's serializer writes these stored fields differently: " + problems
                        + " (fields are only ever added, never renamed; see CallEvent)");
    }
}
