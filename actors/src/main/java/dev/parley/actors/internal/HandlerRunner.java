package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.actors.internal.ops.CallMdc;
import dev.parley.actors.internal.ops.ParleyMetrics;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.ErrorCodes;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.japi.function.Function3;
import org.apache.pekko.persistence.typed.JournalPersistFailed;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.typed.javadsl.Recovery;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;
import org.apache.pekko.persistence.typed.javadsl.SignalHandlerBuilder;

/**
 * The handler runs of one entity ({@link ToolCallEntity}, {@link TaskEntity}), and what such an
 * entity does alike around them: its lifecycle metrics, its journal-failure signals and passivation.
 *
 * <p>A run goes off the actor (posted to the dispatcher as a managed block, or onto the tool
 * executor: {@link Handlers#runs}), because its step journal waits on the
 * entity: each step result is sent to the entity as {@code RecordStep} and the handler's thread
 * waits until it is persisted. The next run replays the recorded steps from its history instead of
 * running them; a step that ran but was not journaled when the node died runs again (at least once).
 * At most one run is in flight; it lives in memory only, so a crash simply ends it.
 *
 * @param <C> the entity's command type; a finished run comes back as one of them
 */
final class HandlerRunner<C> {

    /** Parley saves no snapshots: recovery skips the snapshot store's query. */
    static final Recovery WITHOUT_SNAPSHOTS = Recovery.withSnapshotSelectionCriteria(SnapshotSelectionCriteria.none());

    /**
     * What runs the handlers: the server's tools, the replaying engine and where a run goes (the
     * node's {@code CallerRuns.postingTo} the dispatcher, falling back to the tool executor).
     */
    record Handlers(McpServerDefinition server, ReplayEngine engine, Executor runs, Duration stepTimeout) {}

    /** One run: the handler of {@code method name} over {@code history}, for {@code owner}. */
    record Run(
            String method,
            String name,
            ObjectNode arguments,
            CallHistory history,
            RunEnvironment environment,
            String principal,
            Owner owner) {}

    /** Whose run it is: that decides its span, its log fields and what its internal failure says. */
    sealed interface Owner {
        Span startSpan(ParleyTracing tracing, String method, String name);

        CallMdc.Scope openMdc(String method, String name, String principal);

        String internalFailure();
    }

    /** Round {@code round} of durable call {@code callId}: a child of the request that carried its answers. */
    record CallRound(String callId, int round, String requestTraceParent, String firstTraceParent) implements Owner {
        @Override
        public Span startSpan(ParleyTracing tracing, String method, String name) {
            return tracing.startRound(method, name, callId, round, requestTraceParent, firstTraceParent);
        }

        @Override
        public CallMdc.Scope openMdc(String method, String name, String principal) {
            return CallMdc.open(method, name, callId, round, null, principal);
        }

        @Override
        public String internalFailure() {
            return "Internal error running the tool";
        }
    }

    /** The background run of task {@code taskId}: linked to the request that created it. */
    record TaskRun(String taskId, String createdTraceParent) implements Owner {
        @Override
        public Span startSpan(ParleyTracing tracing, String method, String name) {
            return tracing.startTaskRun(method, name, taskId, createdTraceParent);
        }

        @Override
        public CallMdc.Scope openMdc(String method, String name, String principal) {
            return CallMdc.open(method, name, null, null, taskId, principal);
        }

        @Override
        public String internalFailure() {
            return "Internal error running the task";
        }
    }

    /** What {@link #start} did. */
    enum Started {
        RUNNING,
        /** The server no longer offers what the call was made to (removed at runtime, or redeployed). */
        TARGET_GONE,
        /** The tool executor refused the run. */
        EXECUTOR_FULL
    }

    private final ActorContext<C> context;
    private final String entityType;
    private final PersistenceId persistenceId;
    private final Handlers handlers;
    private final ParleyTracing tracing;
    private final ParleyMetrics metrics;
    private final StepJournal steps;
    private Cancellation running;

    /** @param recordStep makes the entity's {@code RecordStep} command: name, value, whom to tell it is persisted */
    HandlerRunner(
            ActorContext<C> context,
            PersistenceId persistenceId,
            Handlers handlers,
            Function3<String, JsonNode, ActorRef<Done>, C> recordStep) {
        this.context = context;
        this.entityType = persistenceId.entityTypeHint();
        this.persistenceId = persistenceId;
        this.handlers = handlers;
        this.tracing = ParleyTracing.get(context.getSystem());
        this.metrics = ParleyMetrics.get(context.getSystem());
        this.steps = new EntityStepJournal<>(
                context.getSelf(),
                recordStep,
                handlers.stepTimeout(),
                context.getSystem().scheduler(),
                tracing);
        metrics.entityStarted(entityType);
    }

    /** Whether a run is in flight (its {@code whenFinished} command has not been handled yet). */
    boolean isRunning() {
        return running != null;
    }

    /**
     * Runs {@code run} off the actor (a blocking handler on that same thread, not handed over
     * again); when it ends, {@code whenFinished} turns its outcome (an internal failure if the run
     * threw) into the command the entity receives.
     */
    Started start(Run run, Function<RunOutcome, C> whenFinished) {
        CallTarget target = handlers.server().target(run.method(), run.name()).orElse(null);
        if (target == null) {
            return Started.TARGET_GONE;
        }
        CompletableFuture<RunOutcome> outcome;
        // The run's span and the call's MDC fields go with the handler off the actor.
        Span span = run.owner().startSpan(tracing, run.method(), run.name());
        try (Scope traced = span.makeCurrent();
                CallMdc.Scope mdc = run.owner().openMdc(run.method(), run.name(), run.principal())) {
            outcome = CompletableFuture.supplyAsync(
                            () -> handlers.engine()
                                    .run(
                                            target,
                                            run.arguments(),
                                            run.environment(),
                                            run.history(),
                                            steps,
                                            ReplayEngine.CALLING_THREAD),
                            handlers.runs())
                    .thenCompose(stage -> stage);
        } catch (RejectedExecutionException e) {
            span.end();
            return Started.EXECUTOR_FULL;
        }
        outcome.whenComplete((ended, failure) -> span.end());
        running = run.environment().cancellation();
        ErrorObject internalFailure =
                new ErrorObject(ErrorCodes.INTERNAL_ERROR, run.owner().internalFailure(), null);
        context.pipeToSelf(
                outcome,
                (ended, failure) -> whenFinished.apply(ended != null ? ended : new RunOutcome.Failed(internalFailure)));
        return Started.RUNNING;
    }

    /** The entity received the run's {@code whenFinished} command. */
    void finished() {
        running = null;
    }

    /** Asks the run in flight, if any, to stop (cooperatively: the handler sees its cancellation). */
    void cancel() {
        if (running != null) {
            running.cancel();
        }
    }

    /**
     * Adds the signals every entity with handler runs answers alike to {@code builder}: a failed
     * write or recovery makes the node check whether the journal went away (the entity
     * restarts with backoff), and a stopping entity (passivation, rebalance, shutdown) stops its run,
     * so that a run resumed from the journal elsewhere is the only one.
     */
    <S> SignalHandler<S> withCommonSignals(SignalHandlerBuilder<S> builder) {
        JournalAvailability journal = JournalAvailability.get(context.getSystem());
        return builder.onSignal(
                        JournalPersistFailed.class,
                        (state, signal) -> journal.journalFailed(persistenceId.id(), signal.getFailure()))
                .onSignal(
                        RecoveryFailed.class,
                        (state, signal) -> journal.journalFailed(persistenceId.id(), signal.getFailure()))
                .onSignal(PostStop.instance(), state -> {
                    metrics.entityStopped(entityType); // the live-entity gauge
                    cancel();
                })
                .build();
    }

    /** Asks {@code shard} to take the entity out of memory; its journal brings it back when asked again. */
    void passivate(ActorRef<ClusterSharding.ShardCommand> shard) {
        metrics.passivated(entityType);
        shard.tell(new ClusterSharding.Passivate<>(context.getSelf()));
    }

    /** The error a refused run is answered with when its target is gone. */
    static ErrorObject noLongerAvailable(int code, String method, String name) {
        return new ErrorObject(code, "No longer available: " + method + " " + name, null);
    }

    /** Sends each step result to the entity and waits until it is persisted. */
    private record EntityStepJournal<C>(
            ActorRef<C> entity,
            Function3<String, JsonNode, ActorRef<Done>, C> recordStep,
            Duration timeout,
            Scheduler scheduler,
            ParleyTracing tracing)
            implements StepJournal {

        /** The step's span (a child of the run's span) covers journaling its result. */
        @Override
        public void record(String name, JsonNode value) {
            Span span = tracing.startStep(name);
            try {
                AskPattern.<C, Done>ask(entity, replyTo -> recordStep.apply(name, value, replyTo), timeout, scheduler)
                        .toCompletableFuture()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                span.setStatus(StatusCode.ERROR);
                throw new IllegalStateException("could not journal step '" + name + "'", e);
            } finally {
                span.end();
            }
        }
    }
}
