package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.actors.internal.ops.CallLog;
import dev.parley.actors.internal.ops.CallMdc;
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
import dev.parley.runtime.CallTarget;
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
import dev.parley.runtime.internal.engine.StepJournal;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.JournalPersistFailed;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.Recovery;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * One task ({@code io.modelcontextprotocol/tasks}). Its creation is journaled before the
 * client hears of it; the handler then runs in the background (off the actor, on the tool
 * executor) from the history the call's synchronous rounds recorded. Questions make it
 * {@code input_required}; {@code tasks/update} answers them; journaled steps never repeat. A
 * task that was working when its node died is resumed by {@link TaskResumer} from its journal.
 * Only the creating principal can see it: to anyone else it does not exist.
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

    public record Get(String principal, ActorRef<Reply> replyTo) implements Command {}

    public record Update(String principal, ObjectNode inputResponses, ActorRef<Reply> replyTo) implements Command {}

    public record Cancel(String principal, ActorRef<Reply> replyTo) implements Command {}

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

    public record Empty() implements State {}

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
            implements State {}

    public record Ended(TaskCreated created, Status status, ObjectNode result, ErrorObject error, Instant lastUpdatedAt)
            implements State {}

    // --- behaviour ------------------------------------------------------------------------

    private final String taskId;
    private final ActorContext<Command> context;
    private final TimerScheduler<Command> timers;
    private final ActorRef<ClusterSharding.ShardCommand> shard;
    private final TaskSettings settings;
    private final McpServerDefinition server;
    private final ReplayEngine engine;
    private final Executor toolExecutor;
    private final Consumer<TaskView> onChange;
    // In memory only: a crash ends the run (it is resumed from the journal) and the message.
    private Cancellation running;
    private String statusMessage;
    private long lastActivity = System.nanoTime();

    /** What tasks need from the configuration. */
    public record TaskSettings(Duration ttl, Duration pollInterval, Duration idleTimeout, Duration stepTimeout) {}

    private TaskEntity(
            String taskId,
            ActorContext<Command> context,
            TimerScheduler<Command> timers,
            ActorRef<ClusterSharding.ShardCommand> shard,
            TaskSettings settings,
            McpServerDefinition server,
            ReplayEngine engine,
            Executor toolExecutor,
            Consumer<TaskView> onChange) {
        super(
                PersistenceId.of(ENTITY_TYPE_KEY.name(), taskId),
                JournalAvailability.get(context.getSystem()).restartStrategy()); // issue 17
        this.taskId = taskId;
        this.context = context;
        this.timers = timers;
        this.shard = shard;
        this.settings = settings;
        this.server = server;
        this.engine = engine;
        this.toolExecutor = toolExecutor;
        this.onChange = onChange;
    }

    public static Behavior<Command> create(
            String taskId,
            ActorRef<ClusterSharding.ShardCommand> shard,
            TaskSettings settings,
            McpServerDefinition server,
            ReplayEngine engine,
            Executor toolExecutor,
            Consumer<TaskView> onChange) {
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
            ParleyMetrics.get(context.getSystem()).entityStarted(ENTITY_TYPE_KEY.name());
            timers.startTimerWithFixedDelay(new IdleCheck(), settings.idleTimeout());
            return new TaskEntity(taskId, context, timers, shard, settings, server, engine, toolExecutor, onChange);
        }));
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
    public CommandHandlerWithReply<Command, TaskEvent, State> commandHandler() {
        var builder = newCommandHandlerWithReplyBuilder();
        builder.forAnyState().onCommand(IdleCheck.class, this::onIdleCheck);
        builder.forStateType(Empty.class)
                .onCommand(Create.class, this::onCreate)
                .onCommand(Get.class, (state, command) -> Effect().reply(command.replyTo(), new NotFound()))
                .onCommand(Update.class, (state, command) -> Effect().reply(command.replyTo(), new NotFound()))
                .onCommand(Cancel.class, (state, command) -> Effect().reply(command.replyTo(), new NotFound()))
                .onCommand(RecordStep.class, (state, command) -> Effect().reply(command.replyTo(), Done.getInstance()))
                .onAnyCommand(command -> Effect().noReply());
        builder.forStateType(Open.class)
                .onCommand(Create.class, (state, command) -> Effect().reply(command.replyTo(), view(state)))
                .onCommand(Get.class, this::onGet)
                .onCommand(Update.class, this::onUpdate)
                .onCommand(Cancel.class, this::onCancel)
                .onCommand(Wake.class, this::onWake)
                .onCommand(RecordStep.class, this::onRecordStep)
                .onCommand(RunFinished.class, this::onRunFinished)
                .onCommand(Progressed.class, (state, command) -> {
                    statusMessage = command.message();
                    return Effect().noReply();
                })
                .onCommand(
                        Expire.class,
                        (state, command) -> fail(new ErrorObject(
                                        ErrorCodes.INTERNAL_ERROR,
                                        "Task expired after " + state.created().ttlMs() + " ms",
                                        null))
                                .thenNoReply());
        builder.forStateType(Ended.class)
                .onCommand(Create.class, (state, command) -> Effect().reply(command.replyTo(), view(state)))
                .onCommand(
                        Get.class,
                        (state, command) -> Effect()
                                .reply(
                                        command.replyTo(),
                                        mine(state.created(), command.principal()) ? view(state) : new NotFound()))
                .onCommand(
                        Update.class,
                        (state, command) -> Effect()
                                .reply(
                                        command.replyTo(),
                                        mine(state.created(), command.principal())
                                                ? new Acknowledged()
                                                : new NotFound()))
                .onCommand(
                        Cancel.class,
                        (state, command) -> Effect()
                                .reply(
                                        command.replyTo(),
                                        mine(state.created(), command.principal())
                                                ? new Acknowledged()
                                                : new NotFound()))
                .onCommand(RecordStep.class, (state, command) -> Effect().reply(command.replyTo(), Done.getInstance()))
                .onCommand(RunFinished.class, (state, command) -> {
                    running = null; // the cancelled or expired run has stopped: the task may passivate
                    return Effect().noReply();
                })
                .onAnyCommand(command -> Effect().noReply());
        return builder.build();
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
                .thenReply(command.replyTo(), updated -> view(updated));
    }

    private ReplyEffect<TaskEvent, State> onGet(Open state, Get command) {
        if (!mine(state.created(), command.principal())) {
            return Effect().reply(command.replyTo(), new NotFound());
        }
        if (expired(state.created())) {
            return fail(expiredError(state)).thenReply(command.replyTo(), this::view);
        }
        return Effect().reply(command.replyTo(), view(state));
    }

    /**
     * Answers to outstanding questions are kept; keys never issued, already answered or
     * superseded are ignored. The run resumes once nothing is outstanding.
     */
    private ReplyEffect<TaskEvent, State> onUpdate(Open state, Update command) {
        if (!mine(state.created(), command.principal())) {
            return Effect().reply(command.replyTo(), new NotFound());
        }
        Map<String, RecordedAnswer> answers;
        try {
            answers = AnswerValidation.answersTo(state.questions(), command.inputResponses());
        } catch (McpException invalid) {
            return Effect().reply(command.replyTo(), new Rejected(invalid.toError()));
        }
        if (answers.isEmpty()) {
            return Effect().reply(command.replyTo(), new Acknowledged());
        }
        return Effect()
                .persist(new TaskAnswersReceived(answers, Instant.now()))
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
        if (!mine(state.created(), command.principal())) {
            return Effect().reply(command.replyTo(), new NotFound());
        }
        return Effect()
                .persist(new TaskCancelled(Instant.now()))
                .thenRun(updated -> {
                    if (running != null) {
                        running.cancel();
                    }
                    publish(updated);
                })
                .thenReply(command.replyTo(), updated -> new Acknowledged());
    }

    private ReplyEffect<TaskEvent, State> onWake(Open state, Wake command) {
        if (expired(state.created())) {
            return fail(expiredError(state)).thenNoReply();
        }
        if (state.status() == Status.WORKING && running == null) {
            startRun(state);
        }
        return Effect().noReply();
    }

    private ReplyEffect<TaskEvent, State> onRecordStep(Open state, RecordStep command) {
        return Effect()
                .persist(new TaskStepRecorded(command.name(), command.value(), Instant.now()))
                .thenReply(command.replyTo(), updated -> Done.getInstance());
    }

    private ReplyEffect<TaskEvent, State> onRunFinished(Open state, RunFinished command) {
        running = null;
        RunOutcome outcome = command.outcome();
        if (outcome instanceof RunOutcome.NeedsInput needs) {
            List<AskedQuestion> fresh = needs.questions().stream()
                    .filter(question -> !state.askedKeys().contains(question.key()))
                    .toList();
            if (fresh.size() < needs.questions().size()) {
                // A task never reuses a key; a handler that asks an answered key again cannot go on.
                return fail(new ErrorObject(
                                ErrorCodes.INTERNAL_ERROR,
                                "The task asked a question key it had used before; keys must be unique for a task",
                                null))
                        .thenNoReply();
            }
            return Effect()
                    .persist(new TaskInputRequested(fresh, Instant.now()))
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
            // issue 17: a step the journal did not take ends this run, not the task: it stays working,
            // and the next Wake (TaskResumer) runs it again from what the journal holds.
            return Effect().noReply();
        }
        if (outcome instanceof RunOutcome.Failed failed) {
            return fail(failed.error()).thenNoReply();
        }
        // BecameTask cannot happen in a task's own run (becomeTask() is a no-op there).
        return Effect().noReply();
    }

    private org.apache.pekko.persistence.typed.javadsl.EffectBuilder<TaskEvent, State> fail(ErrorObject error) {
        if (running != null) {
            running.cancel();
        }
        return Effect().persist(new TaskFailed(error, Instant.now())).thenRun(this::publish);
    }

    private ReplyEffect<TaskEvent, State> onIdleCheck(State state, IdleCheck command) {
        boolean idle = System.nanoTime() - lastActivity > settings.idleTimeout().toNanos();
        if (idle && running == null) {
            ParleyMetrics.get(context.getSystem()).passivated(ENTITY_TYPE_KEY.name());
            shard.tell(new ClusterSharding.Passivate<>(context.getSelf()));
        }
        return Effect().noReply();
    }

    @Override
    public SignalHandler<State> signalHandler() {
        return newSignalHandlerBuilder()
                .onSignal(RecoveryCompleted.instance(), state -> {
                    if (state instanceof Open open) {
                        scheduleExpiry(open.created());
                        if (open.status() == Status.WORKING) {
                            startRun(open);
                        }
                    }
                })
                // issue 17: the entity restarts with backoff; the node checks whether the journal went away
                .onSignal(
                        JournalPersistFailed.class,
                        (state, signal) -> JournalAvailability.get(context.getSystem())
                                .journalFailed(persistenceId().id(), signal.getFailure()))
                .onSignal(
                        RecoveryFailed.class,
                        (state, signal) -> JournalAvailability.get(context.getSystem())
                                .journalFailed(persistenceId().id(), signal.getFailure()))
                // A stopping entity (passivation, rebalance, shutdown) stops its run: the run resumed
                // from the journal elsewhere must be the only one.
                .onSignal(PostStop.instance(), state -> {
                    ParleyMetrics.get(context.getSystem()).entityStopped(ENTITY_TYPE_KEY.name());
                    if (running != null) {
                        running.cancel();
                    }
                })
                .build();
    }

    // --- the background run ---------------------------------------------------------------

    private void startRun(Open state) {
        if (running != null) {
            return;
        }
        CallTarget target =
                server.target(state.created().method(), state.created().name()).orElse(null);
        if (target == null) {
            context.getSelf()
                    .tell(new RunFinished(new RunOutcome.Failed(new ErrorObject(
                            ErrorCodes.INTERNAL_ERROR,
                            "No longer available: " + state.created().method() + " "
                                    + state.created().name(),
                            null))));
            return;
        }
        Cancellation cancellation = new Cancellation();
        ActorRef<Command> self = context.getSelf();
        Scheduler scheduler = context.getSystem().scheduler();
        RunEnvironment.RequestSink sink = new RunEnvironment.RequestSink() {
            @Override
            public void progress(double done, Double total, String message) {
                self.tell(new Progressed(
                        message != null ? message : total != null ? done + " of " + total : String.valueOf(done)));
            }
        };
        RunEnvironment environment = new RunEnvironment(
                state.created().principal(),
                ClientCapabilities.of(state.created().capabilities()),
                sink,
                cancellation,
                RunEnvironment.TaskMode.TASK);
        ParleyTracing tracing = ParleyTracing.get(context.getSystem());
        StepJournal journal =
                new EntityStepJournal<Command>(self, RecordStep::new, settings.stepTimeout(), scheduler, tracing);
        CompletableFuture<RunOutcome> run;
        // The run's span (linked to the creating request's) and the task's MDC fields go with the handler (issue 13).
        Span span = tracing.startTaskRun(
                state.created().method(),
                state.created().name(),
                taskId,
                state.created().traceParent());
        try (Scope traced = span.makeCurrent();
                CallMdc.Scope mdc = CallMdc.open(
                        state.created().method(),
                        state.created().name(),
                        null,
                        null,
                        taskId,
                        state.created().principal())) {
            run = CompletableFuture.supplyAsync(
                            () -> engine.run(
                                    target, state.created().arguments(), environment, state.history(), journal),
                            toolExecutor)
                    .thenCompose(stage -> stage);
        } catch (RejectedExecutionException e) {
            span.end();
            return; // the next Wake tries again
        }
        run.whenComplete((outcome, failure) -> span.end());
        running = cancellation;
        context.pipeToSelf(
                run,
                (outcome, failure) -> new RunFinished(
                        outcome != null
                                ? outcome
                                : new RunOutcome.Failed(new ErrorObject(
                                        ErrorCodes.INTERNAL_ERROR, "Internal error running the task", null))));
    }

    private void scheduleExpiry(TaskCreated created) {
        Duration left = Duration.between(Instant.now(), created.at().plusMillis(created.ttlMs()));
        timers.startSingleTimer(new Expire(), left.isNegative() ? Duration.ZERO : left);
    }

    // --- views ----------------------------------------------------------------------------

    private static boolean mine(TaskCreated created, String principal) {
        return created.principal().equals(principal);
    }

    private static boolean expired(TaskCreated created) {
        return Instant.now().isAfter(created.at().plusMillis(created.ttlMs()));
    }

    private static ErrorObject expiredError(Open state) {
        return new ErrorObject(
                ErrorCodes.INTERNAL_ERROR,
                "Task expired after " + state.created().ttlMs() + " ms",
                null);
    }

    private void publish(State state) {
        if (state instanceof Ended ended) { // publish runs once per persisted change: the end is counted once
            java.time.Duration took = java.time.Duration.between(ended.created().at(), ended.lastUpdatedAt());
            ParleyMetrics.get(context.getSystem()).taskEnded(ended.status().wireName, took);
            CallLog.taskEnded(taskId, ended.created(), ended.status().wireName, took);
        }
        Reply view = view(state);
        if (view instanceof TaskView task) {
            onChange.accept(task);
        }
    }

    private Reply view(State state) {
        lastActivity = System.nanoTime();
        if (state instanceof Open open) {
            return new TaskView(
                    taskId,
                    open.status(),
                    statusMessage,
                    open.created().at(),
                    open.lastUpdatedAt(),
                    open.created().ttlMs(),
                    open.created().principal(),
                    null,
                    null,
                    open.status() == Status.INPUT_REQUIRED ? open.questions() : List.of());
        }
        if (state instanceof Ended ended) {
            String message = ended.error() != null ? ended.error().message() : null;
            return new TaskView(
                    taskId,
                    ended.status(),
                    message,
                    ended.created().at(),
                    ended.lastUpdatedAt(),
                    ended.created().ttlMs(),
                    ended.created().principal(),
                    ended.result(),
                    ended.error(),
                    List.of());
        }
        return new NotFound();
    }

    // --- events ---------------------------------------------------------------------------

    @Override
    public EventHandler<State, TaskEvent> eventHandler() {
        var builder = newEventHandlerBuilder();
        builder.forStateType(Empty.class)
                .onEvent(
                        TaskCreated.class,
                        (state, event) -> new Open(
                                event,
                                Status.WORKING,
                                new CallHistory(event.answers(), event.steps()),
                                List.of(),
                                new HashSet<>(event.answers().keySet()),
                                event.at()));
        builder.forStateType(Open.class)
                .onEvent(
                        TaskStepRecorded.class,
                        (state, event) -> new Open(
                                state.created(),
                                state.status(),
                                state.history().withSteps(Map.of(event.name(), event.value())),
                                state.questions(),
                                state.askedKeys(),
                                event.at()))
                .onEvent(TaskInputRequested.class, (state, event) -> {
                    Set<String> asked = new HashSet<>(state.askedKeys());
                    event.questions().forEach(question -> asked.add(question.key()));
                    return new Open(
                            state.created(),
                            Status.INPUT_REQUIRED,
                            state.history(),
                            event.questions(),
                            Set.copyOf(asked),
                            event.at());
                })
                .onEvent(TaskAnswersReceived.class, (state, event) -> {
                    List<AskedQuestion> outstanding = new ArrayList<>(state.questions());
                    outstanding.removeIf(question -> event.answers().containsKey(question.key()));
                    return new Open(
                            state.created(),
                            outstanding.isEmpty() ? Status.WORKING : Status.INPUT_REQUIRED,
                            state.history().withAnswers(event.answers()),
                            List.copyOf(outstanding),
                            state.askedKeys(),
                            event.at());
                })
                .onEvent(
                        TaskCompleted.class,
                        (state, event) ->
                                new Ended(state.created(), Status.COMPLETED, event.result(), null, event.at()))
                .onEvent(
                        TaskFailed.class,
                        (state, event) -> new Ended(state.created(), Status.FAILED, null, event.error(), event.at()))
                .onEvent(
                        TaskCancelled.class,
                        (state, event) -> new Ended(state.created(), Status.CANCELLED, null, null, event.at()));
        return builder.build();
    }
}
