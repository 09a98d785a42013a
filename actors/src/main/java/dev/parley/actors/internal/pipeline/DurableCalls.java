package dev.parley.actors.internal.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.actors.ParleySettings;
import dev.parley.actors.internal.EntityAsks;
import dev.parley.actors.internal.PrincipalCapsEntity;
import dev.parley.actors.internal.ToolCallEntity;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.actors.internal.journal.NewEntityIds;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpApps;
import dev.parley.runtime.McpException;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.TaskSupport;
import dev.parley.runtime.internal.engine.AnswerValidation;
import dev.parley.runtime.internal.engine.CallHistory;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import dev.parley.runtime.internal.logging.RateLimitedLog;
import dev.parley.runtime.internal.state.InvalidRequestStateException;
import dev.parley.runtime.internal.state.PointerBinding;
import dev.parley.runtime.internal.state.SealedPointers;
import dev.parley.runtime.internal.wire.Errors;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.Legacy;
import dev.parley.runtime.internal.wire.McpNames.Meta;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import dev.parley.runtime.internal.wire.Mrtr.InputRequiredResult;
import io.opentelemetry.context.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code tools/call}, {@code prompts/get} and {@code resources/read}: the methods that may ask
 * for input (MRTR). A first round runs once through the engine; it becomes a
 * {@link ToolCallEntity} only when it asks (nothing is journaled for a call that completes in one
 * round). A retry opens its {@code requestState} and hands the answers to that entity, on whichever
 * node it lives. Calls that become tasks go through {@link TaskHandOver}.
 */
final class DurableCalls {
    private static final Logger log = LoggerFactory.getLogger(DurableCalls.class);
    /** A client can cause these lines at will, so they are rate-limited with a suppressed count. */
    private static final RateLimitedLog refusedStates = RateLimitedLog.perMinute(log, org.slf4j.event.Level.INFO, 20);

    private final ActorSystem<?> system;
    private final McpServerDefinition server;
    private final ReplayEngine engine;
    private final SealedPointers stateCodec;
    private final ClusterSharding sharding;
    private final ParleySettings settings;
    private final CachePolicy cachePolicy;
    private final TaskHandOver handOver;
    private final CallCaps caps;
    private final Executor requestThreadRuns;

    DurableCalls(
            ActorSystem<?> system,
            McpServerDefinition server,
            ReplayEngine engine,
            SealedPointers stateCodec,
            ClusterSharding sharding,
            ParleySettings settings,
            CachePolicy cachePolicy,
            TaskHandOver handOver,
            CallCaps caps,
            Executor requestThreadRuns) {
        this.system = system;
        this.server = server;
        this.engine = engine;
        this.stateCodec = stateCodec;
        this.sharding = sharding;
        this.settings = settings;
        this.cachePolicy = cachePolicy;
        this.handOver = handOver;
        this.caps = caps;
        this.requestThreadRuns = requestThreadRuns;
    }

    /** What a request calls: the definition's target, its name (or URI) and its arguments. */
    private record Call(CallTarget target, String name, ObjectNode arguments) {}

    CompletionStage<McpReply.Final> call(
            McpRequest request, RunEnvironment.RequestSink sink, Cancellation cancellation) {
        Call call = resolve(request);
        CallTarget target = call.target();
        boolean tasksDeclared = request.capabilities().extension(Meta.TASKS_EXTENSION);
        if (target.taskSupport() == TaskSupport.REQUIRED && !tasksDeclared) {
            throw Errors.tasksExtensionRequired();
        }
        // A client that cannot be asked anything gets the fallback (or the -32021) of a tool that asks
        // in its task in this response, not from a task that would fail at its first question.
        boolean canBeAsked = request.capabilities().elicitationForm()
                || request.capabilities().elicitationUrl();
        boolean mayBecomeTask = target.taskSupport() == TaskSupport.REQUIRED
                || (target.taskSupport() == TaskSupport.OPTIONAL
                        && tasksDeclared
                        && (canBeAsked || !target.asksInTask()));
        // the whole principal (scopes, claims) reaches ctx.principal() in the first round
        RunEnvironment environment = new RunEnvironment(
                request.caller(),
                request.capabilities(),
                sink,
                cancellation,
                mayBecomeTask ? RunEnvironment.TaskMode.MAY_BECOME_TASK : RunEnvironment.TaskMode.SYNCHRONOUS);
        String requestState = request.stringParam("requestState");
        ObjectNode inputResponses = request.objectParam("inputResponses");
        if (requestState != null) {
            return retry(
                    request, environment, call, requestState, inputResponses == null ? Json.object() : inputResponses);
        }
        if (target.taskBudget() != null && environment.taskMode() == RunEnvironment.TaskMode.MAY_BECOME_TASK) {
            return handOver.firstRoundWithinBudget(
                    request,
                    target,
                    call.name(),
                    call.arguments(),
                    environment,
                    outcome -> firstRoundEnded(request, environment, call, outcome, null));
        }
        // A request that asked for no notifications waits for nothing but its answer: its blocking
        // handler may run on the request's own thread (CallerRuns). One that streams notifications does not.
        Executor blockingRuns = sink == RunEnvironment.RequestSink.NONE ? requestThreadRuns : engine.toolExecutor();
        return engine.run(target, call.arguments(), environment, CallHistory.EMPTY, StepJournal.NONE, blockingRuns)
                .thenCompose(outcome -> firstRoundEnded(request, environment, call, outcome, inputResponses));
    }

    private Call resolve(McpRequest request) {
        String target = request.target();
        return switch (request.descriptor().target()) {
            case TOOL ->
                new Call(
                        server.tool(target).orElseThrow(() -> McpException.invalidParams("Unknown tool: " + target)),
                        target,
                        arguments(request));
            case PROMPT ->
                new Call(
                        server.prompt(target)
                                .orElseThrow(() -> McpException.invalidParams("Unknown prompt: " + target)),
                        target,
                        arguments(request));
            case RESOURCE -> {
                // an MCP Apps view does not exist for a client that did not declare the extension
                boolean apps = request.capabilities().extension(McpApps.EXTENSION);
                yield new Call(
                        server.resourceFor(target)
                                .filter(resource -> apps || !resource.isAppView())
                                .orElseThrow(() -> Errors.resourceNotFound(target))
                                .readerOf(target),
                        target,
                        Json.object());
            }
            case TASK, NONE -> throw new IllegalStateException(request.method() + " is not a durable call");
        };
    }

    private static ObjectNode arguments(McpRequest request) {
        ObjectNode arguments = request.objectParam("arguments");
        return arguments == null ? Json.object() : arguments;
    }

    /** What a requestState is bound to; the arguments' digest is only needed once a call asks. */
    private static PointerBinding binding(McpRequest request, Call call) {
        return PointerBinding.requestState(
                request.principal(), request.method(), call.name(), Json.digest(call.arguments()));
    }

    /**
     * A first round that asked becomes a durable call. Answers the request already offered (a
     * client may send {@code inputResponses} without a {@code requestState}) are submitted to that
     * round at once, validated like any retry's: known keys are used, unknown keys ignored.
     */
    private CompletionStage<McpReply.Final> firstRoundEnded(
            McpRequest request, RunEnvironment environment, Call call, RunOutcome outcome, ObjectNode offeredAnswers) {
        if (outcome instanceof RunOutcome.Completed completed) {
            return done(complete(request, completed.result()));
        }
        if (outcome instanceof RunOutcome.Failed failed) {
            return done(McpReply.Error.inBand(request.id(), failed.error()));
        }
        if (outcome instanceof RunOutcome.BecameTask becameTask) {
            return handOver.fromFirstRound(request, call.name(), call.arguments(), becameTask);
        }
        RunOutcome.NeedsInput needs = (RunOutcome.NeedsInput) outcome;
        if (offeredAnswers != null && !offeredAnswers.isEmpty()) {
            // Refused answers must leave nothing behind: check them before the call is journaled.
            try {
                AnswerValidation.answersTo(needs.questions(), offeredAnswers);
            } catch (McpException invalid) {
                return done(McpReply.Error.inBand(request.id(), JsonRpc.ErrorObject.of(invalid)));
            }
        }
        // Quotas: an oversized call, or one over a cap or ceiling, is refused before it is journaled.
        Optional<ErrorObject> oversized = caps.oversizedCall(call.arguments(), needs.questions());
        if (oversized.isPresent()) {
            return done(McpReply.Error.inBand(request.id(), oversized.get()));
        }
        NewEntityIds newEntityIds = NewEntityIds.get(system);
        String callId = request.callId() != null ? request.callId() : newEntityIds.mint(ToolCallEntity.ENTITY_TYPE_KEY);
        // The lease may be granted on another thread: the call is started in the request's trace context.
        Context trace = Context.current();
        return caps.take(request.quotaPrincipal(), PrincipalCapsEntity.Kind.WAITING_CALL, callId)
                .thenCompose(trace.wrapFunction((Optional<ErrorObject> overCap) -> overCap.isPresent()
                        ? done(McpReply.Error.inBand(request.id(), overCap.get()))
                        : start(request, call, callId, needs)
                                .whenComplete(
                                        (reply, failure) -> newEntityIds.forget(ToolCallEntity.ENTITY_TYPE_KEY, callId))
                                .thenCompose(reply -> offeredAnswers == null
                                                || offeredAnswers.isEmpty()
                                                || !(reply instanceof ToolCallEntity.Asked asked)
                                        ? done(reply)
                                        : submitAnswers(request, environment, callId, asked.round(), offeredAnswers))
                                .thenCompose(reply -> roundEnded(request, callId, call, binding(request, call), reply))
                                .whenComplete(caps.afterRound(request.quotaPrincipal(), callId))));
    }

    /**
     * Makes the call durable with the questions (and steps) of its first round. The entity answers
     * before the write (unless configured off) when the round ran no step and the client's retry can rebuild the call
     * (a 2026-07-28 retry carries the arguments; a 2025-11-25 answer does not, so that era's
     * question goes out only once the call is written).
     */
    private CompletionStage<ToolCallEntity.Reply> start(
            McpRequest request, Call call, String callId, RunOutcome.NeedsInput firstRound) {
        boolean replyBeforeWrite = settings.firstRoundBehindReply()
                && !firstRound.ranSteps()
                && !Legacy.VERSIONS.contains(request.protocolVersion());
        return EntityAsks.ask(
                JournalAvailability.get(system),
                entity(callId),
                replyTo -> new ToolCallEntity.Start(
                        request.method(),
                        call.name(),
                        call.arguments(),
                        request.principal(),
                        firstRound.newSteps(),
                        firstRound.questions(),
                        replyBeforeWrite,
                        ParleyTracing.currentTraceParent(),
                        replyTo),
                settings.askAttemptTimeout(),
                settings.askTimeout());
    }

    private CompletionStage<McpReply.Final> retry(
            McpRequest request, RunEnvironment environment, Call call, String requestState, ObjectNode inputResponses) {
        PointerBinding binding = binding(request, call);
        SealedPointers.Opened opened;
        try {
            opened = stateCodec.open(requestState, binding);
        } catch (InvalidRequestStateException e) {
            refusedStates.log("refused requestState for {} {}: {}", request.method(), call.name(), e.getMessage());
            return done(McpReply.Error.inBand(request.id(), ToolCallEntity.INVALID_STATE));
        }
        return submitAnswers(request, environment, opened.pointer(), opened.round(), inputResponses)
                .thenCompose(reply -> reply instanceof ToolCallEntity.NotStarted
                        ? rebuildFirstRound(request, environment, call, opened.pointer(), inputResponses)
                        : done(reply))
                .thenCompose(reply -> roundEnded(request, opened.pointer(), call, binding, reply))
                .whenComplete(caps.afterRound(request.quotaPrincipal(), opened.pointer()));
    }

    /**
     * Round 1's answers for a call whose start was never written: its first round was answered
     * before the write (see {@code ToolCallEntity.onStart}) and the node died first. The first round
     * runs again on the retry's arguments (its requestState is bound to their digest and principal),
     * and the call starts from it as it would have. No step may run in this run: a first round with
     * steps is written before its reply, so its start is never the one lost, and an effect must not
     * happen twice.
     */
    private CompletionStage<ToolCallEntity.Reply> rebuildFirstRound(
            McpRequest request, RunEnvironment environment, Call call, String callId, ObjectNode inputResponses) {
        NoStepMayRun journal = new NoStepMayRun();
        Context trace = Context.current();
        return engine.run(call.target(), call.arguments(), environment, CallHistory.EMPTY, journal)
                .thenCompose(trace.wrapFunction((RunOutcome outcome) -> {
                    if (!(outcome instanceof RunOutcome.NeedsInput needs) || needs.ranSteps() || journal.stepReached) {
                        log.warn(
                                "call {} ({} {}): its start is not journaled and the retry cannot rebuild it ({});"
                                        + " the retry is refused",
                                callId,
                                request.method(),
                                call.name(),
                                journal.stepReached
                                        ? "its first round runs a step"
                                        : "its first round now ends "
                                                + outcome.getClass().getSimpleName());
                        return done(new ToolCallEntity.Rejected(ToolCallEntity.INVALID_STATE));
                    }
                    log.info(
                            "call {} ({} {}): its start was not journaled (lost with its node); started again from"
                                    + " the retry",
                            callId,
                            request.method(),
                            call.name());
                    return caps.take(request.quotaPrincipal(), PrincipalCapsEntity.Kind.WAITING_CALL, callId)
                            .thenCompose(trace.wrapFunction((Optional<ErrorObject> overCap) -> overCap.isPresent()
                                    ? done(new ToolCallEntity.Rejected(overCap.get()))
                                    : start(request, call, callId, needs)
                                            .thenCompose(reply -> reply instanceof ToolCallEntity.Asked
                                                    ? submitAnswers(request, environment, callId, 1, inputResponses)
                                                    : done(reply))));
                }));
    }

    /** Lets no step run (see {@link #rebuildFirstRound}). */
    private static final class NoStepMayRun implements StepJournal {
        volatile boolean stepReached;

        @Override
        public void reached(String name, boolean recorded) {
            if (!recorded) {
                stepReached = true;
                throw new IllegalStateException("step '" + name + "' may not run again in a rebuilt first round");
            }
        }

        @Override
        public void record(String name, JsonNode value) {
            reached(name, false);
        }
    }

    private CompletionStage<ToolCallEntity.Reply> submitAnswers(
            McpRequest request, RunEnvironment environment, String callId, int round, ObjectNode inputResponses) {
        boolean mayBecomeTask = environment.taskMode() == RunEnvironment.TaskMode.MAY_BECOME_TASK;
        ActorRef<Object> relay = RoundNoticeRelay.start(system, environment.sink());
        environment.cancellation().onCancel(() -> entity(callId).tell(new ToolCallEntity.CancelRound(round)));
        CompletionStage<ToolCallEntity.Reply> reply = EntityAsks.<ToolCallEntity.Command, ToolCallEntity.Reply>ask(
                JournalAvailability.get(system),
                entity(callId),
                replyTo -> new ToolCallEntity.SubmitAnswers(
                        round,
                        inputResponses,
                        request.principal(),
                        request.caller(), // the retry's whole principal
                        environment.capabilities().declared(),
                        mayBecomeTask,
                        relay == null ? null : relay.narrow(),
                        replyTo),
                settings.askAttemptTimeout(),
                settings.askTimeout());
        return RoundNoticeRelay.after(relay, reply);
    }

    /** What the entity answered a round with, as a reply; a hand-over answers with the task's handle. */
    private CompletionStage<McpReply.Final> roundEnded(
            McpRequest request, String callId, Call call, PointerBinding binding, ToolCallEntity.Reply reply) {
        if (reply instanceof ToolCallEntity.HandedOver handedOver) {
            return handOver.fromRetry(request, call.name(), call.arguments(), handedOver);
        }
        if (reply instanceof ToolCallEntity.Asked asked) {
            Map<String, InputRequest> inputRequests = new LinkedHashMap<>();
            asked.questions().forEach(question -> inputRequests.put(question.key(), question.request()));
            // A 2025-11-25 client is never sent a requestState: its answers name the call themselves.
            String requestState = Legacy.VERSIONS.contains(request.protocolVersion())
                    ? null
                    : stateCodec.seal(callId, asked.round(), binding);
            return done(new McpReply.InputRequired(
                    request.id(), new InputRequiredResult(inputRequests, requestState), callId, asked.round()));
        }
        if (reply instanceof ToolCallEntity.Finished finished) {
            return done(complete(request, finished.result()));
        }
        if (reply instanceof ToolCallEntity.Rejected rejected) {
            return done(McpReply.Error.inBand(request.id(), rejected.error()));
        }
        // NotStarted: no call under this requestState's id (retry() rebuilds a lost start of round 1)
        return done(McpReply.Error.inBand(request.id(), ToolCallEntity.INVALID_STATE));
    }

    /** A complete result; a {@code resources/read} result is cacheable (spec §7.4). */
    private McpReply.Final complete(McpRequest request, ObjectNode result) {
        return new McpReply.Complete(
                request.id(), request.descriptor().cacheable() ? cachePolicy.applyTo(result.deepCopy()) : result);
    }

    private EntityRef<ToolCallEntity.Command> entity(String callId) {
        return sharding.entityRefFor(ToolCallEntity.ENTITY_TYPE_KEY, callId);
    }

    private static <T> CompletionStage<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
