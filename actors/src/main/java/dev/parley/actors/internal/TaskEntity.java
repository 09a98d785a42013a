package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.parley.actors.TaskSettings;
import dev.parley.actors.internal.journal.EntityPluginConfig;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.actors.internal.ops.CallLog;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.persistence.internal.TaskEvent.TaskAnswersReceived;
import dev.parley.persistence.internal.TaskEvent.TaskCancelled;
import dev.parley.persistence.internal.TaskEvent.TaskCompleted;
import dev.parley.persistence.internal.TaskEvent.TaskCreated;
import dev.parley.persistence.internal.TaskEvent.TaskFailed;
import dev.parley.persistence.internal.TaskEvent.TaskInputRequested;
import dev.parley.persistence.internal.TaskEvent.TaskStepRecorded;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EffectBuilder;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.Recovery;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * One task ({@code io.modelcontextprotocol/tasks}). Its creation is journaled before the
 * client hears of it; the handler then runs in the background (off the actor, on the tool
 * executor, through {@link HandlerRunner}) from the history the call's synchronous rounds
 * recorded. Questions make it {@code input_required}; {@code tasks/update} answers them; journaled
 * steps never repeat. A task that was working when its node died is resumed by
 * {@link TaskResumer} from its journal. Only the creating principal can see it: to anyone else it
 * does not exist.
 *
 * <p>Built like Pekko's {@code AccountExampleWithEventHandlersInState}: the state records own
 * their transitions (the event handler only dispatches to them), and each command has a small
 * handler method per state.
 *
 * <p>Why it is long: it is the one owning class of the task entity, with its protocol nested as
 * records (commands, replies, states) and a small handler method per command and state, so the
 * whole state machine reads in one file. Running the handler is {@link HandlerRunner}'s.
 */
public final class TaskEntity
        extends EventSourcedBehaviorWithEnforcedReplies<TaskEntity.Command, TaskEvent, TaskEntity.State> {

    public static final EntityTypeKey<Command> ENTITY_TYPE_KEY = EntityTypeKey.create(Command.class, "Task");

    public enum Status {
        WORKING("working"),
        INPUT_REQUIRED("input_required"),
        COMPLETED("completed"),
        FAILED("failed"),
        CANCELLED("cancelled");

        public final String wireName;

        Status(String wireName) {
            this.wireName = wireName;
        }
    }

    // --- commands -------------------------------------------------------------------------

    public sealed interface Command extends CborSerializable {}

    public record Create(
            String method,
            String name,
            ObjectNode arguments,
            String principal,
            ObjectNode capabilities,
            Map<String, RecordedAnswer> answers,
            Map<String, JsonNode> steps,
            String traceParent,
            ActorRef<Reply> replyTo)
            implements Command {

        /** With the current span (the creating request's) as {@code traceParent}: the background run links to it. */
        public Create(
                String method,
                String name,
                ObjectNode arguments,
                String principal,
                ObjectNode capabilities,
                Map<String, RecordedAnswer> answers,
                Map<String, JsonNode> steps,
                ActorRef<Reply> replyTo) {
            this(
                    method,
                    name,
                    arguments,
                    principal,
                    capabilities,
                    answers,
                    steps,
                    ParleyTracing.currentTraceParent(),
                    replyTo);
        }
    }

    /** A client's request about the task: to anyone but its creating principal the task does not exist. */
    public sealed interface TaskRequest extends Command {
        String principal();

        ActorRef<Reply> replyTo();
    }

    public record Get(String principal, ActorRef<Reply> replyTo) implements TaskRequest {}

    public record Update(String principal, ObjectNode inputResponses, ActorRef<Reply> replyTo) implements TaskRequest {}

    public record Cancel(String principal, ActorRef<Reply> replyTo) implements TaskRequest {}

    /** Resume the background run if the task is working and nothing runs it. */
    public record Wake() implements Command {}

    public record RecordStep(String name, JsonNode value, ActorRef<Done> replyTo) implements Command {}

    private record RunFinished(RunOutcome outcome) implements Command, NoSerializationVerificationNeeded {}

    private record Progressed(String message) implements Command, NoSerializationVerificationNeeded {}

    private record Expire() implements Command, NoSerializationVerificationNeeded {}

    private record IdleCheck() implements Command, NoSerializationVerificationNeeded {}

    // --- replies --------------------------------------------------------------------------

    public sealed interface Reply extends CborSerializable {}

    /** A point-in-time view of the task: what {@code tasks/get} shows. */
    public record TaskView(
            String taskId,
            Status status,
            String statusMessage,
            Instant createdAt,
            Instant lastUpdatedAt,
            long ttlMs,
            String principal,
            ObjectNode result,
            ErrorObject error,
            List<AskedQuestion> inputRequests)
            implements Reply {}

    public record Acknowledged() implements Reply {}

    /** Unknown, expired and deleted, or someone else's: all look the same. */
    public record NotFound() implements Reply {}

    public record Rejected(ErrorObject error) implements Reply {}

    // --- state ----------------------------------------------------------------------------

    public sealed interface State {}

    /** Nothing is journaled under this task id. */
    public record Empty() implements State {
        Open created(TaskCreated event) {
            return new Open(
                    event,
                    Status.WORKING,
                    new CallHistory(event.answers(), event.steps()),
                    List.of(),
                    new HashSet<>(event.answers().keySet()),
                    event.at());
        }
    }

    /** A task whose creation is journaled. */
    public sealed interface Journaled extends State {
        TaskCreated created();

        Status status();

        Instant lastUpdatedAt();

        default boolean ownedBy(String principal) {
            return created().principal().equals(principal);
        }
    }

    /**
     * Working or waiting for answers. {@code questions} are the outstanding ones; {@code askedKeys}
     * every key ever asked, since a task never reuses a key.
     */
    public record Open(
            TaskCreated created,
            Status status,
            CallHistory history,
            List<AskedQuestion> questions,
            Set<String> askedKeys,
            Instant lastUpdatedAt)
            implements Journaled {

        Open stepRecorded(TaskStepRecorded event) {
            return new Open(
                    created,
                    status,
                    history.withSteps(Map.of(event.name(), event.value())),
                    questions,
                    askedKeys,
                    event.at());
        }

        Open inputRequested(TaskInputRequested event) {
            Set<String> asked = new HashSet<>(askedKeys);
            event.questions().forEach(question -> asked.add(question.key()));
            return new Open(created, Status.INPUT_REQUIRED, history, event.questions(), Set.copyOf(asked), event.at());
        }

        /** Answered questions are no longer outstanding; once none is, the task works again. */
        Open answered(TaskAnswersReceived event) {
            List<AskedQuestion> outstanding = new ArrayList<>(questions);
            outstanding.removeIf(question -> event.answers().containsKey(question.key()));
            return new Open(
                    created,
                    outstanding.isEmpty() ? Status.WORKING : Status.INPUT_REQUIRED,
                    history.withAnswers(event.answers()),
                    List.copyOf(outstanding),
                    askedKeys,
                    event.at());
        }

        Ended completed(TaskCompleted event) {
            return new Ended(created, Status.COMPLETED, event.result(), null, event.at());
        }

        Ended failed(TaskFailed event) {
            return new Ended(created, Status.FAILED, null, event.error(), event.at());
        }

        Ended cancelled(TaskCancelled event) {
            return new Ended(created, Status.CANCELLED, null, null, event.at());
        }

        boolean expired() {
            return Instant.now().isAfter(created.at().plusMillis(created.ttlMs()));
        }

        ErrorObject expiredError() {
            return new ErrorObject(ErrorCodes.INTERNAL_ERROR, "Task expired after " + created.ttlMs() + " ms", null);
        }

        /** Whether any of {@code asked} uses a key this task asked before. */
        boolean reusesAKey(List<AskedQuestion> asked) {
            return asked.stream().anyMatch(question -> askedKeys.contains(question.key()));
        }

        TaskView view(String taskId, String statusMessage) {
            return new TaskView(
                    taskId,
                    status,
                    statusMessage,
                    created.at(),
                    lastUpdatedAt,
                    created.ttlMs(),
                    created.principal(),
                    null,
                    null,
                    status == Status.INPUT_REQUIRED ? questions : List.of());
        }
    }

    public record Ended(TaskCreated created, Status status, ObjectNode result, ErrorObject error, Instant lastUpdatedAt)
            implements Journaled {

        TaskView view(String taskId) {
            return new TaskView(
                    taskId,
                    status,
                    error != null ? error.message() : null,
                    created.at(),
                    lastUpdatedAt,
                    created.ttlMs(),
                    created.principal(),
                    result,
                    error,
                    List.of());
        }

        Duration took() {
            return Duration.between(created.at(), lastUpdatedAt);
        }
    }

    // --- set-up ---------------------------------------------------------------------------

    private final String taskId;
    private final ActorContext<Command> context;
    private final TimerScheduler<Command> timers;
    private final ActorRef<ClusterSharding.ShardCommand> shard;
    private final TaskSettings settings;
    private final HandlerRunner<Command> runner;
    private final Consumer<TaskView> onChange;
    // In memory only: a crash ends the run (it is resumed from the journal) and the message.
    private String statusMessage;
    private long lastActivity = System.nanoTime();

    private TaskEntity(
            String taskId,
            ActorContext<Command> context,
            TimerScheduler<Command> timers,
            ActorRef<ClusterSharding.ShardCommand> shard,
            TaskSettings settings,
            HandlerRunner.Handlers handlers,
            Consumer<TaskView> onChange) {
        super(
                PersistenceId.of(ENTITY_TYPE_KEY.name(), taskId),
                JournalAvailability.get(context.getSystem()).restartStrategy());
        this.taskId = taskId;
        this.context = context;
        this.timers = timers;
        this.shard = shard;
        this.settings = settings;
        this.runner = new HandlerRunner<>(context, persistenceId(), handlers, RecordStep::new);
        this.onChange = onChange;
    }

    /**
     * Starts sharding for tasks on this node; a task is reached with
     * {@code NodeSharding.of(system).entityRefFor(ENTITY_TYPE_KEY, taskId)}. Tasks passivate
     * themselves when idle and not running (a running task must stay in memory), so sharding's own
     * idle passivation is off. {@code onChange} hears of every persisted change.
     */
    public static ActorRef<ShardingEnvelope<Command>> init(
            ActorSystem<?> system,
            TaskSettings settings,
            McpServerDefinition server,
            ReplayEngine engine,
            Executor handlerRuns,
            Consumer<TaskView> onChange) {
        return NodeSharding.of(system)
                .init(Entity.of(
                                ENTITY_TYPE_KEY,
                                entity -> create(
                                        entity.getEntityId(),
                                        entity.getShard(),
                                        settings,
                                        server,
                                        engine,
                                        handlerRuns,
                                        onChange))
                        .withSettings(ClusterShardingSettings.create(system).withNoPassivationStrategy()));
    }

    public static Behavior<Command> create(
            String taskId,
            ActorRef<ClusterSharding.ShardCommand> shard,
            TaskSettings settings,
            McpServerDefinition server,
            ReplayEngine engine,
            Executor handlerRuns,
            Consumer<TaskView> onChange) {
        HandlerRunner.Handlers handlers =
                new HandlerRunner.Handlers(server, engine, handlerRuns, settings.stepTimeout());
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
            // Named before Pekko's persistence sets up: else it walks the stack at every entity start.
            context.setLoggerName(TaskEntity.class);
            timers.startTimerWithFixedDelay(new IdleCheck(), settings.idleTimeout());
            return new TaskEntity(taskId, context, timers, shard, settings, handlers, onChange);
        }));
    }

    @Override
    public SignalHandler<State> signalHandler() {
        return runner.withCommonSignals(
                newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), this::onRecoveryCompleted));
    }

    /**
     * A task that was working when its entity stopped works on; its expiry timer is set again. An
     * ended one checks for idleness as often as an ended task may stay.
     */
    private void onRecoveryCompleted(State state) {
        if (state instanceof Open open) {
            scheduleExpiry(open.created());
            if (open.status() == Status.WORKING) {
                startRun(open);
            }
        } else if (state instanceof Ended) {
            timers.startTimerWithFixedDelay(new IdleCheck(), settings.endedIdleTimeout());
        }
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
     * Dispatched by hand rather than with Pekko's handler builders, as in ToolCallEntity: the
     * builders allocate their cases and lambdas in every entity. The first match wins.
     */
    @Override
    public CommandHandlerWithReply<Command, TaskEvent, State> commandHandler() {
        return this::onCommand;
    }

    private ReplyEffect<TaskEvent, State> onCommand(State state, Command command) {
        if (command instanceof IdleCheck idle) return onIdleCheck(state, idle);
        if (state instanceof Empty empty) {
            if (command instanceof Create create) return onCreate(empty, create);
            if (command instanceof TaskRequest request) return notFound(empty, request);
        } else if (state instanceof Open open) {
            if (command instanceof Get get) return onGet(open, get);
            if (command instanceof Update update) return onUpdate(open, update);
            if (command instanceof Cancel cancel) return onCancel(open, cancel);
            if (command instanceof Wake wake) return onWake(open, wake);
            if (command instanceof RecordStep step) return onRecordStep(open, step);
            if (command instanceof RunFinished finished) return onRunFinished(open, finished);
            if (command instanceof Progressed progressed) return onProgressed(open, progressed);
            if (command instanceof Expire expire) return onExpire(open, expire);
        } else if (state instanceof Ended ended) {
            if (command instanceof Get get) return onGetAfterEnd(ended, get);
            if (command instanceof TaskRequest request) return onChangeAfterEnd(ended, request);
            if (command instanceof RunFinished finished) return onRunFinishedAfterEnd(ended, finished);
        }
        // What the states above leave to these:
        if (state instanceof Journaled journaled && command instanceof Create create) {
            return onCreateAgain(journaled, create);
        }
        if (command instanceof RecordStep step) return onLateStep(state, step);
        return ignore(state, command);
    }

    private ReplyEffect<TaskEvent, State> onCreate(Empty state, Create command) {
        TaskCreated created = new TaskCreated(
                command.method(),
                command.name(),
                command.arguments(),
                command.principal(),
                command.capabilities(),
                command.answers(),
                command.steps(),
                settings.ttl().toMillis(),
                Instant.now(),
                command.traceParent());
        return Effect()
                .persist(created)
                .thenRun(updated -> {
                    ParleyMetrics.get(context.getSystem()).taskStatus(Status.WORKING.wireName);
                    scheduleExpiry(created);
                    startRun((Open) updated);
                })
                .thenReply(command.replyTo(), this::view);
    }

    /** A repeated hand-over of the same call creates nothing: it gets the task as it is. */
    private ReplyEffect<TaskEvent, State> onCreateAgain(Journaled state, Create command) {
        return Effect().reply(command.replyTo(), view(state));
    }

    private ReplyEffect<TaskEvent, State> notFound(State state, TaskRequest command) {
        return Effect().reply(command.replyTo(), new NotFound());
    }

    private ReplyEffect<TaskEvent, State> onGet(Open state, Get command) {
        if (!state.ownedBy(command.principal())) {
            return notFound(state, command);
        }
        if (state.expired()) {
            return fail(state.expiredError()).thenReply(command.replyTo(), this::view);
        }
        return Effect().reply(command.replyTo(), view(state));
    }

    /**
     * Its owner has now seen how the task ended, which is all a poll waits for: the task leaves
     * memory at once instead of after {@code ended-idle-timeout}, and a later look reads it from
     * the journal. Under task load, ended tasks kept in memory made every young collection copy them.
     */
    private ReplyEffect<TaskEvent, State> onGetAfterEnd(Ended state, Get command) {
        if (!state.ownedBy(command.principal())) {
            return notFound(state, command);
        }
        return Effect().none().thenRun(updated -> passivateUnlessRunning()).thenReply(command.replyTo(), this::view);
    }

    /**
     * Answers to outstanding questions are kept; keys never issued, already answered or
     * superseded are ignored. The run resumes once nothing is outstanding.
     */
    private ReplyEffect<TaskEvent, State> onUpdate(Open state, Update command) {
        if (!state.ownedBy(command.principal())) {
            return notFound(state, command);
        }
        Map<String, RecordedAnswer> answers;
        try {
            answers = AnswerValidation.answersTo(state.questions(), command.inputResponses());
        } catch (McpException invalid) {
            return Effect().reply(command.replyTo(), new Rejected(JsonRpc.ErrorObject.of(invalid)));
        }
        if (answers.isEmpty()) {
            return Effect().reply(command.replyTo(), new Acknowledged());
        }
        Instant now = Instant.now();
        return Effect()
                .persist(new TaskAnswersReceived(answers, now))
                .thenRun(updated -> ParleyMetrics.get(context.getSystem())
                        .elicitationAnswers(
                                state.created().name(),
                                state.questions(),
                                answers,
                                Duration.between(state.lastUpdatedAt(), now)))
                .thenRun(updated -> {
                    Open open = (Open) updated;
                    publish(open);
                    if (open.status() == Status.WORKING) {
                        startRun(open);
                    }
                })
                .thenReply(command.replyTo(), updated -> new Acknowledged());
    }

    /** Cooperative: the task ends {@code cancelled} now; a running handler is interrupted. */
    private ReplyEffect<TaskEvent, State> onCancel(Open state, Cancel command) {
        if (!state.ownedBy(command.principal())) {
            return notFound(state, command);
        }
        return Effect()
                .persist(new TaskCancelled(Instant.now()))
                .thenRun(updated -> {
                    runner.cancel();
                    publish(updated);
                })
                .thenReply(command.replyTo(), updated -> new Acknowledged());
    }

    /** An ended task acknowledges an update or a cancel from its principal and changes nothing. */
    private ReplyEffect<TaskEvent, State> onChangeAfterEnd(Ended state, TaskRequest command) {
        return state.ownedBy(command.principal())
                ? Effect().reply(command.replyTo(), new Acknowledged())
                : notFound(state, command);
    }

    private ReplyEffect<TaskEvent, State> onWake(Open state, Wake command) {
        if (state.expired()) {
            return fail(state.expiredError()).thenNoReply();
        }
        if (state.status() == Status.WORKING) {
            startRun(state);
        }
        return Effect().noReply();
    }

    private ReplyEffect<TaskEvent, State> onExpire(Open state, Expire command) {
        return fail(state.expiredError()).thenNoReply();
    }

    private ReplyEffect<TaskEvent, State> onProgressed(Open state, Progressed command) {
        statusMessage = command.message();
        return Effect().noReply();
    }

    private ReplyEffect<TaskEvent, State> onRecordStep(Open state, RecordStep command) {
        return Effect()
                .persist(new TaskStepRecorded(command.name(), command.value(), Instant.now()))
                .thenReply(command.replyTo(), updated -> Done.getInstance());
    }

    /** A step of a run whose task ended (cancelled or expired while it ran): acknowledged, not journaled. */
    private ReplyEffect<TaskEvent, State> onLateStep(State state, RecordStep command) {
        return Effect().reply(command.replyTo(), Done.getInstance());
    }

    private ReplyEffect<TaskEvent, State> onRunFinished(Open state, RunFinished command) {
        runner.finished();
        RunOutcome outcome = command.outcome();
        if (outcome instanceof RunOutcome.NeedsInput needs) {
            if (state.reusesAKey(needs.questions())) {
                // A task never reuses a key; a handler that asks an answered key again cannot go on.
                return fail(new ErrorObject(
                                ErrorCodes.INTERNAL_ERROR,
                                "The task asked a question key it had used before; keys must be unique for a task",
                                null))
                        .thenNoReply();
            }
            return Effect()
                    .persist(new TaskInputRequested(needs.questions(), Instant.now()))
                    .thenRun(this::publish)
                    .thenNoReply();
        }
        if (outcome instanceof RunOutcome.Completed completed) {
            return Effect()
                    .persist(new TaskCompleted(completed.result(), Instant.now()))
                    .thenRun(this::publish)
                    .thenNoReply();
        }
        if (outcome instanceof RunOutcome.Failed failed && failed.error().code() == ErrorCodes.JOURNAL_UNAVAILABLE) {
            // a step the journal did not take ends this run, not the task: it stays working,
            // and the next Wake (TaskResumer) runs it again from what the journal holds.
            return Effect().noReply();
        }
        if (outcome instanceof RunOutcome.Failed failed) {
            return fail(failed.error()).thenNoReply();
        }
        // BecameTask cannot happen in a task's own run (becomeTask() is a no-op there).
        return Effect().noReply();
    }

    /** The cancelled or expired run has stopped: the task may passivate. */
    private ReplyEffect<TaskEvent, State> onRunFinishedAfterEnd(Ended state, RunFinished command) {
        runner.finished();
        return Effect().noReply();
    }

    private ReplyEffect<TaskEvent, State> onIdleCheck(State state, IdleCheck command) {
        Duration timeout = state instanceof Ended ? settings.endedIdleTimeout() : settings.idleTimeout();
        if (System.nanoTime() - lastActivity > timeout.toNanos()) {
            passivateUnlessRunning();
        }
        return Effect().noReply();
    }

    /** A run still in flight (a cancelled one stopping) keeps the task in memory until it ends. */
    private void passivateUnlessRunning() {
        if (!runner.isRunning()) {
            runner.passivate(shard);
        }
    }

    private ReplyEffect<TaskEvent, State> ignore(State state, Command command) {
        return Effect().noReply();
    }

    /** The task ends {@code failed}; a run still in flight is asked to stop. */
    private EffectBuilder<TaskEvent, State> fail(ErrorObject error) {
        runner.cancel();
        return Effect().persist(new TaskFailed(error, Instant.now())).thenRun(this::publish);
    }

    // --- the background run ---------------------------------------------------------------

    private void startRun(Open state) {
        if (runner.isRunning()) {
            return;
        }
        TaskCreated created = state.created();
        RunEnvironment environment = new RunEnvironment(
                created.principal(),
                ClientCapabilities.of(created.capabilities()),
                new StatusMessageSink(context.getSelf()),
                new Cancellation(),
                RunEnvironment.TaskMode.TASK);
        HandlerRunner.Run run = new HandlerRunner.Run(
                created.method(),
                created.name(),
                created.arguments(),
                state.history(),
                environment,
                created.principal(),
                new HandlerRunner.TaskRun(taskId, created.traceParent()));
        switch (runner.start(run, RunFinished::new)) {
            case RUNNING, EXECUTOR_FULL -> {} // a full executor: the next Wake tries again
            case TARGET_GONE ->
                context.getSelf()
                        .tell(new RunFinished(new RunOutcome.Failed(HandlerRunner.noLongerAvailable(
                                ErrorCodes.INTERNAL_ERROR, created.method(), created.name()))));
        }
    }

    /** A task's progress becomes its status message. */
    private record StatusMessageSink(ActorRef<Command> task) implements RunEnvironment.RequestSink {
        @Override
        public void progress(double done, Double total, String message) {
            task.tell(new Progressed(
                    message != null ? message : total != null ? done + " of " + total : String.valueOf(done)));
        }
    }

    private void scheduleExpiry(TaskCreated created) {
        Duration left = Duration.between(Instant.now(), created.at().plusMillis(created.ttlMs()));
        timers.startSingleTimer(new Expire(), left.isNegative() ? Duration.ZERO : left);
    }

    // --- views ----------------------------------------------------------------------------

    private void publish(State state) {
        if (state instanceof Ended ended) { // publish runs once per persisted change: the end is counted once
            ParleyMetrics.get(context.getSystem()).taskEnded(ended.status().wireName, ended.took());
            CallLog.taskEnded(taskId, ended.created(), ended.status().wireName, ended.took());
            // An ended task may stay a shorter time (onIdleCheck); a waiting one is checked less often.
            timers.startTimerWithFixedDelay(new IdleCheck(), settings.endedIdleTimeout());
        }
        if (view(state) instanceof TaskView task) {
            onChange.accept(task);
        }
    }

    /** What the task looks like now; every look counts as activity (see {@link #onIdleCheck}). */
    private Reply view(State state) {
        lastActivity = System.nanoTime();
        if (state instanceof Open open) {
            return open.view(taskId, statusMessage);
        }
        if (state instanceof Ended ended) {
            return ended.view(taskId);
        }
        return new NotFound();
    }

    // --- events ---------------------------------------------------------------------------

    /** Only dispatches: each transition is a method of the state it leaves. */
    @Override
    public EventHandler<State, TaskEvent> eventHandler() {
        return TaskEntity::onEvent;
    }

    private static State onEvent(State state, TaskEvent event) {
        if (state instanceof Empty empty && event instanceof TaskCreated created) return empty.created(created);
        if (state instanceof Open open) {
            if (event instanceof TaskStepRecorded step) return open.stepRecorded(step);
            if (event instanceof TaskInputRequested asked) return open.inputRequested(asked);
            if (event instanceof TaskAnswersReceived answers) return open.answered(answers);
            if (event instanceof TaskCompleted completed) return open.completed(completed);
            if (event instanceof TaskFailed failed) return open.failed(failed);
            if (event instanceof TaskCancelled cancelled) return open.cancelled(cancelled);
        }
        throw new IllegalStateException(event.getClass().getSimpleName() + " cannot apply to "
                + state.getClass().getSimpleName());
    }
}
