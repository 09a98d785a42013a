package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.actors.internal.ops.ParleyTracing;
import dev.parley.runtime.internal.engine.StepJournal;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.japi.function.Function3;

/**
 * The step journal of a handler run owned by an entity: each step result is sent to the entity
 * and the handler's thread waits until it is persisted. The run is off the actor, so it may block.
 */
record EntityStepJournal<C>(
        ActorRef<C> entity,
        Function3<String, JsonNode, ActorRef<Done>, C> recordStep,
        Duration timeout,
        Scheduler scheduler,
        ParleyTracing tracing)
        implements StepJournal {

    /** The step's span (a child of the round's or task run's span) covers journaling its result. */
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
