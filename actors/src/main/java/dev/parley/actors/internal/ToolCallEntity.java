package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.parley.actors.internal.journal.EntityPluginConfig;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.actors.internal.ops.CallLog;
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
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.Json;
import dev.parley.runtime.LogLevel;
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
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EffectBuilder;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.Recovery;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * One durable multi-round tool call. It exists from the moment a call's first round asked a
 * question; its journal holds the call's arguments, every round's questions and answers, the
 * results of journaled steps and the final outcome. Each round re-runs the handler over the
 * recorded history (off the actor, through {@link HandlerRunner}); a retry
 * of a round that already ended gets the recorded outcome and runs nothing.
 *
 * <p>Built like Pekko's {@code AccountExampleWithEventHandlersInState}: the state records own
 * their transitions (the event handler only dispatches to them), and each command has a small
 * handler method per state.
 *
 * <p>Why it is long: it is the one owning class of the call entity, with its protocol nested as
 * records (commands, replies, states) and a small handler method per command and state, so the
 * whole state machine reads in one file. What is not the state machine lives beside it:
 * {@link HandlerRunner} runs the handler, {@link RoundWaiters} holds the 2025-11-25 streams that
 * wait for a round, {@code AnswerValidation} checks answers, {@link CallLog} writes the log.
 */
public final class ToolCallEntity
        extends EventSourcedBehaviorWithEnforcedReplies<ToolCallEntity.Command, CallEvent, ToolCallEntity.State> {

    public static final EntityTypeKey<Command> ENTITY_TYPE_KEY = EntityTypeKey.create(Command.class, "ToolCall");

    /** The one answer for every state that does not point at a live round (see docs/guide.md, "Answers, retries and requestState"). */
    public static final ErrorObject INVALID_STATE =
            new ErrorObject(ErrorCodes.INVALID_PARAMS, "Invalid or expired requestState", null);

    // --- commands -------------------------------------------------------------------------

    public sealed interface Command extends CborSerializable {}

    /**
     * Makes the call durable after its first round asked {@code questions}. With
     * {@code replyBeforeWrite} (a first round that ran no step) the reply does not wait for the
     * write; a message without the field (an older node's) waits.
     */
    public record Start(
            String method,
            String name,
            ObjectNode arguments,
            String principal,
            Map<String, JsonNode> steps,
            List<AskedQuestion> questions,
            boolean replyBeforeWrite,
            String traceParent,
            ActorRef<Reply> replyTo)
            implements Command {

        /**
         * Replying once the start is written, with the current span (the first request's) as the
         * call's {@code traceParent}: later rounds link to it.
         */
        public Start(
                String method,
                String name,
                ObjectNode arguments,
                String principal,
                Map<String, JsonNode> steps,
                List<AskedQuestion> questions,
                ActorRef<Reply> replyTo) {
            this(
                    method,
                    name,
                    arguments,
                    principal,
                    steps,
                    questions,
                    false,
                    ParleyTracing.currentTraceParent(),
                    replyTo);
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

    /**
     * Answers to round 1 found no journaled call: the first round's write, made behind its reply,
     * was lost. The caller may rebuild the call ({@link Start}) from the retry and submit again.
     */
    public record NotStarted(int round) implements Reply {}

    // --- state ----------------------------------------------------------------------------

    public sealed interface State {}

    /** Nothing is journaled under this call id (yet). */
    public record Empty() implements State {
        Awaiting started(CallStarted event) {
            return new Awaiting(event, 1, event.questions(), new CallHistory(Map.of(), event.steps()), Map.of());
        }
    }

    /** A call whose start is journaled: it knows whose it is and what each ended round ended with. */
    public sealed interface Journaled extends State {
        CallStarted call();

        Map<Integer, Reply> outcomes();

        default boolean ownedBy(String principal) {
            return call().principal().equals(principal);
        }

        /** What {@code round} ended with, if that is recorded. */
        default Reply recordedOutcome(int round) {
            return outcomes().getOrDefault(round, new Rejected(INVALID_STATE));
        }

        /** As {@link #recordedOutcome}, but round 0 (the first round) ended with round 1's questions unless recorded. */
        default Reply outcomeOf(int round) {
            return round == 0 ? firstRoundOutcome() : recordedOutcome(round);
        }

        default Reply firstRoundOutcome() {
            return outcomes().getOrDefault(0, new Asked(1, call().questions()));
        }
    }

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
            implements Journaled {

        Awaiting answered(AnswersReceived event) {
            return new Awaiting(call, round, questions, history.withAnswers(event.answers()), outcomes);
        }

        Awaiting stepRecorded(StepRecorded event) {
            return new Awaiting(
                    call, round, questions, history.withSteps(Map.of(event.name(), event.value())), outcomes);
        }

        /** The run of {@code event.round()} asked again: the call now waits for the next round's answers. */
        Awaiting asked(InputRequested event) {
            Asked asked = new Asked(event.round() + 1, event.questions());
            return new Awaiting(call, event.round() + 1, event.questions(), history, withOutcome(event.round(), asked));
        }

        Ended completed(CallCompleted event) {
            return ended(event.round(), new Finished(event.result()));
        }

        Ended failed(CallFailed event) {
            return ended(event.round(), new Rejected(event.error()));
        }

        Ended becameTask(CallBecameTask event) {
            return ended(event.round(), new HandedOver(event.taskId(), history.answers(), history.steps()));
        }

        boolean asks(String key) {
            return questions.stream().anyMatch(question -> question.key().equals(key));
        }

        private Ended ended(int endedRound, Reply outcome) {
            return new Ended(call, endedRound, outcome, withOutcome(endedRound, outcome));
        }

        private Map<Integer, Reply> withOutcome(int endedRound, Reply outcome) {
            Map<Integer, Reply> copy = new HashMap<>(outcomes);
            copy.put(endedRound, outcome);
            return Map.copyOf(copy);
        }
    }

    /** The call ended in {@code round} with {@code outcome}. */
    public record Ended(CallStarted call, int round, Reply outcome, Map<Integer, Reply> outcomes) implements Journaled {

        /** How the call ended, as metrics and the call log name it. */
        String endedAs() {
            return outcome instanceof Finished ? "completed" : outcome instanceof HandedOver ? "became_task" : "failed";
        }
    }

    // --- set-up ---------------------------------------------------------------------------

    private final ActorContext<Command> context;
    private final ActorRef<ClusterSharding.ShardCommand> shard;
    private final HandlerRunner<Command> runner;
    /** 2025-11-25 streams waiting for a round's outcome ({@link AwaitRound}). */
    private final RoundWaiters waiters = new RoundWaiters();
    /** The round whose run is in flight, if {@code runner.isRunning()}. */
    private int runningRound;
    /** When this node sent a round's questions (in memory: a call taken over elsewhere has no time for them). */
    private final Map<Integer, Instant> roundAskedAt = new HashMap<>();

    private ToolCallEntity(
            ActorContext<Command> context,
            PersistenceId persistenceId,
            ActorRef<ClusterSharding.ShardCommand> shard,
            HandlerRunner.Handlers handlers) {
        super(persistenceId, JournalAvailability.get(context.getSystem()).restartStrategy());
        this.context = context;
        this.shard = shard;
        this.runner = new HandlerRunner<>(context, persistenceId, handlers, RecordStep::new);
    }

    /**
     * Starts sharding for calls on this node. A call is reached with
     * {@code NodeSharding.of(system).entityRefFor(ENTITY_TYPE_KEY, callId)}; an idle one leaves
     * memory after the sharding idle timeout, an ended one at once.
     */
    public static ActorRef<ShardingEnvelope<Command>> init(
            ActorSystem<?> system,
            McpServerDefinition server,
            ReplayEngine engine,
            Executor handlerRuns,
            Duration stepTimeout) {
        return NodeSharding.of(system)
                .init(Entity.of(
                        ENTITY_TYPE_KEY,
                        entity -> create(
                                entity.getEntityId(), entity.getShard(), server, engine, handlerRuns, stepTimeout)));
    }

    /** @param shard the entity's shard, asked to passivate the call once it ended */
    public static Behavior<Command> create(
            String callId,
            ActorRef<ClusterSharding.ShardCommand> shard,
            McpServerDefinition server,
            ReplayEngine engine,
            Executor handlerRuns,
            Duration stepTimeout) {
        HandlerRunner.Handlers handlers = new HandlerRunner.Handlers(server, engine, handlerRuns, stepTimeout);
        return Behaviors.setup(context -> {
            // Named before Pekko's persistence sets up: else it walks the stack at every entity start.
            context.setLoggerName(ToolCallEntity.class);
            return new ToolCallEntity(context, PersistenceId.of(ENTITY_TYPE_KEY.name(), callId), shard, handlers);
        });
    }

    @Override
    public SignalHandler<State> signalHandler() {
        return runner.withCommonSignals(newSignalHandlerBuilder());
    }

    /** The system's settings, given so that Pekko does not merge them again at this start (EntityPluginConfig). */
    @Override
    public Optional<Config> journalPluginConfig() {
        return EntityPluginConfig.of(context.getSystem());
    }

    @Override
    public Optional<Config> snapshotPluginConfig() {
        return EntityPluginConfig.of(context.getSystem());
    }

    @Override
    public Recovery recovery() {
        return HandlerRunner.WITHOUT_SNAPSHOTS;
    }

    @Override
    public State emptyState() {
        return new Empty();
    }

    // --- commands -------------------------------------------------------------------------

    /*
     * Dispatched by hand rather than with Pekko's handler builders: the builders allocate about
     * 2.8 KB of cases and lambdas in every entity (one per waiting call) and search them on every
     * command. The first match wins, as with the builders.
     */
    @Override
    public CommandHandlerWithReply<Command, CallEvent, State> commandHandler() {
        return this::onCommand;
    }

    private ReplyEffect<CallEvent, State> onCommand(State state, Command command) {
        if (state instanceof Empty empty) {
            if (command instanceof Start start) return onStart(empty, start);
            if (command instanceof RecordFirstRound record) return onRecordFirstRound(empty, record);
            if (command instanceof AwaitRound await) return onAwaitFirstRound(empty, await);
            if (command instanceof SubmitAnswers submit) return onSubmitAnswersToNoCall(empty, submit);
            if (command instanceof AnswerQuestion answer) return onAnswerQuestionToNoCall(empty, answer);
        } else if (state instanceof Awaiting awaiting) {
            if (command instanceof Start start) return onStartAgain(awaiting, start);
            if (command instanceof SubmitAnswers submit) return onSubmitAnswers(awaiting, submit);
            if (command instanceof AnswerQuestion answer) return onAnswerQuestion(awaiting, answer);
            if (command instanceof AwaitRound await) return onAwaitRound(awaiting, await);
            if (command instanceof RecordStep step) return onRecordStep(awaiting, step);
            if (command instanceof RunFinished finished) return onRunFinished(awaiting, finished);
            if (command instanceof CancelRound cancel) return onCancelRound(awaiting, cancel);
        } else if (state instanceof Ended ended) {
            if (command instanceof Start start) return onStartAfterEnd(ended, start);
            if (command instanceof SubmitAnswers submit) return onSubmitAnswersAfterEnd(ended, submit);
            if (command instanceof AnswerQuestion answer) return onAnswerQuestionAfterEnd(ended, answer);
            if (command instanceof AwaitRound await) return onAwaitRoundAfterEnd(ended, await);
        }
        // What the states above leave to these:
        if (state instanceof Journaled journaled && command instanceof RecordFirstRound record) {
            return onRecordFirstRoundAgain(journaled, record);
        }
        if (command instanceof RecordStep step) return onLateStep(state, step);
        if (command instanceof RunFinished || command instanceof CancelRound) return ignore(state, command);
        throw new IllegalStateException(command.getClass().getSimpleName() + " is not handled in "
                + state.getClass().getSimpleName());
    }

    private ReplyEffect<CallEvent, State> onStart(Empty state, Start command) {
        CallStarted started = new CallStarted(
                command.method(),
                command.name(),
                command.arguments(),
                command.principal(),
                command.steps(),
                command.questions(),
                Instant.now(),
                command.traceParent());
        Asked asked = new Asked(1, command.questions());
        EffectBuilder<CallEvent, State> written = Effect()
                .persist(started)
                .thenRun(s -> waiters.wakeFirstRound(command.principal(), asked, new Rejected(INVALID_STATE)));
        if (!command.replyBeforeWrite()) {
            // A step's effect is acknowledged only once its result is written.
            return written.thenReply(command.replyTo(), s -> asked);
        }
        // Written behind the reply: a first round that ran no step has nothing to protect. Should the
        // write be lost (the node dies first), the retry rebuilds the call from its sealed requestState
        // and arguments (NotStarted); a retry that comes sooner waits for the write (Pekko stashes
        // commands while an entity persists).
        command.replyTo().tell(asked);
        return written.thenNoReply();
    }

    private ReplyEffect<CallEvent, State> onStartAgain(Awaiting state, Start command) {
        return Effect().reply(command.replyTo(), new Asked(state.round(), state.questions()));
    }

    private ReplyEffect<CallEvent, State> onStartAfterEnd(Ended state, Start command) {
        return Effect().reply(command.replyTo(), state.outcome());
    }

    private ReplyEffect<CallEvent, State> onRecordFirstRound(Empty state, RecordFirstRound command) {
        CallStarted started = new CallStarted(
                command.method(),
                command.name(),
                command.arguments(),
                command.principal(),
                Map.of(),
                List.of(),
                Instant.now(),
                ParleyTracing.currentTraceParent());
        CallEvent end = command.result() != null
                ? new CallCompleted(0, command.result())
                : new CallFailed(0, command.error() != null ? command.error() : INVALID_STATE);
        return Effect()
                .persist(List.of(started, end))
                .thenRun(s ->
                        waiters.wakeFirstRound(command.principal(), ((Ended) s).outcome(), new Rejected(INVALID_STATE)))
                .thenRun(this::passivate)
                .thenReply(command.replyTo(), s -> ((Ended) s).outcome());
    }

    private ReplyEffect<CallEvent, State> onRecordFirstRoundAgain(Journaled state, RecordFirstRound command) {
        return Effect().reply(command.replyTo(), state.firstRoundOutcome());
    }

    /**
     * A resuming 2025 stream asks for the first round's outcome before the call is journaled: its
     * first round still runs on the node that took the request, and {@link Start} or
     * {@link RecordFirstRound} will come. The stream asks again if this entity leaves memory first.
     */
    private ReplyEffect<CallEvent, State> onAwaitFirstRound(Empty state, AwaitRound command) {
        if (command.round() != 0) {
            return invalidState(command.replyTo());
        }
        waiters.awaitFirstRound(command);
        return Effect().noReply();
    }

    private ReplyEffect<CallEvent, State> onAwaitRound(Awaiting state, AwaitRound command) {
        if (!state.ownedBy(command.principal()) || command.round() > state.round()) {
            return invalidState(command.replyTo());
        }
        if (command.round() < state.round()) {
            return Effect().reply(command.replyTo(), state.outcomeOf(command.round()));
        }
        waiters.await(command);
        return Effect().noReply();
    }

    private ReplyEffect<CallEvent, State> onAwaitRoundAfterEnd(Ended state, AwaitRound command) {
        return replyToOwner(state, command.principal(), command.replyTo(), state.outcomeOf(command.round()));
    }

    /** Answers to round 1 of a call whose start is not journaled: its first write was lost (see onStart). */
    private ReplyEffect<CallEvent, State> onSubmitAnswersToNoCall(Empty state, SubmitAnswers command) {
        return command.round() == 1
                ? Effect().reply(command.replyTo(), new NotStarted(command.round()))
                : invalidState(command.replyTo());
    }

    private ReplyEffect<CallEvent, State> onSubmitAnswers(Awaiting state, SubmitAnswers command) {
        if (runner.isRunning()) {
            return Effect().stash();
        }
        if (!state.ownedBy(command.principal()) || command.round() > state.round()) {
            return invalidState(command.replyTo());
        }
        if (command.round() < state.round()) {
            return Effect().reply(command.replyTo(), state.recordedOutcome(command.round()));
        }
        Map<String, RecordedAnswer> answers;
        try {
            answers = AnswerValidation.answersTo(state.questions(), command.inputResponses());
        } catch (McpException invalid) {
            return Effect().reply(command.replyTo(), new Rejected(JsonRpc.ErrorObject.of(invalid)));
        }
        if (answers.isEmpty()) {
            // Nothing new to go on: ask the same questions again, persist nothing.
            return Effect().reply(command.replyTo(), new Asked(state.round(), state.questions()));
        }
        return runRound(state, answers, command);
    }

    /** A retry after the call ended gets the recorded outcome of its round, and only its own principal does. */
    private ReplyEffect<CallEvent, State> onSubmitAnswersAfterEnd(Ended state, SubmitAnswers command) {
        return replyToOwner(state, command.principal(), command.replyTo(), state.recordedOutcome(command.round()));
    }

    private ReplyEffect<CallEvent, State> onAnswerQuestionToNoCall(Empty state, AnswerQuestion command) {
        return invalidState(command.replyTo());
    }

    private ReplyEffect<CallEvent, State> onAnswerQuestion(Awaiting state, AnswerQuestion command) {
        if (runner.isRunning()) {
            return Effect().stash();
        }
        boolean open = state.asks(command.key());
        if (!open || !state.ownedBy(command.principal())) {
            return Effect()
                    .reply(
                            command.replyTo(),
                            open ? new Rejected(INVALID_STATE) : new Asked(state.round(), state.questions()));
        }
        ObjectNode answer = Json.object();
        answer.set(command.key(), command.answer());
        Map<String, RecordedAnswer> answers;
        try {
            answers = AnswerValidation.answersTo(state.questions(), answer);
        } catch (McpException invalid) {
            // No retry will bring a better answer on this path: the waiting stream ends with the error.
            waiters.wake(state.round(), new Rejected(JsonRpc.ErrorObject.of(invalid)));
            return Effect().reply(command.replyTo(), new Rejected(JsonRpc.ErrorObject.of(invalid)));
        }
        // The checks of onSubmitAnswers are made above: an open question of this round, its owner.
        return runRound(
                state,
                answers,
                new SubmitAnswers(
                        state.round(),
                        answer,
                        command.principal(),
                        command.capabilities(),
                        false,
                        waiters.noticesOf(state.round()),
                        command.replyTo()));
    }

    private ReplyEffect<CallEvent, State> onAnswerQuestionAfterEnd(Ended state, AnswerQuestion command) {
        return replyToOwner(state, command.principal(), command.replyTo(), state.outcome());
    }

    /**
     * Re-runs the handler with the round's answers. They are journaled together with the round's
     * outcome, in one write: if the node dies during the run, the client's retry brings them again.
     */
    private ReplyEffect<CallEvent, State> runRound(
            Awaiting state, Map<String, RecordedAnswer> answers, SubmitAnswers command) {
        CallStarted call = state.call();
        RunEnvironment environment = new RunEnvironment(
                command.caller(),
                ClientCapabilities.of(command.capabilities()),
                command.notices() == null ? RunEnvironment.RequestSink.NONE : new ForwardingSink(command.notices()),
                new Cancellation(),
                command.mayBecomeTask()
                        ? RunEnvironment.TaskMode.MAY_BECOME_TASK
                        : RunEnvironment.TaskMode.SYNCHRONOUS);
        HandlerRunner.Run run = new HandlerRunner.Run(
                call.method(),
                call.name(),
                call.arguments(),
                state.history().withAnswers(answers),
                environment,
                command.principal(),
                new HandlerRunner.CallRound(
                        persistenceId().entityId(), state.round() + 1, command.traceParent(), call.traceParent()));
        HandlerRunner.Started started =
                runner.start(run, outcome -> new RunFinished(state.round(), answers, outcome, command.replyTo()));
        return switch (started) {
            case RUNNING -> {
                runningRound = state.round();
                yield Effect().noReply();
            }
            case TARGET_GONE ->
                Effect()
                        .reply(
                                command.replyTo(),
                                new Rejected(HandlerRunner.noLongerAvailable(
                                        ErrorCodes.INVALID_PARAMS, call.method(), call.name())));
            case EXECUTOR_FULL ->
                Effect()
                        .reply(
                                command.replyTo(),
                                new Rejected(new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Server busy", null)));
        };
    }

    private ReplyEffect<CallEvent, State> onRecordStep(Awaiting state, RecordStep command) {
        return Effect()
                .persist(new StepRecorded(command.name(), command.value()))
                .thenReply(command.replyTo(), s -> Done.getInstance());
    }

    /** A step of a run whose call is not waiting (any more): acknowledged, not journaled. */
    private ReplyEffect<CallEvent, State> onLateStep(State state, RecordStep command) {
        return Effect().reply(command.replyTo(), Done.getInstance());
    }

    private ReplyEffect<CallEvent, State> onCancelRound(Awaiting state, CancelRound command) {
        if (runner.isRunning() && runningRound == command.round()) {
            runner.cancel();
        }
        return Effect().noReply();
    }

    private ReplyEffect<CallEvent, State> onRunFinished(Awaiting state, RunFinished command) {
        runner.finished();
        RunOutcome outcome = command.outcome();
        AnswersReceived answers = new AnswersReceived(command.round(), command.answers());
        if (outcome instanceof RunOutcome.NeedsInput needs) {
            Asked asked = new Asked(command.round() + 1, needs.questions());
            return Effect()
                    .persist(List.of(answers, new InputRequested(command.round(), needs.questions())))
                    .thenRun(s -> answered(state, command))
                    .thenRun(s -> waiters.wake(command.round(), asked))
                    .thenReply(command.replyTo(), s -> asked)
                    .thenUnstashAll();
        }
        if (outcome instanceof RunOutcome.Completed completed) {
            return end(state, command, answers, new CallCompleted(command.round(), completed.result()));
        }
        if (outcome instanceof RunOutcome.BecameTask) {
            return end(state, command, answers, new CallBecameTask(command.round(), EntityIds.next()));
        }
        ErrorObject failed = ((RunOutcome.Failed) outcome).error();
        // a step the journal did not take is answered with the Retry-After the node asks for
        ErrorObject error = failed.code() == ErrorCodes.JOURNAL_UNAVAILABLE
                ? JournalAvailability.get(context.getSystem()).error()
                : failed;
        if (error.code() == ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY
                || error.code() == ErrorCodes.INTERNAL_ERROR
                || error.code() == ErrorCodes.JOURNAL_UNAVAILABLE) {
            // Not the call's fault: the round stays open and a retry may succeed.
            waiters.wake(command.round(), new Rejected(error));
            return Effect().reply(command.replyTo(), new Rejected(error)).thenUnstashAll();
        }
        return end(state, command, answers, new CallFailed(command.round(), error));
    }

    /** Counts the answers of the round that just ended (journaled now) and notes when the next questions went out. */
    private void answered(Awaiting state, RunFinished command) {
        Instant now = Instant.now();
        Instant asked = state.round() == 1 ? state.call().startedAt() : roundAskedAt.get(state.round());
        ParleyMetrics.get(context.getSystem())
                .elicitationAnswers(
                        state.call().name(),
                        state.questions(),
                        command.answers(),
                        asked == null ? null : Duration.between(asked, now));
        roundAskedAt.clear();
        roundAskedAt.put(state.round() + 1, now);
    }

    /** The round's answers and the call's end, in one write; then everyone waiting hears the outcome. */
    private ReplyEffect<CallEvent, State> end(
            Awaiting state, RunFinished command, AnswersReceived answers, CallEvent end) {
        return Effect()
                .persist(List.of(answers, end))
                .thenRun(s -> answered(state, command))
                .thenRun(s -> waiters.wake(command.round(), ((Ended) s).outcome()))
                .thenRun(this::passivate)
                .thenReply(command.replyTo(), s -> ((Ended) s).outcome())
                .thenUnstashAll();
    }

    private ReplyEffect<CallEvent, State> ignore(State state, Command command) {
        return Effect().noReply();
    }

    /** Anyone but the call's principal learns nothing from it. */
    private ReplyEffect<CallEvent, State> replyToOwner(
            Journaled state, String principal, ActorRef<Reply> replyTo, Reply reply) {
        return Effect().reply(replyTo, state.ownedBy(principal) ? reply : new Rejected(INVALID_STATE));
    }

    private ReplyEffect<CallEvent, State> invalidState(ActorRef<Reply> replyTo) {
        return Effect().reply(replyTo, new Rejected(INVALID_STATE));
    }

    /**
     * An ended call leaves memory at once instead of after the idle timeout: under load, ended
     * calls kept for minutes were most of the heap and of every young GC's copying. A late retry
     * of its last round recovers it from the journal and gets the recorded outcome.
     */
    private void passivate(State state) {
        if (state instanceof Ended ended) {
            // round N's answers ended it: N asking rounds, then this one
            ParleyMetrics.get(context.getSystem()).callEnded(ended.endedAs(), ended.round() + 1);
            CallLog.callEnded(persistenceId().entityId(), ended.call(), ended.endedAs(), ended.round() + 1);
        }
        runner.passivate(shard);
    }

    /** Sends a running round's notifications to the node holding the client's stream. */
    private record ForwardingSink(ActorRef<RoundNotice> notices) implements RunEnvironment.RequestSink {
        @Override
        public void progress(double done, Double total, String message) {
            notices.tell(new RoundNotice(done, total, message, null, null, null));
        }

        @Override
        public void log(LogLevel level, String logger, JsonNode data) {
            notices.tell(new RoundNotice(null, null, null, level.wireName(), logger, data));
        }
    }

    // --- events ---------------------------------------------------------------------------

    /** Only dispatches: each transition is a method of the state it leaves. */
    @Override
    public EventHandler<State, CallEvent> eventHandler() {
        return ToolCallEntity::onEvent;
    }

    private static State onEvent(State state, CallEvent event) {
        if (state instanceof Empty empty && event instanceof CallStarted started) return empty.started(started);
        if (state instanceof Awaiting awaiting) {
            if (event instanceof AnswersReceived answers) return awaiting.answered(answers);
            if (event instanceof StepRecorded step) return awaiting.stepRecorded(step);
            if (event instanceof InputRequested asked) return awaiting.asked(asked);
            if (event instanceof CallCompleted completed) return awaiting.completed(completed);
            if (event instanceof CallFailed failed) return awaiting.failed(failed);
            if (event instanceof CallBecameTask task) return awaiting.becameTask(task);
        }
        throw new IllegalStateException(event.getClass().getSimpleName() + " cannot apply to "
                + state.getClass().getSimpleName());
    }
}
