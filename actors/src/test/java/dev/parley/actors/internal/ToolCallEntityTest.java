package dev.parley.actors.internal;

import static dev.parley.actors.internal.TestTools.accept;
import static dev.parley.actors.internal.TestTools.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.parley.actors.internal.ToolCallEntity.Asked;
import dev.parley.actors.internal.ToolCallEntity.Awaiting;
import dev.parley.actors.internal.ToolCallEntity.Command;
import dev.parley.actors.internal.ToolCallEntity.Empty;
import dev.parley.actors.internal.ToolCallEntity.Ended;
import dev.parley.actors.internal.ToolCallEntity.Finished;
import dev.parley.actors.internal.ToolCallEntity.NotStarted;
import dev.parley.actors.internal.ToolCallEntity.Rejected;
import dev.parley.actors.internal.ToolCallEntity.Reply;
import dev.parley.actors.internal.ToolCallEntity.Start;
import dev.parley.actors.internal.ToolCallEntity.State;
import dev.parley.actors.internal.ToolCallEntity.SubmitAnswers;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.CallEvent.AnswersReceived;
import dev.parley.persistence.internal.CallEvent.CallCompleted;
import dev.parley.persistence.internal.CallEvent.CallStarted;
import dev.parley.persistence.internal.CallEvent.InputRequested;
import dev.parley.persistence.internal.CallEvent.StepRecorded;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.ToolDefinition;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import dev.parley.testing.SpecSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.SerializationSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One durable call, driven command by command through Pekko's EventSourcedBehaviorTestKit: what
 * each command persists, what it replies, and what a recovery keeps (DESIGN.md §3-§5).
 *
 * <p>{@code runCommand(replyTo -> ...)} waits for the reply on a test probe (bounded by
 * {@code pekko.actor.testkit.typed.single-expect-default}) and only then collects the events
 * and the state, so it also covers replies that the entity sends later, after the handler ran
 * on the tool executor and its outcome was persisted.
 */
class ToolCallEntityTest {
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

    /**
     * Commands, replies and events are checked to round-trip through their bound serializers.
     * State is not: ToolCallEntity takes no snapshots, so its State records are never serialized
     * and are deliberately bound to no serializer (binding them would need type information on the
     * polymorphic Reply fields). If snapshots are ever enabled, bind State and turn this back on.
     */
    private static final SerializationSettings SERIALIZATION =
            EventSourcedBehaviorTestKit.enabledSerializationSettings().withVerifyState(false);

    private static final ObjectNode FORM = object("{\"elicitation\":{}}");
    private static final String ALICE = "alice";

    private static ActorTestKit testKit;
    private static ExecutorService toolExecutor;
    private static ReplayEngine engine;

    private String callId;
    private TestProbe<ClusterSharding.ShardCommand> shard;
    private EventSourcedBehaviorTestKit<Command, CallEvent, State> entity;

    @BeforeAll
    static void startSystem() {
        testKit = ActorTestKit.create("ToolCallEntityTest", CONFIG);
        toolExecutor = Executors.newFixedThreadPool(2);
        engine = new ReplayEngine(toolExecutor);
    }

    @AfterAll
    static void stopSystem() {
        testKit.shutdownTestKit();
        toolExecutor.shutdownNow();
    }

    @BeforeEach
    void newEntity() {
        TestTools.resetCounters();
        callId = UUID.randomUUID().toString();
        shard = testKit.createTestProbe(ClusterSharding.ShardCommand.class);
        entity = EventSourcedBehaviorTestKit.create(
                testKit.system(),
                ToolCallEntity.create(
                        callId, shard.ref(), TestTools.SERVER, engine, toolExecutor, Duration.ofSeconds(10)),
                SERIALIZATION);
    }

    // --- helpers -------------------------------------------------------------------------------

    /** The pipeline's first round: the handler runs once, with no history and no journal. */
    private static RunOutcome.NeedsInput firstRound(ToolDefinition<?> tool, String arguments) throws Exception {
        RunOutcome outcome = engine.run(
                        tool,
                        object(arguments),
                        RunEnvironment.of(ALICE, ClientCapabilities.of(FORM)),
                        CallHistory.EMPTY,
                        StepJournal.NONE)
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        return assertInstanceOf(RunOutcome.NeedsInput.class, outcome, outcome::toString);
    }

    private CommandResultWithReply<Command, CallEvent, State, Reply> start(ToolDefinition<?> tool, String arguments)
            throws Exception {
        RunOutcome.NeedsInput first = firstRound(tool, arguments);
        return entity.<Reply>runCommand(replyTo -> new Start(
                "tools/call", tool.name(), object(arguments), ALICE, first.newSteps(), first.questions(), replyTo));
    }

    private CommandResultWithReply<Command, CallEvent, State, Reply> submit(int round, String inputResponses) {
        return submit(round, inputResponses, ALICE);
    }

    private CommandResultWithReply<Command, CallEvent, State, Reply> submit(
            int round, String inputResponses, String principal) {
        return entity.<Reply>runCommand(
                replyTo -> new SubmitAnswers(round, object(inputResponses), principal, FORM, false, null, replyTo));
    }

    private static Asked assertAsked(int round, List<String> keys, Reply reply) {
        Asked asked = assertInstanceOf(Asked.class, reply, reply::toString);
        assertEquals(round, asked.round(), "round");
        assertEquals(keys, asked.questions().stream().map(AskedQuestion::key).toList());
        return asked;
    }

    private static String finishedText(Reply reply) {
        Finished finished = assertInstanceOf(Finished.class, reply, reply::toString);
        SpecSchema.assertValid("CallToolResult", finished.result());
        return finished.result().path("content").path(0).path("text").asText();
    }

    private static void assertRejected(int code, Reply reply) {
        Rejected rejected = assertInstanceOf(Rejected.class, reply, reply::toString);
        assertEquals(code, rejected.error().code(), rejected.error().message());
    }

    private static void assertInvalidState(Reply reply) {
        assertEquals(new Rejected(ToolCallEntity.INVALID_STATE), reply);
    }

    private static List<String> fingerprints(List<AskedQuestion> questions) {
        return questions.stream().map(AskedQuestion::fingerprint).toList();
    }

    private static List<Class<?>> types(List<CallEvent> events) {
        return events.stream().<Class<?>>map(Object::getClass).toList();
    }

    private List<Object> journal() {
        return entity.persistenceTestKit().persistedInStorage(ToolCallEntity.ENTITY_TYPE_KEY.name() + "|" + callId);
    }

    // --- start ---------------------------------------------------------------------------------

    @Test
    void startPersistsCallStartedAndAsksTheFirstQuestions() throws Exception {
        RunOutcome.NeedsInput first = firstRound(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        var result = entity.<Reply>runCommand(replyTo -> new Start(
                "tools/call",
                "schedule_release",
                object(TestTools.RELEASE_ARGS),
                ALICE,
                first.newSteps(),
                first.questions(),
                replyTo));

        Asked asked = assertAsked(1, List.of("window"), result.reply());
        assertEquals(fingerprints(first.questions()), fingerprints(asked.questions()));
        CallStarted started = result.eventOfType(CallStarted.class);
        assertEquals(1, result.events().size());
        assertEquals("tools/call", started.method());
        assertEquals("schedule_release", started.name());
        assertEquals(object(TestTools.RELEASE_ARGS), started.arguments());
        assertEquals(ALICE, started.principal());
        assertEquals(fingerprints(first.questions()), fingerprints(started.questions()));
        Awaiting awaiting = result.stateOfType(Awaiting.class);
        assertEquals(1, awaiting.round());
        assertEquals(Map.of(), awaiting.history().answers());
        assertEquals(
                Set.of("parley.seed"), awaiting.history().steps().keySet(), "the seed of ctx.randomUuid() comes along");
    }

    @Test
    void aFirstRoundRecordedForAResumingStreamWakesItsWaiterAndOutlivesARestart() {
        TestProbe<Reply> waiter = testKit.createTestProbe(Reply.class);
        TestProbe<Reply> intruder = testKit.createTestProbe(Reply.class);
        entity.runCommand(new ToolCallEntity.AwaitRound(0, ALICE, waiter.ref()));
        entity.runCommand(new ToolCallEntity.AwaitRound(0, "mallory", intruder.ref()));
        waiter.expectNoMessage(Duration.ofMillis(200));
        ObjectNode result = object("{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}");
        var recorded = entity.<Reply>runCommand(replyTo ->
                new ToolCallEntity.RecordFirstRound("tools/call", "echo", object("{}"), ALICE, result, null, replyTo));
        assertEquals(List.of(CallStarted.class, CallCompleted.class), types(recorded.events()));
        assertEquals(result, assertInstanceOf(Finished.class, recorded.reply()).result());
        assertEquals(
                result,
                assertInstanceOf(Finished.class, waiter.receiveMessage()).result());
        assertInstanceOf(Rejected.class, intruder.receiveMessage(), "only the call's principal gets its outcome");

        entity.restart();
        var again = entity.<Reply>runCommand(replyTo -> new ToolCallEntity.AwaitRound(0, ALICE, replyTo));
        assertEquals(result, assertInstanceOf(Finished.class, again.reply()).result(), "from the journal");
        assertTrue(again.hasNoEvents());
    }

    @Test
    void theFirstRoundOfACallThatAskedEndedWithItsQuestions() throws Exception {
        TestProbe<Reply> waiter = testKit.createTestProbe(Reply.class);
        entity.runCommand(new ToolCallEntity.AwaitRound(0, ALICE, waiter.ref()));
        start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        Asked woken = assertInstanceOf(Asked.class, waiter.receiveMessage(), "a resume waiting before the start");
        assertEquals(1, woken.round());
        var later = entity.<Reply>runCommand(replyTo -> new ToolCallEntity.AwaitRound(0, ALICE, replyTo));
        assertEquals(woken, later.reply());
    }

    @Test
    void aRepeatedStartRepliesWithTheOpenQuestionsAndPersistsNothing() throws Exception {
        start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        var again = start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        assertAsked(1, List.of("window"), again.reply());
        assertTrue(again.hasNoEvents(), again.events()::toString);
    }

    // --- one round -----------------------------------------------------------------------------

    @Test
    void aValidAnswerPersistsTheAnswersThenTheOutcomeAndFinishes() throws Exception {
        start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        var result = submit(1, "{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}");

        assertEquals("Release of billing scheduled for 2026-08-01T10:00:00Z", finishedText(result.reply()));
        assertEquals(List.of(AnswersReceived.class, CallCompleted.class), types(result.events()));
        AnswersReceived answers = (AnswersReceived) result.events().get(0);
        assertEquals(1, answers.round());
        assertEquals(List.of("window"), List.copyOf(answers.answers().keySet()));
        CallCompleted completed = (CallCompleted) result.events().get(1);
        assertEquals(1, completed.round());
        assertEquals(Json.canonical(completed.result()), Json.canonical(((Finished) result.reply()).result()));
        Ended ended = result.stateOfType(Ended.class);
        assertEquals(1, ended.round());
    }

    @Test
    void aDeclineIsANormalAnswerThatEndsTheCall() throws Exception {
        start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        var result = submit(1, "{\"window\":{\"action\":\"decline\"}}");
        assertEquals("Nothing was scheduled", finishedText(result.reply()));
        assertEquals(List.of(AnswersReceived.class, CallCompleted.class), types(result.events()));
    }

    @Test
    void aRetryOfARoundThatEndedReturnsTheSameResultAndPersistsNothing() throws Exception {
        start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        String answers = "{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}";
        Reply first = submit(1, answers).reply();
        int journaled = journal().size();

        var retry = submit(1, answers);
        assertEquals(first, retry.reply());
        assertTrue(retry.hasNoEvents(), retry.events()::toString);
        // Even different answers to the ended round do not reopen it.
        var other = submit(1, "{\"window\":{\"action\":\"cancel\"}}");
        assertEquals(first, other.reply());
        assertTrue(other.hasNoEvents(), other.events()::toString);
        assertEquals(journaled, journal().size());
        assertEquals(3, journaled, "CallStarted, AnswersReceived, CallCompleted");
    }

    // --- refused answers -------------------------------------------------------------------------

    @Test
    void missingAnswersAskTheSameQuestionsAgainAndPersistNothing() throws Exception {
        Asked asked = (Asked)
                start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS).reply();

        var none = submit(1, "{}");
        Asked again = assertAsked(1, List.of("window"), none.reply());
        assertEquals(fingerprints(asked.questions()), fingerprints(again.questions()));
        assertTrue(none.hasNoEvents(), none.events()::toString);

        var unrelated = submit(1, "{\"not-asked\":" + accept("{\"x\":1}") + "}");
        assertAsked(1, List.of("window"), unrelated.reply());
        assertTrue(unrelated.hasNoEvents(), unrelated.events()::toString);
        assertEquals(1, unrelated.stateOfType(Awaiting.class).round());
    }

    @Test
    void anAnswerThatDoesNotMatchTheRequestedSchemaIsRejectedBeforeAnythingIsPersisted() throws Exception {
        start(TestTools.PLAN_TRIP, TestTools.TRIP_ARGS);
        submit(1, "{\"destination\":" + accept("{\"city\":\"Lisbon\"}") + "}");
        int journaled = journal().size();

        var wrongType = submit(2, "{\"guests\":" + accept("{\"count\":\"many\"}") + "}");
        assertRejected(ErrorCodes.INVALID_PARAMS, wrongType.reply());
        assertTrue(((Rejected) wrongType.reply()).error().message().contains("guests"));
        assertTrue(wrongType.hasNoEvents(), wrongType.events()::toString);

        var belowMinimum = submit(2, "{\"guests\":" + accept("{\"count\":0}") + "}");
        assertRejected(ErrorCodes.INVALID_PARAMS, belowMinimum.reply());
        var badAction = submit(2, "{\"guests\":{\"action\":\"maybe\"}}");
        assertRejected(ErrorCodes.INVALID_PARAMS, badAction.reply());
        var notAnObject = submit(2, "{\"guests\":\"three\"}");
        assertRejected(ErrorCodes.INVALID_PARAMS, notAnObject.reply());
        assertEquals(journaled, journal().size());

        // The round stays open: the client corrects the answer and retries with the same state.
        var corrected = submit(2, "{\"guests\":" + accept("{\"count\":3}") + "}");
        assertEquals("Trip for alice to Lisbon with 3 travellers", finishedText(corrected.reply()));
    }

    @Test
    void aRoundAheadOfTheCallIsRejectedAsInvalidState() throws Exception {
        start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        var result = submit(2, "{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}");
        assertInvalidState(result.reply());
        assertTrue(result.hasNoEvents(), result.events()::toString);
        assertEquals(1, result.stateOfType(Awaiting.class).round());
    }

    @Test
    void anotherPrincipalIsRejectedWhileTheCallWaits() throws Exception {
        start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        var result = submit(1, "{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}", "mallory");
        assertInvalidState(result.reply());
        assertTrue(result.hasNoEvents(), result.events()::toString);
    }

    @Test
    void anotherPrincipalLearnsNothingFromAnEndedCall() throws Exception {
        start(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        String answers = "{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}";
        assertInstanceOf(Finished.class, submit(1, answers).reply());

        var result = submit(1, answers, "mallory");
        assertInvalidState(result.reply());
        assertTrue(result.hasNoEvents(), result.events()::toString);
    }

    @Test
    void submitAnswersToACallThatNeverStartedWritesNothing() {
        // Round 1: the start may have been lost behind its reply, so the pipeline may rebuild it.
        var first = submit(1, "{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}");
        assertEquals(new NotStarted(1), first.reply());
        assertTrue(first.hasNoEvents(), first.events()::toString);
        // A later round cannot belong to a call whose start is lost: only the start is written behind a reply.
        var later = submit(2, "{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}");
        assertInvalidState(later.reply());
        assertTrue(later.hasNoEvents(), later.events()::toString);
        assertInstanceOf(Empty.class, later.state());
    }

    @Test
    void aFirstRoundThatRanNoStepIsAnsweredBeforeItsStartIsWritten() {
        var result = entity.<Reply>runCommand(replyTo -> new Start(
                "tools/call",
                "schedule_release",
                TestTools.object(TestTools.RELEASE_ARGS),
                "alice",
                Map.of(),
                List.of(),
                true,
                null,
                replyTo));
        assertEquals(new Asked(1, List.of()), result.reply());
        assertEquals(List.of(CallStarted.class), types(result.events()), "written all the same");
    }

    // --- several rounds ------------------------------------------------------------------------

    @Test
    void twoRoundsJournalInputRequestedThenCallCompleted() throws Exception {
        start(TestTools.PLAN_TRIP, TestTools.TRIP_ARGS);

        var round1 = submit(1, "{\"destination\":" + accept("{\"city\":\"Lisbon\"}") + "}");
        Asked second = assertAsked(2, List.of("guests"), round1.reply());
        assertEquals(List.of(AnswersReceived.class, InputRequested.class), types(round1.events()));
        InputRequested requested = (InputRequested) round1.events().get(1);
        assertEquals(1, requested.round());
        assertEquals(fingerprints(requested.questions()), fingerprints(second.questions()));
        Awaiting awaiting = round1.stateOfType(Awaiting.class);
        assertEquals(2, awaiting.round());

        var round2 = submit(2, "{\"guests\":" + accept("{\"count\":3}") + "}");
        assertEquals("Trip for alice to Lisbon with 3 travellers", finishedText(round2.reply()));
        assertEquals(List.of(AnswersReceived.class, CallCompleted.class), types(round2.events()));
        assertEquals(2, ((AnswersReceived) round2.events().get(0)).round());
        assertEquals(2, ((CallCompleted) round2.events().get(1)).round());

        assertEquals(
                List.of(
                        CallStarted.class,
                        AnswersReceived.class,
                        InputRequested.class,
                        AnswersReceived.class,
                        CallCompleted.class),
                journal().stream().map(Object::getClass).toList());
    }

    @Test
    void aRetryOfAnEarlierRoundGetsThatRoundsRecordedOutcome() throws Exception {
        start(TestTools.PLAN_TRIP, TestTools.TRIP_ARGS);
        String round1Answers = "{\"destination\":" + accept("{\"city\":\"Lisbon\"}") + "}";
        Asked second = (Asked) submit(1, round1Answers).reply();

        var retryWhileWaiting = submit(1, round1Answers);
        assertEquals(second, retryWhileWaiting.reply());
        assertTrue(retryWhileWaiting.hasNoEvents(), retryWhileWaiting.events()::toString);

        Reply finished =
                submit(2, "{\"guests\":" + accept("{\"count\":3}") + "}").reply();
        var retryAfterEnd = submit(1, round1Answers);
        assertEquals(second, retryAfterEnd.reply());
        assertEquals(finished, submit(2, "{}").reply());
        assertTrue(retryAfterEnd.hasNoEvents(), retryAfterEnd.events()::toString);
    }

    // --- journaled steps -----------------------------------------------------------------------

    @Test
    void aCallThatEndedAsksItsShardToPassivateItAndAWaitingCallDoesNot() throws Exception {
        start(TestTools.CHARGE_THEN_CONFIRM, TestTools.ORDER_ARGS);
        shard.expectNoMessage(Duration.ofMillis(100));

        submit(1, "{\"confirm\":" + accept("{\"ok\":true}") + "}");

        shard.expectMessageClass(ClusterSharding.Passivate.class);
    }

    @Test
    void aStepBeforeTheFirstQuestionRunsOnceAcrossRoundsAndRecovery() throws Exception {
        var started = start(TestTools.CHARGE_THEN_CONFIRM, TestTools.ORDER_ARGS);
        assertEquals(1, TestTools.CHARGES.get(), "the first round ran the step");
        CallStarted event = started.eventOfType(CallStarted.class);
        assertEquals(
                List.of("charge", "parley.seed"),
                List.copyOf(event.steps().keySet()),
                "the first round's step (and the call's seed) are journaled with it");

        var answered = submit(1, "{\"confirm\":" + accept("{\"ok\":true}") + "}");
        assertEquals("Kept receipt-1", finishedText(answered.reply()));
        assertEquals(List.of(AnswersReceived.class, CallCompleted.class), types(answered.events()));
        assertEquals(1, TestTools.CHARGES.get(), "the re-run replayed the step");

        State recovered = entity.restart().state();
        Ended ended = assertInstanceOf(Ended.class, recovered);
        assertEquals(answered.reply(), ended.outcome());
        var retry = submit(1, "{\"confirm\":" + accept("{\"ok\":true}") + "}");
        assertEquals(answered.reply(), retry.reply());
        assertTrue(retry.hasNoEvents(), retry.events()::toString);
        assertEquals(1, TestTools.CHARGES.get(), "a recovery neither re-ran the step nor the handler");
    }

    @Test
    void aStepBetweenRoundsIsJournaledOnceAndSurvivesARecoveryMidCall() throws Exception {
        start(TestTools.BOOK_VENUE, TestTools.VENUE_ARGS);
        assertEquals(1, TestTools.RESERVATIONS.get());

        var round1 = submit(1, "{\"date\":" + accept("{\"date\":\"2026-09-12\"}") + "}");
        assertAsked(2, List.of("confirm"), round1.reply());
        assertEquals(List.of(StepRecorded.class, AnswersReceived.class, InputRequested.class), types(round1.events()));
        StepRecorded hold = (StepRecorded) round1.events().get(0);
        assertEquals("hold", hold.name());
        assertEquals("hold-1", hold.value().asText());
        assertEquals(1, TestTools.HOLDS.get());

        Awaiting recovered = assertInstanceOf(Awaiting.class, entity.restart().state());
        assertEquals(2, recovered.round());
        assertEquals(
                List.of("confirm"),
                recovered.questions().stream().map(AskedQuestion::key).toList());
        assertEquals("reservation-1", recovered.history().steps().get("reserve").asText());
        assertEquals("hold-1", recovered.history().steps().get("hold").asText());

        var round2 = submit(2, "{\"confirm\":" + accept("{\"ok\":true}") + "}");
        assertEquals("Booked 2026-09-12 with reservation-1 and hold-1", finishedText(round2.reply()));
        assertEquals(List.of(AnswersReceived.class, CallCompleted.class), types(round2.events()));
        assertEquals(1, TestTools.RESERVATIONS.get(), "reserve ran once");
        assertEquals(1, TestTools.HOLDS.get(), "hold ran once");
    }

    // --- ends and refusals from the handler ----------------------------------------------------

    @Test
    void aToolErrorEndsTheCallWithCallFailedAndARetryGetsTheSameError() throws Exception {
        start(TestTools.CHECK_AGE, "{}");
        var failed = submit(1, "{\"age\":" + accept("{\"years\":12}") + "}");
        assertRejected(TestTools.NOT_ALLOWED, failed.reply());
        assertEquals(List.of(AnswersReceived.class, CallEvent.CallFailed.class), types(failed.events()));
        assertEquals(1, ((CallEvent.CallFailed) failed.events().get(1)).round());
        Ended ended = failed.stateOfType(Ended.class);
        assertEquals(failed.reply(), ended.outcome());

        var retry = submit(1, "{\"age\":" + accept("{\"years\":40}") + "}");
        assertEquals(failed.reply(), retry.reply(), "an ended call is not re-run with other answers");
        assertTrue(retry.hasNoEvents(), retry.events()::toString);
    }

    @Test
    void aRetryWithoutTheCapabilityTheNextQuestionNeedsIsRefusedAndTheRoundStaysOpen() throws Exception {
        start(TestTools.PLAN_TRIP, TestTools.TRIP_ARGS);
        String answers = "{\"destination\":" + accept("{\"city\":\"Lisbon\"}") + "}";

        var refused = entity.<Reply>runCommand(
                replyTo -> new SubmitAnswers(1, object(answers), ALICE, object("{}"), false, null, replyTo));
        assertRejected(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, refused.reply());
        assertTrue(
                types(refused.events()).stream().noneMatch(type -> type != AnswersReceived.class),
                "no outcome is journaled for a round the client could not finish: " + refused.events());
        assertEquals(1, refused.stateOfType(Awaiting.class).round());

        var retried = submit(1, answers);
        assertAsked(2, List.of("guests"), retried.reply());
    }

    // --- concurrency ---------------------------------------------------------------------------

    @Test
    void concurrentRetriesOfOneRoundRunTheHandlerOnceAndGetTheSameAnswer() throws Exception {
        // Spawned directly (not through runCommand) so that both retries are in the mailbox at once.
        String id = UUID.randomUUID().toString();
        ActorRef<Command> call = testKit.spawn(ToolCallEntity.create(
                id, testKit.system().ignoreRef(), TestTools.SERVER, engine, toolExecutor, Duration.ofSeconds(10)));
        TestProbe<Reply> probe = testKit.createTestProbe(Reply.class);
        RunOutcome.NeedsInput first = firstRound(TestTools.SCHEDULE_RELEASE, TestTools.RELEASE_ARGS);
        call.tell(new Start(
                "tools/call",
                "schedule_release",
                object(TestTools.RELEASE_ARGS),
                ALICE,
                first.newSteps(),
                first.questions(),
                probe.ref()));
        assertAsked(1, List.of("window"), probe.receiveMessage());
        assertEquals(1, TestTools.RELEASE_RUNS.get());

        ObjectNode answers = object("{\"window\":" + accept("{\"window\":\"2026-08-01T10:00:00Z\"}") + "}");
        call.tell(new SubmitAnswers(1, answers, ALICE, FORM, false, null, probe.ref()));
        call.tell(new SubmitAnswers(1, answers, ALICE, FORM, false, null, probe.ref()));
        call.tell(new SubmitAnswers(1, answers, ALICE, FORM, false, null, probe.ref()));
        Reply one = probe.receiveMessage();
        assertEquals("Release of billing scheduled for 2026-08-01T10:00:00Z", finishedText(one));
        assertEquals(one, probe.receiveMessage());
        assertEquals(one, probe.receiveMessage());

        assertEquals(2, TestTools.RELEASE_RUNS.get(), "the first round, then one re-run for all three retries");
        List<Object> journal =
                entity.persistenceTestKit().persistedInStorage(ToolCallEntity.ENTITY_TYPE_KEY.name() + "|" + id);
        assertEquals(
                List.of(CallStarted.class, AnswersReceived.class, CallCompleted.class),
                journal.stream().map(Object::getClass).toList());
        testKit.stop(call);
    }
}
