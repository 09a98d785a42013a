package dev.parley.actors.internal;

import static dev.parley.actors.internal.TestTools.accept;
import static dev.parley.actors.internal.TestTools.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.TaskSettings;
import dev.parley.actors.internal.TaskEntity.Acknowledged;
import dev.parley.actors.internal.TaskEntity.Cancel;
import dev.parley.actors.internal.TaskEntity.Command;
import dev.parley.actors.internal.TaskEntity.Create;
import dev.parley.actors.internal.TaskEntity.Empty;
import dev.parley.actors.internal.TaskEntity.Ended;
import dev.parley.actors.internal.TaskEntity.Get;
import dev.parley.actors.internal.TaskEntity.NotFound;
import dev.parley.actors.internal.TaskEntity.Open;
import dev.parley.actors.internal.TaskEntity.Rejected;
import dev.parley.actors.internal.TaskEntity.Reply;
import dev.parley.actors.internal.TaskEntity.State;
import dev.parley.actors.internal.TaskEntity.Status;
import dev.parley.actors.internal.TaskEntity.TaskView;
import dev.parley.actors.internal.TaskEntity.Update;
import dev.parley.actors.internal.TaskEntity.Wake;
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.persistence.internal.TaskEvent.TaskAnswersReceived;
import dev.parley.persistence.internal.TaskEvent.TaskCancelled;
import dev.parley.persistence.internal.TaskEvent.TaskCompleted;
import dev.parley.persistence.internal.TaskEvent.TaskCreated;
import dev.parley.persistence.internal.TaskEvent.TaskFailed;
import dev.parley.persistence.internal.TaskEvent.TaskInputRequested;
import dev.parley.persistence.internal.TaskEvent.TaskStepRecorded;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.testing.SpecSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.SerializationSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One task ({@code io.modelcontextprotocol/tasks}, spec §3; DESIGN.md §6), driven through Pekko's
 * EventSourcedBehaviorTestKit: every status transition, what each command persists and replies,
 * what a recovery in each status keeps, who may see the task, and when it ends by itself.
 *
 * <p>The entity replies to {@code Create} once {@code TaskCreated} is persisted and then runs the
 * handler in the background, so tests wait for a status by polling {@code Get} (bounded by
 * {@link #WAIT}), never by sleeping for a guessed time.
 */
class TaskEntityTest {
    static {
        // Initialise SLF4J before any actor system logs (STACK.md G10).
        org.slf4j.LoggerFactory.getILoggerFactory();
    }

    private static final Config CONFIG = ConfigFactory.parseString("""
          # Every message between actors is serialized and deserialized, as if it crossed nodes.
          pekko.actor.serialize-messages = on
          # Upper bound of every wait for a reply (handlers run on the tool executor).
          pekko.actor.testkit.typed.single-expect-default = 10s
          """)
            // The binding a node uses for commands and replies, taken from the shipped node settings.
            .withFallback(
                    ConfigFactory.parseResources("parley-node.conf").withOnlyPath("pekko.actor.serialization-bindings"))
            .withFallback(EventSourcedBehaviorTestKit.config());

    /** Commands, replies and events must round-trip; State is never snapshotted, so never serialized. */
    private static final SerializationSettings SERIALIZATION =
            EventSourcedBehaviorTestKit.enabledSerializationSettings().withVerifyState(false);

    /** Upper bound of every wait for something the background run does. */
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static final Duration TTL = Duration.ofHours(1);
    /** A task that never expires, and never passivates, while a test runs. */
    private static final TaskSettings SETTINGS =
            new TaskSettings(TTL, Duration.ofSeconds(2), Duration.ofHours(1), Duration.ofSeconds(10));

    private static final ObjectNode FORM = object("{\"elicitation\":{}}");
    private static final String ALICE = "alice";
    private static final String MALLORY = "mallory";

    private static ActorTestKit testKit;

    private final List<TaskView> views = new CopyOnWriteArrayList<>();
    private QuiescentExecutor toolExecutor;
    private ReplayEngine engine;
    private TestProbe<ClusterSharding.ShardCommand> shard;
    private String taskId;
    private EventSourcedBehaviorTestKit<Command, TaskEvent, State> task;

    @BeforeAll
    static void startSystem() {
        testKit = ActorTestKit.create("TaskEntityTest", CONFIG);
    }

    @AfterAll
    static void stopSystem() {
        testKit.shutdownTestKit();
    }

    @BeforeEach
    void newTask() {
        TaskTestTools.reset();
        toolExecutor = new QuiescentExecutor(8);
        engine = new ReplayEngine(toolExecutor);
        shard = testKit.createTestProbe(ClusterSharding.ShardCommand.class);
        task = entity(SETTINGS);
    }

    @AfterEach
    void releaseRuns() {
        TaskTestTools.openGate();
        toolExecutor.shutdownNow();
    }

    // --- helpers -------------------------------------------------------------------------------

    /** A new task entity (with a new id); creating it clears the whole in-memory journal. */
    private EventSourcedBehaviorTestKit<Command, TaskEvent, State> entity(TaskSettings settings) {
        taskId = UUID.randomUUID().toString();
        return EventSourcedBehaviorTestKit.create(
                testKit.system(),
                TaskEntity.create(
                        taskId, shard.ref(), settings, TaskTestTools.SERVER, engine, toolExecutor, views::add),
                SERIALIZATION);
    }

    private CommandResultWithReply<Command, TaskEvent, State, Reply> create(String tool, String arguments) {
        return create(tool, arguments, FORM, Map.of());
    }

    private CommandResultWithReply<Command, TaskEvent, State, Reply> create(
            String tool, String arguments, ObjectNode capabilities, Map<String, JsonNode> steps) {
        return task.<Reply>runCommand(replyTo ->
                new Create("tools/call", tool, object(arguments), ALICE, capabilities, Map.of(), steps, replyTo));
    }

    private Reply get(String principal) {
        return task.<Reply>runCommand(replyTo -> new Get(principal, replyTo)).reply();
    }

    private TaskView view() {
        Reply reply = get(ALICE);
        return assertInstanceOf(TaskView.class, reply, reply::toString);
    }

    /** A task's creation as Alice's tools/call of {@code tool} with a form-capable client journals it. */
    private static TaskCreated created(String tool, String arguments, long ttlMs, Instant at) {
        return new TaskCreated("tools/call", tool, object(arguments), ALICE, FORM, Map.of(), Map.of(), ttlMs, at);
    }

    private CommandResultWithReply<Command, TaskEvent, State, Reply> update(String inputResponses) {
        return update(inputResponses, ALICE);
    }

    private CommandResultWithReply<Command, TaskEvent, State, Reply> update(String inputResponses, String principal) {
        return task.<Reply>runCommand(replyTo -> new Update(principal, object(inputResponses), replyTo));
    }

    private CommandResultWithReply<Command, TaskEvent, State, Reply> cancel(String principal) {
        return task.<Reply>runCommand(replyTo -> new Cancel(principal, replyTo));
    }

    /** Polls {@code tasks/get} until {@code condition} holds (bounded by {@link #WAIT}). */
    private TaskView awaitView(Predicate<TaskView> condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        TaskView last = view();
        while (!condition.test(last)) {
            if (System.nanoTime() > deadline) {
                fail("no " + what + " within " + WAIT + "; the task shows " + last);
            }
            Thread.sleep(20);
            last = view();
        }
        return last;
    }

    private TaskView awaitStatus(Status status) throws InterruptedException {
        return awaitView(view -> view.status() == status, status.wireName);
    }

    /** Polls the journal itself (no command reaches the entity) until an event of {@code type} is there. */
    private <E extends TaskEvent> E awaitJournaled(Class<E> type) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            for (Object event : journal()) {
                if (type.isInstance(event)) {
                    return type.cast(event);
                }
            }
            if (System.nanoTime() > deadline) {
                fail("no " + type.getSimpleName() + " journaled within " + WAIT + "; the journal holds " + journal());
            }
            Thread.sleep(20);
        }
    }

    /** Waits until no run is on the tool executor, so every run's outcome has reached the entity. */
    private void awaitRunsSettled() throws InterruptedException {
        assertTrue(toolExecutor.awaitQuiet(WAIT), () -> toolExecutor.inFlight() + " run(s) still on the tool executor");
    }

    /** Waits (bounded) until {@code counter} reaches {@code expected}. */
    private static void awaitCount(AtomicInteger counter, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (counter.get() < expected) {
            if (System.nanoTime() > deadline) {
                fail("count stayed at " + counter.get() + ", expected " + expected + " within " + WAIT);
            }
            Thread.sleep(10);
        }
    }

    /**
     * Forgets what the shard was told so far. A new entity that is idle for longer than its idle
     * timeout before its first command (a slow test start) rightly asks to be passivated while it
     * is still empty; such a request has reached the probe before the reply to {@code Create} did.
     */
    private void forgetEarlierShardMessages() {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                shard.receiveMessage(Duration.ofMillis(20));
            } catch (AssertionError nothingMore) {
                return;
            }
        }
    }

    private List<Object> journal() {
        return task.persistenceTestKit().persistedInStorage(TaskEntity.ENTITY_TYPE_KEY.name() + "|" + taskId);
    }

    private List<Class<?>> journalTypes() {
        return types(journal());
    }

    private static List<Class<?>> types(List<?> events) {
        return events.stream().<Class<?>>map(Object::getClass).toList();
    }

    private static List<String> keys(List<AskedQuestion> questions) {
        return questions.stream().map(AskedQuestion::key).toList();
    }

    private List<Status> viewStatuses() {
        return views.stream().map(TaskView::status).toList();
    }

    private static String text(ObjectNode callToolResult) {
        assertNotNull(callToolResult, "a completed task carries the call's result");
        SpecSchema.assertValid("CallToolResult", callToolResult);
        return callToolResult.path("content").path(0).path("text").asText();
    }

    private static void assertNoEvents(CommandResultWithReply<Command, TaskEvent, State, Reply> result) {
        assertTrue(result.hasNoEvents(), () -> "persisted " + result.events());
    }

    private static void assertRejected(int code, Reply reply) {
        Rejected rejected = assertInstanceOf(Rejected.class, reply, reply::toString);
        assertEquals(code, rejected.error().code(), rejected.error().message());
    }

    private static void assertOutstanding(List<String> expectedKeys, TaskView view) {
        assertEquals(Status.INPUT_REQUIRED, view.status(), view::toString);
        assertEquals(expectedKeys, keys(view.inputRequests()));
        view.inputRequests().forEach(question -> SpecSchema.assertValid("InputRequest", Json.tree(question.request())));
    }

    // --- creation and the background run ---------------------------------------------------------

    @Test
    void createPersistsTaskCreatedAndRepliesWorkingWithTheConfiguredTtl() throws Exception {
        var result = create("prepare_report", TaskTestTools.REPORT_ARGS);

        TaskView view = assertInstanceOf(TaskView.class, result.reply(), result.reply()::toString);
        TaskCreated created = result.eventOfType(TaskCreated.class);
        assertEquals(TaskCreated.class, result.events().get(0).getClass(), "TaskCreated is the first event");
        assertEquals("tools/call", created.method());
        assertEquals("prepare_report", created.name());
        assertEquals(object(TaskTestTools.REPORT_ARGS), created.arguments());
        assertEquals(ALICE, created.principal());
        assertEquals(FORM, created.capabilities());
        assertEquals(TTL.toMillis(), created.ttlMs());

        assertEquals(taskId, view.taskId());
        assertEquals(Status.WORKING, view.status());
        assertEquals(created.at(), view.createdAt());
        assertEquals(created.at(), view.lastUpdatedAt());
        assertEquals(TTL.toMillis(), view.ttlMs());
        assertEquals(ALICE, view.principal());
        assertNull(view.result());
        assertNull(view.error());
        assertEquals(List.of(), view.inputRequests());
        awaitStatus(Status.COMPLETED);
    }

    @Test
    void aWorkingTaskRunsItsHandlerInTheBackgroundAsATaskAndCompletes() throws Exception {
        create("prepare_report", TaskTestTools.REPORT_ARGS);

        TaskView completed = awaitStatus(Status.COMPLETED);
        assertEquals(
                "Report on sales from draft-1 (task)",
                text(completed.result()),
                "ctx.isTask() is true in the background run and ctx.becomeTask() is a no-op there");
        assertNull(completed.error());
        assertEquals(List.of(), completed.inputRequests());
        assertFalse(completed.lastUpdatedAt().isBefore(completed.createdAt()));
        assertEquals(List.of(TaskCreated.class, TaskStepRecorded.class, TaskCompleted.class), journalTypes());
        TaskStepRecorded step = (TaskStepRecorded) journal().get(1);
        assertEquals("prepare", step.name());
        assertEquals("draft-1", step.value().asText());
        assertEquals(1, TaskTestTools.PREPARATIONS.get());
        assertEquals(1, TaskTestTools.REPORT_RUNS.get());
        assertEquals(List.of(Status.COMPLETED), viewStatuses());
    }

    @Test
    void progressOfTheRunBecomesTheStatusMessageWhileTheTaskWorks() throws Exception {
        TaskTestTools.closeGate();
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        awaitJournaled(TaskStepRecorded.class);

        TaskView working = view();
        assertEquals(Status.WORKING, working.status());
        assertEquals("Drafting the sales report", working.statusMessage());
        var updateWhileWorking = update("{\"prepare\":" + accept("{}") + "}");
        assertInstanceOf(
                Acknowledged.class, updateWhileWorking.reply(), "nothing is outstanding: the update is ignored");
        assertNoEvents(updateWhileWorking);

        TaskTestTools.openGate();
        awaitStatus(Status.COMPLETED);
    }

    @Test
    void aRepeatedCreateRepliesWithTheCurrentViewAndPersistsNothing() throws Exception {
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        TaskView completed = awaitStatus(Status.COMPLETED);

        var again = create("prepare_report", TaskTestTools.REPORT_ARGS);
        assertEquals(completed, again.reply());
        assertNoEvents(again);
        assertEquals(1, TaskTestTools.REPORT_RUNS.get(), "a repeated create does not run the handler again");
    }

    @Test
    void aTaskStartsFromTheStepsItsSynchronousRoundsRecorded() throws Exception {
        create("prepare_report", TaskTestTools.REPORT_ARGS, FORM, Map.of("prepare", TextNode.valueOf("draft-7")));

        assertEquals(
                "Report on sales from draft-7 (task)",
                text(awaitStatus(Status.COMPLETED).result()));
        assertEquals(0, TaskTestTools.PREPARATIONS.get(), "the step the synchronous round ran is not run again");
        assertEquals(List.of(TaskCreated.class, TaskCompleted.class), journalTypes());
    }

    @Test
    void aWakeWhileTheRunIsGoingStartsNoSecondRun() throws Exception {
        TaskTestTools.closeGate();
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        awaitJournaled(TaskStepRecorded.class);

        assertTrue(task.runCommand(new Wake()).hasNoEvents());
        assertTrue(task.runCommand(new Wake()).hasNoEvents());
        TaskTestTools.openGate();
        awaitStatus(Status.COMPLETED);
        awaitRunsSettled();

        assertEquals(1, TaskTestTools.REPORT_RUNS.get());
        assertEquals(List.of(TaskCreated.class, TaskStepRecorded.class, TaskCompleted.class), journalTypes());
    }

    @Test
    void aRunTheToolExecutorRefusedStartsOnTheNextWake() throws Exception {
        toolExecutor.refuse(true);
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        assertEquals(Status.WORKING, view().status());
        assertEquals(0, TaskTestTools.REPORT_RUNS.get());

        toolExecutor.refuse(false);
        task.runCommand(new Wake());
        assertEquals(
                "Report on sales from draft-1 (task)",
                text(awaitStatus(Status.COMPLETED).result()));
        assertEquals(1, TaskTestTools.REPORT_RUNS.get());
    }

    // --- input_required and tasks/update ---------------------------------------------------------

    @Test
    void aQuestionMakesTheTaskInputRequiredAndItsAnswerCompletesIt() throws Exception {
        create("approve_expense", TaskTestTools.EXPENSE_ARGS);

        TaskView waiting = awaitStatus(Status.INPUT_REQUIRED);
        assertOutstanding(List.of("approval"), waiting);
        assertEquals(List.of(TaskCreated.class, TaskInputRequested.class), journalTypes());
        TaskInputRequested requested = (TaskInputRequested) journal().get(1);
        assertEquals(waiting.inputRequests(), requested.questions());
        assertEquals(requested.at(), waiting.lastUpdatedAt());
        assertInstanceOf(Open.class, task.getState());

        var answered = update("{\"approval\":" + accept("{\"ok\":true}") + "}");
        assertInstanceOf(Acknowledged.class, answered.reply(), answered.reply()::toString);
        // The re-run starts once the answers are journaled and may complete before the test kit collects.
        List<Class<?>> afterUpdate = types(answered.events());
        assertEquals(
                List.of(TaskAnswersReceived.class, TaskCompleted.class).subList(0, afterUpdate.size()), afterUpdate);
        TaskAnswersReceived answers = (TaskAnswersReceived) answered.events().get(0);
        assertEquals(Set.of("approval"), answers.answers().keySet());
        assertEquals(
                requested.questions().get(0).fingerprint(),
                answers.answers().get("approval").fingerprint());

        TaskView completed = awaitStatus(Status.COMPLETED);
        assertEquals("Approved train ticket", text(completed.result()));
        assertEquals(
                List.of(TaskCreated.class, TaskInputRequested.class, TaskAnswersReceived.class, TaskCompleted.class),
                journalTypes());
        assertEquals(2, TaskTestTools.APPROVAL_RUNS.get(), "one run asked, one re-run over the answer completed");
    }

    @Test
    void onChangeReceivesAViewAtEveryStatusChange() throws Exception {
        create("approve_expense", TaskTestTools.EXPENSE_ARGS);
        awaitStatus(Status.INPUT_REQUIRED);
        update("{\"approval\":{\"action\":\"decline\"}}");
        TaskView completed = awaitStatus(Status.COMPLETED);
        assertEquals("Not approved: train ticket", text(completed.result()), "a decline is a normal answer");

        assertEquals(List.of(Status.INPUT_REQUIRED, Status.WORKING, Status.COMPLETED), viewStatuses());
        views.forEach(view -> {
            assertEquals(taskId, view.taskId());
            assertEquals(ALICE, view.principal());
        });
        assertEquals(
                List.of("approval"),
                keys(views.get(0).inputRequests()),
                "the input_required view carries its questions");
        assertEquals(List.of(), views.get(1).inputRequests());
        assertEquals(completed, views.get(2));
    }

    @Test
    void aPartialUpdateKeepsTheTaskInputRequiredAndDropsTheAnsweredKey() throws Exception {
        create("plan_meeting", TaskTestTools.MEETING_ARGS);
        assertOutstanding(List.of("date", "attendees"), awaitStatus(Status.INPUT_REQUIRED));

        var partial = update("{\"date\":" + accept("{\"date\":\"2026-09-01\"}") + "}");
        assertInstanceOf(Acknowledged.class, partial.reply(), partial.reply()::toString);
        TaskAnswersReceived answers = partial.eventOfType(TaskAnswersReceived.class);
        assertEquals(Set.of("date"), answers.answers().keySet());
        Open open = partial.stateOfType(Open.class);
        assertEquals(Status.INPUT_REQUIRED, open.status());
        assertOutstanding(List.of("attendees"), view());
        awaitRunsSettled();
        assertEquals(1, TaskTestTools.MEETING_RUNS.get(), "nothing re-runs while a question is outstanding");

        var rest = update("{\"attendees\":" + accept("{\"count\":4}") + "}");
        assertInstanceOf(Acknowledged.class, rest.reply());
        assertEquals(
                Set.of("attendees"),
                rest.eventOfType(TaskAnswersReceived.class).answers().keySet());
        assertEquals(
                "planning on 2026-09-01 for 4",
                text(awaitStatus(Status.COMPLETED).result()));
        assertEquals(
                List.of(Status.INPUT_REQUIRED, Status.INPUT_REQUIRED, Status.WORKING, Status.COMPLETED),
                viewStatuses());
        assertEquals(List.of("attendees"), keys(views.get(1).inputRequests()));
    }

    @Test
    void updatesWithKeysThatAreNotOutstandingAreAcknowledgedAndIgnored() throws Exception {
        create("plan_meeting", TaskTestTools.MEETING_ARGS);
        awaitStatus(Status.INPUT_REQUIRED);

        var neverIssued = update("{\"bogus\":" + accept("{\"x\":1}") + "}");
        assertInstanceOf(Acknowledged.class, neverIssued.reply(), neverIssued.reply()::toString);
        assertNoEvents(neverIssued);
        var empty = update("{}");
        assertInstanceOf(Acknowledged.class, empty.reply());
        assertNoEvents(empty);

        update("{\"date\":" + accept("{\"date\":\"2026-09-01\"}") + "}");
        // The answered key again, even with another (and even an invalid) answer: ignored, not re-recorded.
        var answeredAgain = update("{\"date\":" + accept("{\"date\":\"2027-01-01\"}") + ",\"bogus\":{}}");
        assertInstanceOf(Acknowledged.class, answeredAgain.reply());
        assertNoEvents(answeredAgain);
        var answeredAgainInvalid = update("{\"date\":" + accept("{\"date\":42}") + "}");
        assertInstanceOf(Acknowledged.class, answeredAgainInvalid.reply());
        assertNoEvents(answeredAgainInvalid);
        assertOutstanding(List.of("attendees"), view());

        update("{\"attendees\":" + accept("{\"count\":2}") + "}");
        assertEquals(
                "planning on 2026-09-01 for 2",
                text(awaitStatus(Status.COMPLETED).result()),
                "the first answer to date stands");
        var afterTheEnd = update("{\"attendees\":" + accept("{\"count\":9}") + "}");
        assertInstanceOf(Acknowledged.class, afterTheEnd.reply());
        assertNoEvents(afterTheEnd);
    }

    @Test
    void anAnswerThatDoesNotMatchTheRequestedSchemaIsRejectedWithNothingPersisted() throws Exception {
        create("plan_meeting", TaskTestTools.MEETING_ARGS);
        awaitStatus(Status.INPUT_REQUIRED);
        int journaled = journal().size();

        // A valid answer beside an invalid one is not kept either: the update is refused as a whole.
        var wrongType = update("{\"date\":" + accept("{\"date\":\"2026-09-01\"}") + ",\"attendees\":"
                + accept("{\"count\":\"many\"}") + "}");
        assertRejected(ErrorCodes.INVALID_PARAMS, wrongType.reply());
        assertTrue(
                ((Rejected) wrongType.reply()).error().message().contains("attendees"),
                ((Rejected) wrongType.reply()).error().message());
        assertNoEvents(wrongType);
        assertRejected(
                ErrorCodes.INVALID_PARAMS,
                update("{\"attendees\":" + accept("{\"count\":0}") + "}").reply());
        assertRejected(
                ErrorCodes.INVALID_PARAMS,
                update("{\"attendees\":{\"action\":\"maybe\"}}").reply());
        assertRejected(
                ErrorCodes.INVALID_PARAMS, update("{\"attendees\":\"four\"}").reply());
        assertRejected(
                ErrorCodes.INVALID_PARAMS,
                update("{\"date\":{\"action\":\"accept\"}}").reply());
        assertEquals(journaled, journal().size());
        assertOutstanding(List.of("date", "attendees"), view());

        update("{\"date\":" + accept("{\"date\":\"2026-09-01\"}") + ",\"attendees\":" + accept("{\"count\":3}") + "}");
        assertEquals(
                "planning on 2026-09-01 for 3",
                text(awaitStatus(Status.COMPLETED).result()));
    }

    @Test
    void aQuestionAfterAnAnswerComesUnderANewKeyAndKeysStayUniqueForTheTasksLife() throws Exception {
        create("rename_file", TaskTestTools.RENAME_ARGS);
        assertOutstanding(List.of("name"), awaitStatus(Status.INPUT_REQUIRED));

        update("{\"name\":" + accept("{\"name\":\"summary.txt\"}") + "}");
        TaskView second = awaitView(
                view -> view.status() == Status.INPUT_REQUIRED
                        && keys(view.inputRequests()).equals(List.of("confirm")),
                "the second question");
        assertOutstanding(List.of("confirm"), second);

        update("{\"confirm\":" + accept("{\"ok\":true}") + "}");
        assertEquals(
                "Renamed report.txt to summary.txt",
                text(awaitStatus(Status.COMPLETED).result()));

        List<String> issued = new ArrayList<>();
        journal().stream()
                .filter(TaskInputRequested.class::isInstance)
                .forEach(event -> issued.addAll(keys(((TaskInputRequested) event).questions())));
        assertEquals(List.of("name", "confirm"), issued);
        assertEquals(issued.size(), new HashSet<>(issued).size(), "no key is issued twice");
        assertEquals(
                List.of(Status.INPUT_REQUIRED, Status.WORKING, Status.INPUT_REQUIRED, Status.WORKING, Status.COMPLETED),
                viewStatuses());
    }

    @Test
    void aHandlerThatAsksAnAnsweredKeyAgainFailsTheTaskRatherThanReuseTheKey() throws Exception {
        create("reconsider", "{}");
        assertOutstanding(List.of("choice"), awaitStatus(Status.INPUT_REQUIRED));

        update("{\"choice\":" + accept("{\"pick\":\"a\"}") + "}");
        TaskView failed = awaitStatus(Status.FAILED);
        assertEquals(ErrorCodes.INTERNAL_ERROR, failed.error().code());
        assertTrue(failed.error().message().contains("unique"), failed.error().message());
        assertEquals(List.of(), failed.inputRequests());
        assertEquals(
                1,
                journal().stream().filter(TaskInputRequested.class::isInstance).count(),
                "the answered key was not issued again");
    }

    @Test
    void aQuestionTheCreatingRequestCannotAnswerFailsTheTaskWithMissingCapability() throws Exception {
        create("approve_expense", TaskTestTools.EXPENSE_ARGS, object("{}"), Map.of());

        TaskView failed = awaitStatus(Status.FAILED);
        assertEquals(
                ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, failed.error().code());
        assertTrue(
                failed.error().data().path("requiredCapabilities").has("elicitation"),
                failed.error().toString());
        assertEquals(List.of(TaskCreated.class, TaskFailed.class), journalTypes());
    }

    // --- endings -----------------------------------------------------------------------------------

    @Test
    void aJsonRpcErrorFromTheHandlerFailsTheTask() throws Exception {
        create("delete_account", TaskTestTools.ACCOUNT_ARGS);

        TaskView failed = awaitStatus(Status.FAILED);
        assertEquals(TaskTestTools.NOT_ALLOWED, failed.error().code());
        assertEquals("Account acct-1 cannot be deleted here", failed.error().message());
        assertEquals(failed.error().message(), failed.statusMessage(), "a failed task says why in its status message");
        assertNull(failed.result());
        assertEquals(List.of(TaskCreated.class, TaskFailed.class), journalTypes());
        assertEquals(failed.error(), ((TaskFailed) journal().get(1)).error());
        assertEquals(List.of(Status.FAILED), viewStatuses());
    }

    @Test
    void anIsErrorResultCompletesTheTaskRatherThanFailingIt() throws Exception {
        create("lookup_record", TaskTestTools.LOOKUP_ARGS);

        TaskView completed = awaitStatus(Status.COMPLETED);
        assertEquals("No record rec-404", text(completed.result()));
        assertTrue(
                completed.result().path("isError").asBoolean(),
                completed.result().toString());
        assertNull(completed.error());
        assertEquals(List.of(TaskCreated.class, TaskCompleted.class), journalTypes());
    }

    @Test
    void aTaskForAToolTheServerNoLongerHasFails() throws Exception {
        create("retired_tool", "{}");

        TaskView failed = awaitStatus(Status.FAILED);
        assertEquals(ErrorCodes.INTERNAL_ERROR, failed.error().code());
        assertTrue(
                failed.error().message().contains("retired_tool"),
                failed.error().message());
    }

    // --- tasks/cancel ----------------------------------------------------------------------------

    @Test
    void cancellingAWorkingTaskEndsItCancelledAndTheHandlerSeesTheCancellation() throws Exception {
        create("watch_queue", TaskTestTools.QUEUE_ARGS);
        assertTrue(TaskTestTools.watchStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the handler started");

        var cancelled = cancel(ALICE);
        assertInstanceOf(Acknowledged.class, cancelled.reply(), cancelled.reply()::toString);
        assertEquals(List.of(TaskCancelled.class), types(cancelled.events()));
        assertEquals(Status.CANCELLED, cancelled.stateOfType(Ended.class).status());
        assertTrue(
                TaskTestTools.watchSawCancellation.await(WAIT.toSeconds(), TimeUnit.SECONDS),
                "the running handler saw ctx.isCancelled() (or its interrupt)");
        awaitRunsSettled();

        TaskView view = view();
        assertEquals(Status.CANCELLED, view.status());
        assertNull(view.result(), "the handler's return after the cancel is not the task's result");
        assertNull(view.error());
        assertEquals(List.of(TaskCreated.class, TaskCancelled.class), journalTypes());
        assertEquals(List.of(Status.CANCELLED), viewStatuses());
    }

    @Test
    void cancellingAnInputRequiredTaskEndsItAndLaterAnswersAreIgnored() throws Exception {
        create("approve_expense", TaskTestTools.EXPENSE_ARGS);
        awaitStatus(Status.INPUT_REQUIRED);

        var cancelled = cancel(ALICE);
        assertInstanceOf(Acknowledged.class, cancelled.reply());
        assertEquals(List.of(TaskCancelled.class), types(cancelled.events()));
        TaskView view = view();
        assertEquals(Status.CANCELLED, view.status());
        assertEquals(List.of(), view.inputRequests(), "a cancelled task asks nothing any more");

        var lateAnswer = update("{\"approval\":" + accept("{\"ok\":true}") + "}");
        assertInstanceOf(Acknowledged.class, lateAnswer.reply());
        assertNoEvents(lateAnswer);
        awaitRunsSettled();
        assertEquals(Status.CANCELLED, view().status());
        assertEquals(1, TaskTestTools.APPROVAL_RUNS.get());
    }

    @Test
    void cancellingAnEndedTaskIsAcknowledgedAndChangesNothing() throws Exception {
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        TaskView completed = awaitStatus(Status.COMPLETED);
        var cancelCompleted = cancel(ALICE);
        assertInstanceOf(Acknowledged.class, cancelCompleted.reply());
        assertNoEvents(cancelCompleted);
        assertEquals(completed, view());

        task = entity(SETTINGS);
        create("delete_account", TaskTestTools.ACCOUNT_ARGS);
        TaskView failed = awaitStatus(Status.FAILED);
        var cancelFailed = cancel(ALICE);
        assertInstanceOf(Acknowledged.class, cancelFailed.reply());
        assertNoEvents(cancelFailed);
        assertEquals(failed, view());

        task = entity(SETTINGS);
        create("approve_expense", TaskTestTools.EXPENSE_ARGS);
        awaitStatus(Status.INPUT_REQUIRED);
        cancel(ALICE);
        TaskView cancelled = view();
        var cancelAgain = cancel(ALICE);
        assertInstanceOf(Acknowledged.class, cancelAgain.reply());
        assertNoEvents(cancelAgain);
        assertEquals(cancelled, view());
    }

    // --- authorization -----------------------------------------------------------------------------

    @Test
    void toAnotherPrincipalAWaitingTaskDoesNotExist() throws Exception {
        create("approve_expense", TaskTestTools.EXPENSE_ARGS);
        TaskView waiting = awaitStatus(Status.INPUT_REQUIRED);
        int journaled = journal().size();

        assertInstanceOf(NotFound.class, get(MALLORY));
        var foreignUpdate = update("{\"approval\":" + accept("{\"ok\":true}") + "}", MALLORY);
        assertInstanceOf(NotFound.class, foreignUpdate.reply(), foreignUpdate.reply()::toString);
        assertNoEvents(foreignUpdate);
        var foreignCancel = cancel(MALLORY);
        assertInstanceOf(NotFound.class, foreignCancel.reply(), foreignCancel.reply()::toString);
        assertNoEvents(foreignCancel);

        assertEquals(journaled, journal().size());
        assertEquals(waiting, view(), "the owner still sees the task as it was");
    }

    @Test
    void anotherPrincipalCannotCancelAWorkingTask() throws Exception {
        create("watch_queue", TaskTestTools.QUEUE_ARGS);
        assertTrue(TaskTestTools.watchStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS));

        var foreignCancel = cancel(MALLORY);
        assertInstanceOf(NotFound.class, foreignCancel.reply(), foreignCancel.reply()::toString);
        assertNoEvents(foreignCancel);
        assertEquals(Status.WORKING, view().status());
        assertEquals(1, TaskTestTools.watchSawCancellation.getCount(), "the handler was not cancelled");

        cancel(ALICE);
        assertTrue(TaskTestTools.watchSawCancellation.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    }

    @Test
    void toAnotherPrincipalAnEndedTaskDoesNotExist() throws Exception {
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        TaskView completed = awaitStatus(Status.COMPLETED);

        assertInstanceOf(NotFound.class, get(MALLORY));
        var foreignUpdate = update("{}", MALLORY);
        assertInstanceOf(NotFound.class, foreignUpdate.reply());
        assertNoEvents(foreignUpdate);
        var foreignCancel = cancel(MALLORY);
        assertInstanceOf(NotFound.class, foreignCancel.reply());
        assertNoEvents(foreignCancel);
        assertEquals(completed, view());
    }

    @Test
    void anUnknownTaskIsNotFoundForEveryoneAndNothingIsPersisted() {
        assertInstanceOf(NotFound.class, get(ALICE));
        assertInstanceOf(NotFound.class, update("{}").reply());
        assertInstanceOf(NotFound.class, cancel(ALICE).reply());
        assertInstanceOf(Empty.class, task.runCommand(new Wake()).state(), "a wake creates no task");
        assertEquals(List.of(), journal());
        assertEquals(List.of(), views);
    }

    // --- recovery in every status ------------------------------------------------------------------

    @Test
    void aTaskThatWasWorkingResumesByItselfAfterARestartWithoutRepeatingItsStep() throws Exception {
        TaskTestTools.closeGate();
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        awaitJournaled(TaskStepRecorded.class);

        Open working = assertInstanceOf(Open.class, task.restart().state());
        assertEquals(Status.WORKING, working.status());
        assertEquals("draft-1", working.history().steps().get("prepare").asText());
        TaskTestTools.openGate();

        // No command reaches the entity: the recovered task runs on by itself.
        TaskCompleted completed = awaitJournaled(TaskCompleted.class);
        assertEquals("Report on sales from draft-1 (task)", text(completed.result()));
        awaitRunsSettled();
        assertEquals(1, TaskTestTools.PREPARATIONS.get(), "the journaled step did not run again");
        assertEquals(2, TaskTestTools.REPORT_RUNS.get(), "the handler re-ran from the top after the restart");
        assertEquals(List.of(TaskCreated.class, TaskStepRecorded.class, TaskCompleted.class), journalTypes());
        assertEquals(Status.COMPLETED, view().status());
    }

    @Test
    void aStoppedTaskCancelsItsRunSoTheResumedRunAloneRunsTheStep() throws Exception {
        task = entity(new TaskSettings(TTL, Duration.ofSeconds(2), Duration.ofHours(1), Duration.ofMillis(500)));
        TaskTestTools.closeGate();
        create("publish_report", TaskTestTools.REPORT_ARGS);
        awaitCount(TaskTestTools.PUBLISH_RUNS, 1);

        task.restart();
        awaitCount(TaskTestTools.PUBLISH_RUNS, 2);
        TaskTestTools.openGate();
        TaskCompleted completed = awaitJournaled(TaskCompleted.class);
        awaitRunsSettled();

        assertEquals("Published sales as publication-1", text(completed.result()));
        assertEquals(1, TaskTestTools.PUBLICATIONS.get(), "the stopped incarnation's run must not run the step too");
    }

    @Test
    void aWorkingTaskRecoveredFromItsJournalRunsOnFromTheRecordedSteps() throws Exception {
        Instant at = Instant.now();
        task.initialize(
                created("prepare_report", TaskTestTools.REPORT_ARGS, TTL.toMillis(), at),
                new TaskStepRecorded("prepare", TextNode.valueOf("draft-9"), at.plusMillis(5)));

        TaskCompleted completed = awaitJournaled(TaskCompleted.class);
        assertEquals("Report on sales from draft-9 (task)", text(completed.result()));
        assertEquals(0, TaskTestTools.PREPARATIONS.get());
    }

    @Test
    void aTaskWhoseLastAnswersWereJournaledRunsOnWhenItRecovers() throws Exception {
        Instant at = Instant.now();
        AskedQuestion approval = AskedQuestion.of("approval", TaskTestTools.APPROVAL.toInputRequest());
        task.initialize(
                created("approve_expense", TaskTestTools.EXPENSE_ARGS, TTL.toMillis(), at),
                new TaskInputRequested(List.of(approval), at.plusMillis(5)),
                new TaskAnswersReceived(
                        Map.of(
                                "approval",
                                new RecordedAnswer(
                                        approval.fingerprint(),
                                        object("{\"action\":\"accept\",\"content\":{\"ok\":true}}"))),
                        at.plusMillis(10)));

        TaskCompleted completed = awaitJournaled(TaskCompleted.class);
        assertEquals("Approved train ticket", text(completed.result()));
        assertEquals(1, TaskTestTools.APPROVAL_RUNS.get(), "one run, over the recorded answer");
    }

    @Test
    void anInputRequiredTaskKeepsItsQuestionsAcrossARestartAndDoesNotRunAgain() throws Exception {
        create("plan_meeting", TaskTestTools.MEETING_ARGS);
        awaitStatus(Status.INPUT_REQUIRED);
        update("{\"date\":" + accept("{\"date\":\"2026-09-01\"}") + "}");
        TaskView before = view();
        assertOutstanding(List.of("attendees"), before);
        awaitRunsSettled();

        Open recovered = assertInstanceOf(Open.class, task.restart().state());
        assertEquals(Status.INPUT_REQUIRED, recovered.status());
        assertEquals(List.of("attendees"), keys(recovered.questions()));
        assertEquals(Set.of("date", "attendees"), recovered.askedKeys());
        assertEquals(before, view());
        awaitRunsSettled();
        assertEquals(1, TaskTestTools.MEETING_RUNS.get(), "a waiting task does not run on recovery");

        update("{\"attendees\":" + accept("{\"count\":5}") + "}");
        assertEquals(
                "planning on 2026-09-01 for 5",
                text(awaitStatus(Status.COMPLETED).result()));
    }

    @Test
    void aCompletedTaskRecoversWithAnUnchangedView() throws Exception {
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        assertRestartKeeps(awaitStatus(Status.COMPLETED));
        assertEquals(1, TaskTestTools.REPORT_RUNS.get());
    }

    @Test
    void aFailedTaskRecoversWithAnUnchangedView() throws Exception {
        create("delete_account", TaskTestTools.ACCOUNT_ARGS);
        assertRestartKeeps(awaitStatus(Status.FAILED));
    }

    @Test
    void aCancelledTaskRecoversWithAnUnchangedView() throws Exception {
        create("watch_queue", TaskTestTools.QUEUE_ARGS);
        assertTrue(TaskTestTools.watchStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        cancel(ALICE);
        assertTrue(TaskTestTools.watchSawCancellation.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertRestartKeeps(awaitStatus(Status.CANCELLED));
        assertEquals(1, TaskTestTools.WATCH_RUNS.get(), "a cancelled task does not run on recovery");
    }

    private void assertRestartKeeps(TaskView ended) throws InterruptedException {
        awaitRunsSettled();
        int journaled = journal().size();
        Ended recovered = assertInstanceOf(Ended.class, task.restart().state());
        assertEquals(ended.status(), recovered.status());
        assertEquals(ended, view());
        awaitRunsSettled();
        assertEquals(journaled, journal().size(), "recovery persisted nothing");
        assertEquals(ended, view());
    }

    // --- ttl ---------------------------------------------------------------------------------------

    @Test
    void anInputRequiredTaskWhoseTtlRunsOutEndsFailed() throws Exception {
        task = entity(new TaskSettings(
                Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofHours(1), Duration.ofSeconds(10)));
        var created = create("approve_expense", TaskTestTools.EXPENSE_ARGS);
        assertEquals(1_000, ((TaskView) created.reply()).ttlMs());

        TaskView failed = awaitStatus(Status.FAILED);
        assertEquals(ErrorCodes.INTERNAL_ERROR, failed.error().code());
        assertTrue(failed.error().message().contains("expired"), failed.error().message());
        assertEquals(
                List.of(TaskCreated.class, TaskInputRequested.class, TaskFailed.class),
                journalTypes(),
                "the task asked (input_required) before its ttl ran out");
        assertEquals(List.of(Status.INPUT_REQUIRED, Status.FAILED), viewStatuses());

        var lateAnswer = update("{\"approval\":" + accept("{\"ok\":true}") + "}");
        assertInstanceOf(Acknowledged.class, lateAnswer.reply());
        assertNoEvents(lateAnswer);
    }

    @Test
    void aWorkingTaskWhoseTtlRunsOutFailsAndItsHandlerIsCancelled() throws Exception {
        task = entity(new TaskSettings(
                Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofHours(1), Duration.ofSeconds(10)));
        create("watch_queue", TaskTestTools.QUEUE_ARGS);

        TaskView failed = awaitStatus(Status.FAILED);
        assertTrue(failed.error().message().contains("expired"), failed.error().message());
        assertTrue(
                TaskTestTools.watchSawCancellation.await(WAIT.toSeconds(), TimeUnit.SECONDS),
                "the handler of an expired task is cancelled");
        awaitRunsSettled();
        assertEquals(List.of(TaskCreated.class, TaskFailed.class), journalTypes());
        assertEquals(Status.FAILED, view().status());
    }

    @Test
    void aTaskWhoseTtlRanOutWhileNoNodeHeldItFailsWhenItRecovers() throws Exception {
        Instant longAgo = Instant.now().minus(Duration.ofHours(2));
        AskedQuestion approval = AskedQuestion.of("approval", TaskTestTools.APPROVAL.toInputRequest());
        task.initialize(
                created("approve_expense", TaskTestTools.EXPENSE_ARGS, 60_000, longAgo),
                new TaskInputRequested(List.of(approval), longAgo.plusSeconds(1)));

        TaskView failed = awaitStatus(Status.FAILED);
        assertTrue(failed.error().message().contains("expired"), failed.error().message());
        assertEquals(List.of(TaskCreated.class, TaskInputRequested.class, TaskFailed.class), journalTypes());
        assertEquals(0, TaskTestTools.APPROVAL_RUNS.get());
    }

    // --- passivation -------------------------------------------------------------------------------

    @Test
    void anEndedTaskAsksItsShardToPassivateWhenIdleButAWorkingOneNever() throws Exception {
        task = entity(new TaskSettings(TTL, Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofSeconds(10)));
        TaskTestTools.closeGate();
        create("prepare_report", TaskTestTools.REPORT_ARGS);
        forgetEarlierShardMessages();
        awaitJournaled(TaskStepRecorded.class);

        shard.expectNoMessage(Duration.ofMillis(700));
        TaskTestTools.openGate();
        awaitStatus(Status.COMPLETED);

        ClusterSharding.Passivate<?> passivate = shard.expectMessageClass(ClusterSharding.Passivate.class, WAIT);
        assertNotNull(passivate.entity());
    }

    @Test
    void anEndedTaskLeavesMemoryAfterTheShorterEndedIdleTimeoutAndAWaitingOneKeepsTheLongerOne() throws Exception {
        // open tasks an hour, ended ones 200 ms
        task = entity(new TaskSettings(
                TTL, Duration.ofSeconds(2), Duration.ofHours(1), Duration.ofMillis(200), Duration.ofSeconds(10)));
        create("approve_expense", TaskTestTools.EXPENSE_ARGS);
        awaitStatus(Status.INPUT_REQUIRED);
        awaitRunsSettled();
        forgetEarlierShardMessages();
        shard.expectNoMessage(Duration.ofMillis(700)); // waiting for input, not running: idle-timeout holds

        update("{\"approval\":" + accept("{\"ok\":true}") + "}");
        awaitStatus(Status.COMPLETED);
        shard.expectMessageClass(ClusterSharding.Passivate.class, WAIT);
    }

    @Test
    void anEndedTaskReadFromTheJournalLeavesMemoryAfterTheEndedIdleTimeout() throws Exception {
        task = entity(new TaskSettings(
                TTL, Duration.ofSeconds(2), Duration.ofHours(1), Duration.ofMillis(200), Duration.ofSeconds(10)));
        Instant at = Instant.now().minusSeconds(60);
        task.initialize(
                created("prepare_report", TaskTestTools.REPORT_ARGS, TTL.toMillis(), at),
                new TaskCompleted(object("{\"content\":[]}"), at.plusSeconds(1)));
        forgetEarlierShardMessages();

        shard.expectMessageClass(ClusterSharding.Passivate.class, WAIT);
    }

    @Test
    void aCancelledTaskWhoseRunHasStoppedAsksItsShardToPassivateWhenIdle() throws Exception {
        task = entity(new TaskSettings(TTL, Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofSeconds(10)));
        create("watch_queue", TaskTestTools.QUEUE_ARGS);
        forgetEarlierShardMessages();
        assertTrue(TaskTestTools.watchStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        cancel(ALICE);
        assertTrue(TaskTestTools.watchSawCancellation.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        awaitRunsSettled();
        assertEquals(Status.CANCELLED, view().status(), "the run's late outcome has reached the entity");

        shard.expectMessageClass(ClusterSharding.Passivate.class, WAIT);
    }
}
