package dev.parley.benchmarks.baseline;

import com.typesafe.config.Config;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.actors.internal.journal.EntityPluginConfig;
import dev.parley.actors.internal.journal.NewEntityIds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.Recovery;

/**
 * The least an event-sourced actor per call costs on Pekko: each MRTR flow's call is one
 * {@link EventSourcedBehavior} of its own, started by the first round, written by both rounds through
 * the node's journal (pekko-persistence-jdbc, Parley's configuration and store) and stopped after the
 * retry, as Parley's call entity is. Nothing else: no sharding (the route spawns the actor and asks it
 * directly), no pipeline, no handler, no validation, no seal; the events are the rounds' JSON as bytes.
 * It uses the same start-up savings Parley's entities use (no snapshot query, no highest-sequence query
 * for a new id, no configuration merge), and like Parley it answers the first round before its event is
 * written and the retry after its two events are.
 */
final class BaselineEntities {
    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(30);
    private static final String TYPE = "BareCall";
    private static final Recovery WITHOUT_SNAPSHOTS =
            Recovery.withSnapshotSelectionCriteria(SnapshotSelectionCriteria.none());

    private final ActorSystem<?> system;
    private final Map<String, ActorRef<Command>> waiting = new ConcurrentHashMap<>();

    BaselineEntities(ActorSystem<?> system) {
        this.system = system;
    }

    sealed interface Command {}

    record Start(byte[] arguments, ActorRef<Boolean> replyTo) implements Command {}

    record Finish(byte[] answers, byte[] result, ActorRef<Boolean> replyTo) implements Command {}

    /** Round 1: starts the call's actor, which records the arguments behind its answer. */
    CompletionStage<Boolean> start(String callId, String arguments) {
        String persistenceId = PersistenceId.of(TYPE, callId).id();
        NewEntityIds.get(system).remember(persistenceId);
        // Named before Pekko's persistence sets up, as Parley's entities are: else it walks the stack at every start.
        Behavior<Command> behavior = Behaviors.setup(context -> {
            context.setLoggerName(BareCall.class);
            return new BareCall(persistenceId, system);
        });
        ActorRef<Command> call = system.systemActorOf(behavior, callId, Props.empty());
        waiting.put(callId, call);
        return ask(call, replyTo -> new Start(bytes(arguments), replyTo));
    }

    /** The retry: records the answers and the result, answers, and stops the call's actor. */
    CompletionStage<Boolean> finish(String callId, String answers, String result) {
        ActorRef<Command> call = waiting.remove(callId);
        if (call == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no call " + callId));
        }
        return ask(call, replyTo -> new Finish(bytes(answers), bytes(result), replyTo));
    }

    private CompletionStage<Boolean> ask(ActorRef<Command> call, Function<ActorRef<Boolean>, Command> message) {
        return PekkoStages.direct(AskPattern.ask(call, message, ASK_TIMEOUT, system.scheduler()));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The call's actor; its state is the number of events it holds. */
    private static final class BareCall extends EventSourcedBehavior<Command, byte[], Integer> {
        private final ActorSystem<?> system;

        BareCall(String persistenceId, ActorSystem<?> system) {
            super(PersistenceId.ofUniqueId(persistenceId));
            this.system = system;
        }

        @Override
        public Integer emptyState() {
            return 0;
        }

        @Override
        public CommandHandler<Command, byte[], Integer> commandHandler() {
            return newCommandHandlerBuilder()
                    .forAnyState()
                    .onCommand(Start.class, (state, start) -> {
                        start.replyTo().tell(Boolean.TRUE); // answered before its event is written, as Parley does
                        return Effect().persist(start.arguments());
                    })
                    .onCommand(
                            Finish.class,
                            (state, finish) -> Effect()
                                    .persist(List.of(finish.answers(), finish.result()))
                                    .thenRun(after -> finish.replyTo().tell(Boolean.TRUE))
                                    .thenStop())
                    .build();
        }

        @Override
        public EventHandler<Integer, byte[]> eventHandler() {
            return newEventHandlerBuilder().forAnyState().onAnyEvent((state, event) -> state + 1);
        }

        @Override
        public Optional<Config> journalPluginConfig() {
            return EntityPluginConfig.of(system);
        }

        @Override
        public Optional<Config> snapshotPluginConfig() {
            return EntityPluginConfig.of(system);
        }

        @Override
        public Recovery recovery() {
            return WITHOUT_SNAPSHOTS;
        }
    }
}
