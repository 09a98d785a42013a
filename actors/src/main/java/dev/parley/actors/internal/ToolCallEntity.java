package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.actors.internal.ops.CallLog;
import dev.parley.actors.internal.ops.CallMdc;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.CallEvent.AnswersReceived;
import dev.parley.persistence.internal.CallEvent.CallBecameTask;
import dev.parley.persistence.internal.CallEvent.CallCompleted;
import dev.parley.persistence.internal.CallEvent.CallFailed;
import dev.parley.persistence.internal.CallEvent.CallStarted;
import dev.parley.persistence.internal.CallEvent.InputRequested;
import dev.parley.persistence.internal.CallEvent.StepRecorded;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.Principal;
import dev.parley.runtime.internal.engine.AnswerValidation;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.JournalPersistFailed;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.Recovery;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * One durable multi-round tool call. It exists from the moment a call's first round asked a
 * question; its journal holds the call's arguments, every round's questions and answers, the
 * results of journaled steps and the final outcome. Each round re-runs the handler over the
 * recorded history (off the actor, on the tool executor); a retry of a round that already
 * ended gets the recorded outcome and runs nothing.
 */
public final class ToolCallEntity
        extends EventSourcedBehaviorWithEnforcedReplies<ToolCallEntity.Command, CallEvent, ToolCallEntity.State> {

    public static final EntityTypeKey<Command> ENTITY_TYPE_KEY = EntityTypeKey.create(Command.class, "ToolCall");

    /** The one answer for every state that does not point at a live round (see docs/guide.md, "Answers, retries and requestState"). */
    public static final ErrorObject INVALID_STATE =
            new ErrorObject(ErrorCodes.INVALID_PARAMS, "Invalid or expired requestState", null);

    // --- commands -------------------------------------------------------------------------

    public sealed interface Command extends CborSerializable {}

    /** Makes the call durable after its first round asked {@code questions}. */
    public record Start(
            String method,
            String name,
            ObjectNode arguments,
            String principal,
            Map<String, JsonNode> steps,
            List<AskedQuestion> questions,
            String traceParent,
            ActorRef<Reply> replyTo)
            implements Command {

        /** With the current span (the first request's) as the call's {@code traceParent}: later rounds link to it. */
        public Start(
                String method,
                String name,
                ObjectNode arguments,
                String principal,
                Map<String, JsonNode> steps,
                List<AskedQuestion> questions,
                ActorRef<Reply> replyTo) {
            this(method, name, arguments, principal, steps, questions, ParleyTracing.currentTraceParent(), replyTo);
        }
    }

    /**
     * A retry: answers to the questions of {@code round}. {@code principal} is the binding key;
     * {@code caller} the whole principal of the retry's token, for {@code ctx.principal()}.
     */
    public record SubmitAnswers(
            int round,
            ObjectNode inputResponses,
            String principal,
            Principal caller,
            ObjectNode capabilities,
            boolean mayBecomeTask,
            ActorRef<RoundNotice> notices,
            String traceParent,
            ActorRef<Reply> replyTo)
            implements Command {

        /** With the current span (the retry request's) as {@code traceParent}: the round's span is its child, on any node. */
        public SubmitAnswers(
                int round,
                ObjectNode inputResponses,
                String principal,
                Principal caller,
                ObjectNode capabilities,
                boolean mayBecomeTask,
                ActorRef<RoundNotice> notices,
                ActorRef<Reply> replyTo) {
            this(
                    round,
                    inputResponses,
                    principal,
                    caller,
                    capabilities,
                    mayBecomeTask,
                    notices,
                    ParleyTracing.currentTraceParent(),
                    replyTo);
        }

        /** As above, for a caller known only by its binding key. */
        public SubmitAnswers(
                int round,
                ObjectNode inputResponses,
                String principal,
                ObjectNode capabilities,
                boolean mayBecomeTask,
                ActorRef<RoundNotice> notices,
                ActorRef<Reply> replyTo) {
            this(
                    round,
                    inputResponses,
                    principal,
                    Principal.fromId(principal),
                    capabilities,
                    mayBecomeTask,
                    notices,
                    replyTo);
        }
    }

    /**
     * A 2025-11-25 client's answer to one server→client request: the answer to {@code key} if it is
     * one of the open questions (of whichever round is open now), ignored otherwise.
     */
    public record AnswerQuestion(
            String key, JsonNode answer, String principal, ObjectNode capabilities, ActorRef<Reply> replyTo)
            implements Command {}

    /**
     * Replies with what {@code round} ended with, as soon as it has: at once when it already did,
     * else when its answers have been received and the handler re-run. For a 2025-11-25 request
     * stream, which waits while its answers arrive as separate requests, possibly on other nodes.
     * {@code notices} (null: none wanted) gets the progress and log notifications of the run an
     * answer to this round starts, on whichever node the answer arrived.
     */
    public record AwaitRound(int round, String principal, ActorRef<RoundNotice> notices, ActorRef<Reply> replyTo)
            implements Command {

        public AwaitRound(int round, String principal, ActorRef<Reply> replyTo) {
            this(round, principal, null, replyTo);
        }
    }

    /**
     * A 2025-11-25 first round ended (completed with {@code result}, or failed with {@code error})
     * while no connection was there to take its response: the outcome is journaled, so the client's
     * resuming stream gets it from here. A first round that asked is journaled by {@link Start}.
     */
    public record RecordFirstRound(
            String method,
            String name,
            ObjectNode arguments,
            String principal,
            ObjectNode result,
            ErrorObject error,
            ActorRef<Reply> replyTo)
            implements Command {}

    /** The client stopped waiting for the run of {@code round} (it closed its stream). */
    public record CancelRound(int round) implements Command {}

    /**
     * A progress or log notification of a running round, for the node that holds the client's
     * stream ({@code SubmitAnswers.notices}, null when the client asked for none).
     */
    public record RoundNotice(Double progress, Double total, String message, String level, String logger, JsonNode data)
            implements CborSerializable {}

    /** Sent by a running handler: journal a step result before the handler goes on. */
    public record RecordStep(String name, JsonNode value, ActorRef<Done> replyTo) implements Command {}

    /** A run of the handler ended (local only: it never leaves this node). */
    private record RunFinished(
            int round, Map<String, RecordedAnswer> answers, RunOutcome outcome, ActorRef<Reply> replyTo)
            implements Command, NoSerializationVerificationNeeded {}

    // --- replies --------------------------------------------------------------------------

    public sealed interface Reply extends CborSerializable {}

    /** The call waits for answers to {@code questions}, the questions of {@code round}. */
    public record Asked(int round, List<AskedQuestion> questions) implements Reply {}

    /** The call ended with this wire {@code CallToolResult}. */
    public record Finished(ObjectNode result) implements Reply {}

    /**
     * The round reached {@code ctx.becomeTask()}: the call continues as task {@code taskId}, from
     * this history. {@code TaskHandOver} creates the task (idempotently) and answers with its handle.
     */
    public record HandedOver(String taskId, Map<String, RecordedAnswer> answers, Map<String, JsonNode> steps)
            implements Reply {}

    /** The request is refused (or the call ended) with a JSON-RPC error. */
    public record Rejected(ErrorObject error) implements Reply {}

    // --- state ----------------------------------------------------------------------------

    public sealed interface State {}

    public record Empty() implements State {}

    /**
     * Waiting for the answers of {@code round}. {@code outcomes} holds what every earlier round
     * ended with, so a repeated retry gets the same answer.
     */
    public record Awaiting(
            CallStarted call,
            int round,
            List<AskedQuestion> questions,
            CallHistory history,
            Map<Integer, Reply> outcomes)
            implements State {}

    public record Ended(CallStarted call, int round, Reply outcome, Map<Integer, Reply> outcomes) implements State {}

    // --- behaviour ------------------------------------------------------------------------

    private final ActorContext<Command> context;
    private final ActorRef<ClusterSharding.ShardCommand> shard;
    private final McpServerDefinition server;
    private final ReplayEngine engine;
    private final Executor toolExecutor;
    private final Duration stepTimeout;
    /** Streams waiting for a round's outcome ({@link AwaitRound}); not journaled: they ask again. */
    private final Map<Integer, List<ActorRef<Reply>>> waiting = new HashMap<>();
    /** Where the notifications of a run an answer starts go: the latest waiting stream's relay, per round. */
    private final Map<Integer, ActorRef<RoundNotice>> noticesOfRound = new HashMap<>();

    private static final int MAX_WAITING_PER_ROUND = 16;
    /** Round 0 on a call not journaled yet: only the principal its first round runs for gets the outcome. */
    private final List<AwaitRound> waitingForFirstRound = new java.util.ArrayList<>();
    /** The run in flight, if any; not journaled: a crash simply ends the run. */
    private Cancellation running;

    private int runningRound;

    private ToolCallEntity(
            ActorContext<Command> context,
            PersistenceId persistenceId,
            ActorRef<ClusterSharding.ShardCommand> shard,
            McpServerDefinition server,
            ReplayEngine engine,
            Executor toolExecutor,
            Duration stepTimeout) {
        super(persistenceId, JournalAvailability.get(context.getSystem()).restartStrategy()); // issue 17
        this.context = context;
        this.shard = shard;
        this.server = server;
        this.engine = engine;
        this.toolExecutor = toolExecutor;
        this.stepTimeout = stepTimeout;
    }

    /** @param shard the entity's shard, asked to passivate the call once it ended */
    public static Behavior<Command> create(
            String callId,
            ActorRef<ClusterSharding.ShardCommand> shard,
            McpServerDefinition server,
            ReplayEngine engine,
            Executor toolExecutor,
            Duration stepTimeout) {
        return Behaviors.setup(context -> {
            ParleyMetrics.get(context.getSystem()).entityStarted(ENTITY_TYPE_KEY.name());
            return new ToolCallEntity(
                    context,
                    PersistenceId.of(ENTITY_TYPE_KEY.name(), callId),
                    shard,
                    server,
                    engine,
                    toolExecutor,
                    stepTimeout);
        });
    }

    /** Live-entity gauge: the call left memory (passivated, or its node stopped). */
    @Override
    public SignalHandler<State> signalHandler() {
        return newSignalHandlerBuilder()
                .onSignal(
                        PostStop.instance(),
                        state -> ParleyMetrics.get(context.getSystem()).entityStopped(ENTITY_TYPE_KEY.name()))
                // issue 17: the entity restarts with backoff; the node checks whether the journal went away
                .onSignal(
                        JournalPersistFailed.class,
                        (state, signal) -> JournalAvailability.get(context.getSystem())
                                .journalFailed(persistenceId().id(), signal.getFailure()))
                .onSignal(
                        RecoveryFailed.class,
                        (state, signal) -> JournalAvailability.get(context.getSystem())
                                .journalFailed(persistenceId().id(), signal.getFailure()))
                .build();
    }

    /** Parley saves no snapshots: recovery skips the snapshot store's query. */
    @Override
    public Recovery recovery() {
        return Recovery.withSnapshotSelectionCriteria(SnapshotSelectionCriteria.none());
    }

    @Override
    public State emptyState() {
        return new Empty();
    }

    @Override
    public CommandHandlerWithReply<Command, CallEvent, State> commandHandler() {
        var builder = newCommandHandlerWithReplyBuilder();
        builder.forStateType(Empty.class)
                .onCommand(Start.class, this::onStart)
                .onCommand(
                        SubmitAnswers.class,
                        (state, command) -> Effect().reply(command.replyTo(), new Rejected(INVALID_STATE)))
                .onCommand(RecordStep.class, (state, command) -> Effect().reply(command.replyTo(), Done.getInstance()))
                .onCommand(RunFinished.class, (state, command) -> Effect().noReply())
                .onCommand(CancelRound.class, (state, command) -> Effect().noReply())
                .onCommand(
                        AnswerQuestion.class,
                        (state, command) -> Effect().reply(command.replyTo(), new Rejected(INVALID_STATE)))
                .onCommand(AwaitRound.class, this::onAwaitFirstRound)
                .onCommand(RecordFirstRound.class, this::onRecordFirstRound);
        builder.forStateType(Awaiting.class)
                .onCommand(
                        Start.class,
                        (state, command) ->
                                Effect().reply(command.replyTo(), new Asked(state.round(), state.questions())))
                .onCommand(SubmitAnswers.class, this::onSubmitAnswers)
                .onCommand(RecordStep.class, this::onRecordStep)
                .onCommand(RunFinished.class, this::onRunFinished)
                .onCommand(CancelRound.class, this::onCancelRound)
                .onCommand(AnswerQuestion.class, this::onAnswerQuestion)
                .onCommand(AwaitRound.class, this::onAwaitRound)
                .onCommand(
                        RecordFirstRound.class,
                        (state, command) ->
                                Effect().reply(command.replyTo(), firstRoundOutcome(state.call(), state.outcomes())));
        builder.forStateType(Ended.class)
                .onCommand(Start.class, (state, command) -> Effect().reply(command.replyTo(), state.outcome()))
                .onCommand(SubmitAnswers.class, this::onSubmitAnswersAfterEnd)
                .onCommand(RecordStep.class, (state, command) -> Effect().reply(command.replyTo(), Done.getInstance()))
                .onCommand(RunFinished.class, (state, command) -> Effect().noReply())
                .onCommand(CancelRound.class, (state, command) -> Effect().noReply())
                .onCommand(
                        AnswerQuestion.class,
                        (state, command) -> Effect()
                                .reply(
                                        command.replyTo(),
                                        state.call().principal().equals(command.principal())
                                                ? state.outcome()
                                                : new Rejected(INVALID_STATE)))
                .onCommand(
                        AwaitRound.class,
                        (state, command) -> Effect()
                                .reply(
                                        command.replyTo(),
                                        state.call().principal().equals(command.principal())
                                                ? outcomeOf(state.call(), state.outcomes(), command.round())
                                                : new Rejected(INVALID_STATE)))
                .onCommand(
                        RecordFirstRound.class,
                        (state, command) ->
                                Effect().reply(command.replyTo(), firstRoundOutcome(state.call(), state.outcomes())));
        return builder.build();
    }

    private ReplyEffect<CallEvent, State> onAnswerQuestion(Awaiting state, AnswerQuestion command) {
        if (running != null) {
            return Effect().stash();
        }
        boolean open =
                state.questions().stream().anyMatch(question -> question.key().equals(command.key()));
        if (!open || !state.call().principal().equals(command.principal())) {
            return Effect()
                    .reply(
                            command.replyTo(),
                            open ? new Rejected(INVALID_STATE) : new Asked(state.round(), state.questions()));
        }
        ObjectNode answer = dev.parley.runtime.Json.object();
        answer.set(command.key(), command.answer());
        try {
            AnswerValidation.answersTo(state.questions(), answer);
        } catch (McpException invalid) {
            // No retry will bring a better answer on this path: the waiting stream ends with the error.
            wake(state.round(), new Rejected(invalid.toError()));
            return Effect().reply(command.replyTo(), new Rejected(invalid.toError()));
        }
        return onSubmitAnswers(
                state,
                new SubmitAnswers(
                        state.round(),
                        answer,
                        command.principal(),
                        command.capabilities(),
                        false,
                        noticesOfRound.get(state.round()),
                        command.replyTo()));
    }

    private ReplyEffect<CallEvent, State> onAwaitRound(Awaiting state, AwaitRound command) {
        if (!state.call().principal().equals(command.principal()) || command.round() > state.round()) {
            return Effect().reply(command.replyTo(), new Rejected(INVALID_STATE));
        }
        if (command.round() < state.round()) {
            return Effect().reply(command.replyTo(), outcomeOf(state.call(), state.outcomes(), command.round()));
        }
        List<ActorRef<Reply>> waiters = waiting.computeIfAbsent(command.round(), round -> new java.util.ArrayList<>());
        if (waiters.size() == MAX_WAITING_PER_ROUND) {
            waiters.remove(0); // the oldest asked long ago and has asked again since
        }
        waiters.add(command.replyTo());
        if (command.notices() != null) {
            noticesOfRound.put(command.round(), command.notices());
        }
        return Effect().noReply();
    }

    /** What {@code round} ended with; round 0 (the first round) ended with round 1's questions unless recorded. */
    private static Reply outcomeOf(CallStarted call, Map<Integer, Reply> outcomes, int round) {
        return round == 0
                ? firstRoundOutcome(call, outcomes)
                : outcomes.getOrDefault(round, new Rejected(INVALID_STATE));
    }

    private static Reply firstRoundOutcome(CallStarted call, Map<Integer, Reply> outcomes) {
        return outcomes.getOrDefault(0, new Asked(1, call.questions()));
    }

    /**
     * A resuming 2025 stream asks for the first round's outcome before the call is journaled: its
     * first round still runs on the node that took the request, and {@link Start} or
     * {@link RecordFirstRound} will come. The stream asks again if this entity leaves memory first.
     */
    private ReplyEffect<CallEvent, State> onAwaitFirstRound(Empty state, AwaitRound command) {
        if (command.round() != 0) {
            return Effect().reply(command.replyTo(), new Rejected(INVALID_STATE));
        }
        if (waitingForFirstRound.size() == MAX_WAITING_PER_ROUND) {
            waitingForFirstRound.remove(0);
        }
        waitingForFirstRound.add(command);
        return Effect().noReply();
    }

    private void wakeFirstRound(String principal, Reply outcome) {
        waitingForFirstRound.forEach(waiter ->
                waiter.replyTo().tell(waiter.principal().equals(principal) ? outcome : new Rejected(INVALID_STATE)));
        waitingForFirstRound.clear();
    }

    private ReplyEffect<CallEvent, State> onRecordFirstRound(Empty state, RecordFirstRound command) {
        CallStarted started = new CallStarted(
                command.method(),
                command.name(),
                command.arguments(),
                command.principal(),
                Map.of(),
                List.of(),
                java.time.Instant.now(),
                ParleyTracing.currentTraceParent());
        CallEvent end = command.result() != null
                ? new CallCompleted(0, command.result())
                : new CallFailed(0, command.error() != null ? command.error() : INVALID_STATE);
        return Effect()
                .persist(List.of(started, end))
                .thenRun(s -> wakeFirstRound(command.principal(), ((Ended) s).outcome()))
                .thenRun(this::passivate)
                .thenReply(command.replyTo(), s -> ((Ended) s).outcome());
    }

    /** Tells every stream waiting for {@code round} what it ended with. */
    private void wake(int round, Reply outcome) {
        noticesOfRound.remove(round);
        List<ActorRef<Reply>> waiters = waiting.remove(round);
        if (waiters != null) {
            waiters.forEach(waiter -> waiter.tell(outcome));
        }
    }

    /** A retry after the call ended gets the recorded outcome of its round, and only its own principal does. */
    private ReplyEffect<CallEvent, State> onSubmitAnswersAfterEnd(Ended state, SubmitAnswers command) {
        if (!state.call().principal().equals(command.principal())) {
            return Effect().reply(command.replyTo(), new Rejected(INVALID_STATE));
        }
        return Effect()
                .reply(command.replyTo(), state.outcomes().getOrDefault(command.round(), new Rejected(INVALID_STATE)));
    }

    private ReplyEffect<CallEvent, State> onStart(Empty state, Start command) {
        CallStarted started = new CallStarted(
                command.method(),
                command.name(),
                command.arguments(),
                command.principal(),
                command.steps(),
                command.questions(),
                java.time.Instant.now(),
                command.traceParent());
        return Effect()
                .persist(started)
                .thenRun(s -> wakeFirstRound(command.principal(), new Asked(1, command.questions())))
                .thenReply(command.replyTo(), s -> new Asked(1, command.questions()));
    }

    private ReplyEffect<CallEvent, State> onSubmitAnswers(Awaiting state, SubmitAnswers command) {
        if (running != null) {
            return Effect().stash();
        }
        if (!state.call().principal().equals(command.principal()) || command.round() > state.round()) {
            return Effect().reply(command.replyTo(), new Rejected(INVALID_STATE));
        }
        if (command.round() < state.round()) {
            return Effect()
                    .reply(
                            command.replyTo(),
                            state.outcomes().getOrDefault(command.round(), new Rejected(INVALID_STATE)));
        }
        Map<String, RecordedAnswer> answers;
        try {
            answers = AnswerValidation.answersTo(state.questions(), command.inputResponses());
        } catch (McpException invalid) {
            return Effect().reply(command.replyTo(), new Rejected(invalid.toError()));
        }
        if (answers.isEmpty()) {
            // Nothing new to go on: ask the same questions again, persist nothing.
            return Effect().reply(command.replyTo(), new Asked(state.round(), state.questions()));
        }
        // The answers are journaled together with the round's outcome, in one write: if the node
        // dies during the run, the client's retry brings them again.
        startRun(state, answers, command);
        return Effect().noReply();
    }

    private void startRun(Awaiting state, Map<String, RecordedAnswer> answers, SubmitAnswers command) {
        CallTarget target =
                server.target(state.call().method(), state.call().name()).orElse(null);
        if (target == null) {
            // The server no longer offers what this call was made to (removed at runtime or redeployed).
            command.replyTo()
                    .tell(new Rejected(new ErrorObject(
                            ErrorCodes.INVALID_PARAMS,
                            "No longer available: " + state.call().method() + " "
                                    + state.call().name(),
                            null)));
            return;
        }
        Cancellation cancellation = new Cancellation();
        RunEnvironment environment = new RunEnvironment(
                command.caller(),
                ClientCapabilities.of(command.capabilities()),
                command.notices() == null ? RunEnvironment.RequestSink.NONE : new ForwardingSink(command.notices()),
                cancellation,
                command.mayBecomeTask()
                        ? RunEnvironment.TaskMode.MAY_BECOME_TASK
                        : RunEnvironment.TaskMode.SYNCHRONOUS);
        ActorRef<Command> self = context.getSelf();
        Scheduler scheduler = context.getSystem().scheduler();
        ParleyTracing tracing = ParleyTracing.get(context.getSystem());
        StepJournal journal = new EntityStepJournal<Command>(self, RecordStep::new, stepTimeout, scheduler, tracing);
        CompletableFuture<RunOutcome> run;
        // The round's span and the call's MDC fields go with the handler onto the tool executor (issue 13).
        Span span = tracing.startRound(
                state.call().method(),
                state.call().name(),
                persistenceId().entityId(),
                state.round() + 1,
                command.traceParent(),
                state.call().traceParent());
        try (Scope traced = span.makeCurrent();
                CallMdc.Scope mdc = CallMdc.open(
                        state.call().method(),
                        state.call().name(),
                        persistenceId().entityId(),
                        state.round() + 1,
                        null,
                        command.principal())) {
            // Run off the actor: the step journal blocks on this entity, so the actor must stay free.
            run = CompletableFuture.supplyAsync(
                            () -> engine.run(
                                    target,
                                    state.call().arguments(),
                                    environment,
                                    state.history().withAnswers(answers),
                                    journal),
                            toolExecutor)
                    .thenCompose(stage -> stage);
        } catch (RejectedExecutionException e) {
            span.end();
            command.replyTo().tell(new Rejected(new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Server busy", null)));
            return;
        }
        run.whenComplete((outcome, failure) -> span.end());
        running = cancellation;
        runningRound = state.round();
        context.pipeToSelf(
                run,
                (outcome, failure) -> new RunFinished(
                        state.round(),
                        answers,
                        outcome != null
                                ? outcome
                                : new RunOutcome.Failed(new ErrorObject(
                                        ErrorCodes.INTERNAL_ERROR, "Internal error running the tool", null)),
                        command.replyTo()));
    }

    private ReplyEffect<CallEvent, State> onRecordStep(Awaiting state, RecordStep command) {
        return Effect()
                .persist(new StepRecorded(command.name(), command.value()))
                .thenReply(command.replyTo(), s -> Done.getInstance());
    }

    /** Sends a running round's notifications to the node holding the client's stream. */
    private record ForwardingSink(ActorRef<RoundNotice> notices) implements RunEnvironment.RequestSink {
        @Override
        public void progress(double done, Double total, String message) {
            notices.tell(new RoundNotice(done, total, message, null, null, null));
        }

        @Override
        public void log(dev.parley.runtime.LogLevel level, String logger, JsonNode data) {
            notices.tell(new RoundNotice(null, null, null, level.wireName(), logger, data));
        }
    }

    private ReplyEffect<CallEvent, State> onCancelRound(Awaiting state, CancelRound command) {
        if (running != null && runningRound == command.round()) {
            running.cancel();
        }
        return Effect().noReply();
    }

    private ReplyEffect<CallEvent, State> onRunFinished(Awaiting state, RunFinished command) {
        running = null;
        RunOutcome outcome = command.outcome();
        AnswersReceived answers = new AnswersReceived(command.round(), command.answers());
        if (outcome instanceof RunOutcome.NeedsInput needs) {
            Asked asked = new Asked(command.round() + 1, needs.questions());
            return Effect()
                    .persist(List.of(answers, new InputRequested(command.round(), needs.questions())))
                    .thenRun(s -> wake(command.round(), asked))
                    .thenReply(command.replyTo(), s -> asked)
                    .thenUnstashAll();
        }
        if (outcome instanceof RunOutcome.Completed completed) {
            return Effect()
                    .persist(List.of(answers, new CallCompleted(command.round(), completed.result())))
                    .thenRun(s -> wake(command.round(), new Finished(completed.result())))
                    .thenRun(this::passivate)
                    .thenReply(command.replyTo(), s -> new Finished(completed.result()))
                    .thenUnstashAll();
        }
        if (outcome instanceof RunOutcome.BecameTask) {
            return Effect()
                    .persist(List.of(answers, new CallBecameTask(command.round(), EntityIds.next())))
                    .thenRun(s -> wake(command.round(), ((Ended) s).outcome()))
                    .thenRun(this::passivate)
                    .thenReply(command.replyTo(), s -> ((Ended) s).outcome())
                    .thenUnstashAll();
        }
        ErrorObject failed = ((RunOutcome.Failed) outcome).error();
        // issue 17: a step the journal did not take is answered with the Retry-After the node asks for
        ErrorObject error = failed.code() == ErrorCodes.JOURNAL_UNAVAILABLE
                ? JournalAvailability.get(context.getSystem()).error()
                : failed;
        if (error.code() == ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY
                || error.code() == ErrorCodes.INTERNAL_ERROR
                || error.code() == ErrorCodes.JOURNAL_UNAVAILABLE) {
            // Not the call's fault: the round stays open and a retry may succeed.
            wake(command.round(), new Rejected(error));
            return Effect().reply(command.replyTo(), new Rejected(error)).thenUnstashAll();
        }
        return Effect()
                .persist(List.of(answers, new CallFailed(command.round(), error)))
                .thenRun(s -> wake(command.round(), new Rejected(error)))
                .thenRun(this::passivate)
                .thenReply(command.replyTo(), s -> new Rejected(error))
                .thenUnstashAll();
    }

    /**
     * An ended call leaves memory at once instead of after the idle timeout: under load, ended
     * calls kept for minutes were most of the heap and of every young GC's copying. A late retry
     * of its last round recovers it from the journal and gets the recorded outcome.
     */
    private void passivate(State ended) {
        ParleyMetrics metrics = ParleyMetrics.get(context.getSystem());
        if (ended instanceof Ended call) {
            String outcome = call.outcome() instanceof Finished
                    ? "completed"
                    : call.outcome() instanceof HandedOver ? "became_task" : "failed";
            metrics.callEnded(outcome, call.round() + 1); // round N's answers ended it: N asking rounds, then this one
            CallLog.callEnded(persistenceId().entityId(), call.call(), outcome, call.round() + 1);
        }
        metrics.passivated(ENTITY_TYPE_KEY.name());
        shard.tell(new ClusterSharding.Passivate<>(context.getSelf()));
    }

    @Override
    public EventHandler<State, CallEvent> eventHandler() {
        var builder = newEventHandlerBuilder();
        builder.forStateType(Empty.class)
                .onEvent(
                        CallStarted.class,
                        (state, event) -> new Awaiting(
                                event, 1, event.questions(), new CallHistory(Map.of(), event.steps()), Map.of()));
        builder.forStateType(Awaiting.class)
                .onEvent(
                        AnswersReceived.class,
                        (state, event) -> new Awaiting(
                                state.call(),
                                state.round(),
                                state.questions(),
                                state.history().withAnswers(event.answers()),
                                state.outcomes()))
                .onEvent(
                        StepRecorded.class,
                        (state, event) -> new Awaiting(
                                state.call(),
                                state.round(),
                                state.questions(),
                                state.history().withSteps(Map.of(event.name(), event.value())),
                                state.outcomes()))
                .onEvent(
                        InputRequested.class,
                        (state, event) -> new Awaiting(
                                state.call(),
                                event.round() + 1,
                                event.questions(),
                                state.history(),
                                withOutcome(
                                        state.outcomes(),
                                        event.round(),
                                        new Asked(event.round() + 1, event.questions()))))
                .onEvent(
                        CallCompleted.class,
                        (state, event) -> ended(state, event.round(), new Finished(event.result())))
                .onEvent(CallFailed.class, (state, event) -> ended(state, event.round(), new Rejected(event.error())))
                .onEvent(
                        CallBecameTask.class,
                        (state, event) -> ended(
                                state,
                                event.round(),
                                new HandedOver(
                                        event.taskId(),
                                        state.history().answers(),
                                        state.history().steps())));
        return builder.build();
    }

    private static Ended ended(Awaiting state, int round, Reply outcome) {
        return new Ended(state.call(), round, outcome, withOutcome(state.outcomes(), round, outcome));
    }

    private static Map<Integer, Reply> withOutcome(Map<Integer, Reply> outcomes, int round, Reply outcome) {
        Map<Integer, Reply> copy = new HashMap<>(outcomes);
        copy.put(round, outcome);
        return Map.copyOf(copy);
    }
}
