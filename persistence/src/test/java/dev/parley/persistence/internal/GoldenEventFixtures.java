package dev.parley.persistence.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The golden journal events: one sample of every stored event type (and of each optional field
 * set), and the bytes the serializer wrote for it when the fixture was made. Fixtures are
 * written once and never overwritten: they are what old journals hold.
 *
 * <p>To add the fixture of a new event type, add its sample here and run (from the repository root)
 * {@code mvn -B -o -pl persistence -am test -Dtest=GoldenEventFixturesTest -Dsurefire.failIfNoSpecifiedTests=false -Dparley.golden.write=true}.
 */
final class GoldenEventFixtures {
    static final Path DIRECTORY = Path.of("src/test/resources/golden/events");

    private GoldenEventFixtures() {}

    /** Fixture name (the stable type name, plus a variant suffix) to its sample event. */
    static Map<String, JournalEvent> samples() {
        JournalEventSerializer serializer = new JournalEventSerializer();
        Map<String, JournalEvent> samples = new LinkedHashMap<>();
        List<JournalEvent> all = new ArrayList<>(JournalEventSerializerTest.samples());
        all.addAll(TaskEventSerializationTest.samples());
        all.addAll(sessionSamples());
        for (JournalEvent event : all) {
            samples.putIfAbsent(serializer.manifest(event), event);
        }
        // The optional trace parent, as written by calls and tasks started inside a trace.
        CallEvent.CallStarted started = (CallEvent.CallStarted) samples.get("parley.call.started.v1");
        samples.put(
                "parley.call.started.v1+trace",
                new CallEvent.CallStarted(
                        started.method(),
                        started.name(),
                        started.arguments(),
                        started.principal(),
                        started.steps(),
                        started.questions(),
                        started.startedAt(),
                        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
        TaskEvent.TaskCreated created = (TaskEvent.TaskCreated) samples.get("parley.task.created.v1");
        samples.put(
                "parley.task.created.v1" + "+trace",
                new TaskEvent.TaskCreated(
                        created.method(),
                        created.name(),
                        created.arguments(),
                        created.principal(),
                        created.capabilities(),
                        created.answers(),
                        created.steps(),
                        created.ttlMs(),
                        created.at(),
                        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
        return samples;
    }

    static List<SessionEvent> sessionSamples() {
        Instant at = Instant.parse("2026-07-28T10:15:30.5Z");
        return List.of(
                new SessionEvent.SessionOpened(
                        "https://issuer.example|alice",
                        "2025-11-25",
                        (ObjectNode) Json.parse(
                                "{\"elicitation\":{\"form\":{},\"url\":{}},\"roots\":{\"listChanged\":true}}"),
                        (ObjectNode) Json.parse("{\"name\":\"inspector\",\"version\":\"1.2.0\"}"),
                        at),
                new SessionEvent.LogLevelSet("warning", at.plusMillis(1)),
                new SessionEvent.ResourceSubscribed("test://static/resource/1", at.plusMillis(2)),
                new SessionEvent.ResourceUnsubscribed("test://static/resource/1", at.plusMillis(3)),
                new SessionEvent.SessionEnded(at.plusMillis(4)));
    }

    /** The stable type name a fixture is stored under: its name without the variant suffix. */
    static String manifestOf(String fixture) {
        int variant = fixture.indexOf('+');
        return variant < 0 ? fixture : fixture.substring(0, variant);
    }

    static Path file(String fixture) {
        return DIRECTORY.resolve(fixture + ".json");
    }

    /** Writes the fixtures that are missing; an existing fixture is never touched. Returns those written. */
    static List<String> writeMissing() throws IOException {
        JournalEventSerializer serializer = new JournalEventSerializer();
        Files.createDirectories(DIRECTORY);
        List<String> written = new ArrayList<>();
        for (Map.Entry<String, JournalEvent> sample : samples().entrySet()) {
            Path file = file(sample.getKey());
            if (!Files.exists(file)) {
                // CREATE_NEW: fails rather than overwrite, should the file appear in between.
                Files.write(file, serializer.toBinary(sample.getValue()), StandardOpenOption.CREATE_NEW);
                written.add(sample.getKey());
            }
        }
        return written;
    }

    /** Run from the persistence module's directory. */
    public static void main(String[] args) throws IOException {
        writeMissing().forEach(name -> System.out.println("wrote " + file(name)));
    }
}
