package dev.parley.actors.internal;

import static dev.parley.actors.internal.TestTools.accept;
import static dev.parley.actors.internal.TestTools.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.TaskSettings;
import dev.parley.actors.internal.TaskEntity.TaskView;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalEventSerializer;
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.SerializationSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Journals written by earlier versions recover into today's entities. Each fixture in
 * {@code src/test/resources/golden/journals} is one call's or task's journal as it was stored
 * (one event a line: its stored type name, a tab, the bytes the serializer wrote). The test reads
 * the bytes back with today's serializer, hands the events to Pekko's {@code PersistenceTestKit}
 * ({@code persistForRecovery}), restarts the real {@link ToolCallEntity} or {@link TaskEntity} on
 * them, and checks the state it recovered and how it answers a client's retry.
 *
 * <p>Fixtures are written once and never overwritten: they are what old journals hold. To add
 * one, add its scenario (a recording and a test), then run (from the repository root)
 * {@code mvn -B -o -pl actors -am test -Dtest=OldJournalRecoveryTest -Dsurefire.failIfNoSpecifiedTests=false -Dparley.golden.write=true}
 * and commit the new file. The tools they were recorded with ({@link TestTools}, {@link TaskTestTools})
 * are part of the fixture: a changed question is asked again, as it would be in production.
 */
class OldJournalRecoveryTest {
    static {
        // Initialise SLF4J before any actor system logs.
        org.slf4j.LoggerFactory.getILoggerFactory();
    }

    private static final Path DIRECTORY = Path.of("src/test/resources/golden/journals");

    private static final Config CONFIG = ConfigFactory.parseString("""
          pekko.actor.serialize-messages = on
          pekko.actor.testkit.typed.single-expect-default = 10s
          # The recorded tasks live for 50 years (see SETTINGS); a 1 s tick lets their expiry timer be set.
          pekko.scheduler.tick-duration = 1s
          """)
            .withFallback(
                    ConfigFactory.parseResources("parley-node.conf").withOnlyPath("pekko.actor.serialization-bindings"))
            .withFallback(EventSourcedBehaviorTestKit.config());

    private static final SerializationSettings SERIALIZATION =
            EventSourcedBehaviorTestKit.enabledSerializationSettings().withVerifyState(false);

    /** Recorded tasks are created with this ttl, so a fixture's task has not expired when it is recovered. */
    private static final TaskSettings SETTINGS = new TaskSettings(
            Duration.ofDays(50 * 365), Duration.ofSeconds(2), Duration.ofHours(1), Duration.ofSeconds(10));

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String ALICE = "alice";
    private static final String FORM = "{\"elicitation\":{}}";
    private static final String WINDOW = "{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}";
    private static final String DATE = "{\"date\":" + accept("{\"date\":\"2026-09-01\"}") + "}";
    private static final String CONFIRM = "{\"confirm\":" + accept("{\"ok\":true}") + "}";
    private static final String TOO_YOUNG = "{\"age\":" + accept("{\"years\":12}") + "}";
    private static final String APPROVE = "{\"approval\":" + accept("{\"ok\":true}") + "}";

    private static ActorTestKit testKit;
    private final JournalEventSerializer serializer = new JournalEventSerializer();
    private QuiescentExecutor toolExecutor;
    private String id;

    @BeforeAll
    static void startSystem() throws Exception {
        testKit = ActorTestKit.create("OldJournalRecoveryTest", CONFIG);
        if (Boolean.getBoolean("parley.golden.write")) {
            new OldJournalRecoveryTest().recordMissingFixtures();
        }
    }

    @AfterAll
    static void stopSystem() {
        testKit.shutdownTestKit();
    }

    @BeforeEach
    void reset() {
        TestTools.resetCounters();
        TaskTestTools.reset();
        toolExecutor = new QuiescentExecutor(4);
        id = UUID.randomUUID().toString();
    }

    @AfterEach
    void stopRuns() {
        TaskTestTools.openGate();
        toolExecutor.shutdownNow();
    }

    // --- calls ---------------------------------------------------------------------------------

    @Test
    void aWaitingCallAcceptsItsAnswerAndCompletes() throws Exception {
        var call = recoveredCall("call-waiting");
        var awaiting = assertInstanceOf(ToolCallEntity.Awaiting.class, call.getState());
        assertEquals(1, awaiting.round());
        assertEquals(List.of("window"), keys(awaiting.questions()));

        var answered = call.<ToolCallEntity.Reply>runCommand(replyTo -> submit(1, WINDOW, replyTo));

        assertEquals("Release of billing scheduled for 2026-08-01T10:00:00Z", text(answered.reply()));
        assertEquals(List.of(CallEvent.AnswersReceived.class, CallEvent.CallCompleted.class), types(answered.events()));
    }

    @Test
    void aRetryOfACompletedRoundGetsTheRecordedResultAndRunsNothing() throws Exception {
        var call = recoveredCall("call-completed");
        CallEvent.CallCompleted recorded =
                (CallEvent.CallCompleted) read("call-completed").get(2);
        assertEquals(
                1, assertInstanceOf(ToolCallEntity.Ended.class, call.getState()).round());

        var retry = call.<ToolCallEntity.Reply>runCommand(replyTo -> submit(1, WINDOW, replyTo));

        assertEquals(new ToolCallEntity.Finished(recorded.result()), retry.reply());
        assertTrue(retry.hasNoEvents(), retry.events()::toString);
        assertEquals(0, TestTools.RELEASE_RUNS.get(), "the handler did not run");
    }

    @Test
    void aCallInItsSecondRoundKeepsItsStepsAndAnswersBothRounds() throws Exception {
        var call = recoveredCall("call-second-round");
        var awaiting = assertInstanceOf(ToolCallEntity.Awaiting.class, call.getState());
        assertEquals(2, awaiting.round());
        assertEquals(List.of("confirm"), keys(awaiting.questions()));

        var first = call.<ToolCallEntity.Reply>runCommand(replyTo -> submit(1, DATE, replyTo));
        var asked = assertInstanceOf(ToolCallEntity.Asked.class, first.reply(), first.reply()::toString);
        assertEquals(2, asked.round(), "a retry of round 1 gets what round 1 ended with");
        assertTrue(first.hasNoEvents());

        var second = call.<ToolCallEntity.Reply>runCommand(replyTo -> submit(2, CONFIRM, replyTo));
        assertEquals("Booked 2026-09-01 with reservation-1 and hold-1", text(second.reply()));
        assertEquals(0, TestTools.RESERVATIONS.get(), "the journaled steps were replayed, not run");
        assertEquals(0, TestTools.HOLDS.get());
    }

    @Test
    void aRetryOfAFailedRoundGetsTheRecordedError() throws Exception {
        var call = recoveredCall("call-failed");
        assertInstanceOf(ToolCallEntity.Ended.class, call.getState());

        var retry = call.<ToolCallEntity.Reply>runCommand(replyTo -> submit(1, TOO_YOUNG, replyTo));

        var rejected = assertInstanceOf(ToolCallEntity.Rejected.class, retry.reply(), retry.reply()::toString);
        assertEquals(TestTools.NOT_ALLOWED, rejected.error().code());
        assertTrue(retry.hasNoEvents());
    }

    // --- tasks ---------------------------------------------------------------------------------

    @Test
    void aTaskWaitingForInputAcceptsItsAnswerAndCompletes() throws Exception {
        var task = recoveredTask("task-input-required");
        TaskView waiting = view(task);
        assertEquals(TaskEntity.Status.INPUT_REQUIRED, waiting.status());
        assertEquals(List.of("approval"), keys(waiting.inputRequests()));

        var updated =
                task.<TaskEntity.Reply>runCommand(replyTo -> new TaskEntity.Update(ALICE, object(APPROVE), replyTo));
        assertInstanceOf(TaskEntity.Acknowledged.class, updated.reply(), updated.reply()::toString);

        TaskView completed = awaitView(task, view -> view.status() == TaskEntity.Status.COMPLETED);
        assertEquals(
                "Approved train ticket",
                completed.result().path("content").path(0).path("text").asText());
    }

    @Test
    void aTaskThatWasWorkingResumesFromItsStepsAndCompletes() throws Exception {
        var task = recoveredTask("task-working");

        TaskView completed = awaitView(task, view -> view.status() == TaskEntity.Status.COMPLETED);

        assertEquals(
                "Report on sales from draft-1 (task)",
                completed.result().path("content").path(0).path("text").asText());
        assertEquals(0, TaskTestTools.PREPARATIONS.get(), "the journaled step was replayed, not run");
        assertEquals(1, TaskTestTools.REPORT_RUNS.get());
    }

    @Test
    void aCompletedTaskShowsItsRecordedResultAndRunsNothing() throws Exception {
        var task = recoveredTask("task-completed");
        TaskEvent.TaskCompleted recorded =
                (TaskEvent.TaskCompleted) read("task-completed").get(3);

        TaskView view = view(task);

        assertEquals(TaskEntity.Status.COMPLETED, view.status());
        assertEquals(recorded.result(), view.result());
        assertEquals(0, TaskTestTools.APPROVAL_RUNS.get());
    }

    // --- entities and fixtures -------------------------------------------------------------------

    private EventSourcedBehaviorTestKit<ToolCallEntity.Command, CallEvent, ToolCallEntity.State> newCall() {
        return EventSourcedBehaviorTestKit.create(
                testKit.system(),
                ToolCallEntity.create(
                        id,
                        testKit.<ClusterSharding.ShardCommand>createTestProbe().ref(),
                        TestTools.SERVER,
                        new ReplayEngine(toolExecutor),
                        toolExecutor,
                        Duration.ofSeconds(10)),
                SERIALIZATION);
    }

    private EventSourcedBehaviorTestKit<TaskEntity.Command, TaskEvent, TaskEntity.State> newTask() {
        return EventSourcedBehaviorTestKit.create(
                testKit.system(),
                TaskEntity.create(
                        id,
                        testKit.<ClusterSharding.ShardCommand>createTestProbe().ref(),
                        SETTINGS,
                        TaskTestTools.SERVER,
                        new ReplayEngine(toolExecutor),
                        toolExecutor,
                        view -> {}),
                SERIALIZATION);
    }

    /** A call entity recovered from the fixture's stored events. */
    private EventSourcedBehaviorTestKit<ToolCallEntity.Command, CallEvent, ToolCallEntity.State> recoveredCall(
            String fixture) throws IOException {
        var call = newCall();
        call.persistenceTestKit()
                .persistForRecovery(persistenceId(ToolCallEntity.ENTITY_TYPE_KEY.name()), read(fixture));
        call.restart();
        return call;
    }

    private EventSourcedBehaviorTestKit<TaskEntity.Command, TaskEvent, TaskEntity.State> recoveredTask(String fixture)
            throws IOException {
        var task = newTask();
        task.persistenceTestKit().persistForRecovery(persistenceId(TaskEntity.ENTITY_TYPE_KEY.name()), read(fixture));
        task.restart();
        return task;
    }

    private String persistenceId(String entityType) {
        return entityType + "|" + id;
    }

    /** The fixture's events, read from their stored bytes by today's serializer. */
    private List<Object> read(String fixture) throws IOException {
        List<Object> events = new ArrayList<>();
        for (String line : Files.readAllLines(DIRECTORY.resolve(fixture + ".journal"), StandardCharsets.UTF_8)) {
            int tab = line.indexOf('\t');
            events.add(serializer.fromBinary(
                    line.substring(tab + 1).getBytes(StandardCharsets.UTF_8), line.substring(0, tab)));
        }
        return events;
    }

    private static ToolCallEntity.SubmitAnswers submit(
            int round, String answers, ActorRef<ToolCallEntity.Reply> replyTo) {
        return new ToolCallEntity.SubmitAnswers(round, object(answers), ALICE, object(FORM), false, null, replyTo);
    }

    private static TaskView view(EventSourcedBehaviorTestKit<TaskEntity.Command, TaskEvent, TaskEntity.State> task) {
        TaskEntity.Reply reply = task.<TaskEntity.Reply>runCommand(replyTo -> new TaskEntity.Get(ALICE, replyTo))
                .reply();
        return assertInstanceOf(TaskView.class, reply, reply::toString);
    }

    private static TaskView awaitView(
            EventSourcedBehaviorTestKit<TaskEntity.Command, TaskEvent, TaskEntity.State> task,
            Predicate<TaskView> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        TaskView last = view(task);
        while (!condition.test(last)) {
            if (System.nanoTime() > deadline) {
                fail("the task still shows " + last + " after " + WAIT);
            }
            Thread.sleep(20);
            last = view(task);
        }
        return last;
    }

    private static String text(ToolCallEntity.Reply reply) {
        var finished = assertInstanceOf(ToolCallEntity.Finished.class, reply, reply::toString);
        return finished.result().path("content").path(0).path("text").asText();
    }

    private static List<String> keys(List<AskedQuestion> questions) {
        return questions.stream().map(AskedQuestion::key).toList();
    }

    private static List<Class<?>> types(List<?> events) {
        return events.stream().<Class<?>>map(Object::getClass).toList();
    }

    // --- recording (only with -Dparley.golden.write=true) ----------------------------------------

    /** Drives today's entities through each scenario and stores the journals that have no fixture yet. */
    private void recordMissingFixtures() throws Exception {
        Map<String, Recording> scenarios = Map.of(
                "call-waiting", () -> recordCall(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS),
                "call-completed", () -> recordCall(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS, WINDOW),
                "call-second-round", () -> recordCall(TestTools.BOOK_VENUE, TestTools.VENUE_ARGS, DATE),
                "call-failed", () -> recordCall(TestTools.CHECK_AGE, "{}", TOO_YOUNG),
                "task-input-required", () -> recordTask("approve_expense", TaskTestTools.EXPENSE_ARGS, null, 2),
                "task-working", () -> recordTask("prepare_report", TaskTestTools.REPORT_ARGS, null, 2),
                "task-completed", () -> recordTask("approve_expense", TaskTestTools.EXPENSE_ARGS, APPROVE, 4));
        Files.createDirectories(DIRECTORY);
        for (var scenario : scenarios.entrySet()) {
            Path file = DIRECTORY.resolve(scenario.getKey() + ".journal");
            if (Files.exists(file)) {
                continue;
            }
            reset();
            try {
                StringBuilder lines = new StringBuilder();
                for (Object event : scenario.getValue().journal()) {
                    lines.append(serializer.manifest(event))
                            .append('\t')
                            .append(new String(serializer.toBinary(event), StandardCharsets.UTF_8))
                            .append('\n');
                }
                // CREATE_NEW: fails rather than overwrite, should the file appear in between.
                Files.writeString(file, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
                System.out.println("wrote old-journal fixture " + file);
            } finally {
                stopRuns();
            }
        }
    }

    private interface Recording {
        List<Object> journal() throws Exception;
    }

    /** A call's first round through the engine, then its retries with {@code answers}, round by round. */
    private List<Object> recordCall(ToolDefinition<?> tool, String arguments, String... answers) throws Exception {
        var first = (RunOutcome.NeedsInput) new ReplayEngine(toolExecutor)
                .run(
                        tool,
                        object(arguments),
                        RunEnvironment.of(ALICE, ClientCapabilities.of(object(FORM))),
                        CallHistory.EMPTY,
                        StepJournal.NONE)
                .toCompletableFuture()
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        var call = newCall();
        call.<ToolCallEntity.Reply>runCommand(replyTo -> new ToolCallEntity.Start(
                "tools/call", tool.name(), object(arguments), ALICE, first.newSteps(), first.questions(), replyTo));
        for (int round = 1; round <= answers.length; round++) {
            int answered = round;
            call.<ToolCallEntity.Reply>runCommand(replyTo -> submit(answered, answers[answered - 1], replyTo));
        }
        return call.persistenceTestKit().persistedInStorage(persistenceId(ToolCallEntity.ENTITY_TYPE_KEY.name()));
    }

    /**
     * A task created with {@code tool}, answered with {@code answer} (if any), recorded once its
     * journal holds {@code events} events. prepare_report is held at its gate after its step, so
     * its journal is that of a task whose node stopped while it worked.
     */
    private List<Object> recordTask(String tool, String arguments, String answer, int events) throws Exception {
        TaskTestTools.closeGate();
        var task = newTask();
        task.<TaskEntity.Reply>runCommand(replyTo -> new TaskEntity.Create(
                "tools/call", tool, object(arguments), ALICE, object(FORM), Map.of(), Map.of(), replyTo));
        String persistenceId = persistenceId(TaskEntity.ENTITY_TYPE_KEY.name());
        if (answer != null) {
            awaitView(task, view -> view.status() == TaskEntity.Status.INPUT_REQUIRED);
            task.<TaskEntity.Reply>runCommand(replyTo -> new TaskEntity.Update(ALICE, object(answer), replyTo));
        }
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (task.persistenceTestKit().persistedInStorage(persistenceId).size() < events) {
            if (System.nanoTime() > deadline) {
                fail(tool + " journaled " + task.persistenceTestKit().persistedInStorage(persistenceId));
            }
            Thread.sleep(20);
        }
        return task.persistenceTestKit().persistedInStorage(persistenceId);
    }
}
