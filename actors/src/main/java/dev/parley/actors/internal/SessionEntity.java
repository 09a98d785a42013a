package dev.parley.actors.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import dev.parley.actors.internal.journal.EntityPluginConfig;
import dev.parley.actors.internal.journal.JournalAvailability;
import dev.parley.persistence.internal.SessionEvent;
import dev.parley.persistence.internal.SessionEvent.LogLevelSet;
import dev.parley.persistence.internal.SessionEvent.ResourceSubscribed;
import dev.parley.persistence.internal.SessionEvent.ResourceUnsubscribed;
import dev.parley.persistence.internal.SessionEvent.SessionEnded;
import dev.parley.persistence.internal.SessionEvent.SessionOpened;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.Recovery;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;

/**
 * One 2025-11-25 session: what {@code initialize} negotiated, the log level and the resource
 * subscriptions, and whether the client ended it. Sharded by session id, so every request of a
 * session finds it from any node (no sticky routing). Only the principal that opened a session
 * can use it: to anyone else it does not exist.
 */
public final class SessionEntity
        extends EventSourcedBehaviorWithEnforcedReplies<SessionEntity.Command, SessionEvent, SessionEntity.State> {

    public static final EntityTypeKey<Command> ENTITY_TYPE_KEY = EntityTypeKey.create(Command.class, "Session");

    // --- commands -------------------------------------------------------------------------

    public sealed interface Command extends CborSerializable {
        ActorRef<Reply> replyTo();
    }

    public record Open(
            String principal,
            String protocolVersion,
            ObjectNode capabilities,
            ObjectNode clientInfo,
            ActorRef<Reply> replyTo)
            implements Command {}

    public record Get(String principal, ActorRef<Reply> replyTo) implements Command {}

    public record SetLogLevel(String principal, String level, ActorRef<Reply> replyTo) implements Command {}

    public record Subscribe(String principal, String uri, ActorRef<Reply> replyTo) implements Command {}

    public record Unsubscribe(String principal, String uri, ActorRef<Reply> replyTo) implements Command {}

    public record End(String principal, ActorRef<Reply> replyTo) implements Command {}

    // --- replies --------------------------------------------------------------------------

    public sealed interface Reply extends CborSerializable {}

    /** The session as it is now. */
    public record SessionView(
            String protocolVersion, ObjectNode capabilities, String logLevel, Set<String> subscriptions)
            implements Reply {}

    /** Never opened, ended, or someone else's: all answered 404 alike. */
    public record NotFound() implements Reply {}

    // --- state ----------------------------------------------------------------------------

    public sealed interface State {}

    public record Empty() implements State {}

    public record Active(SessionOpened opened, String logLevel, Set<String> subscriptions) implements State {
        SessionView view() {
            return new SessionView(
                    opened.protocolVersion(), opened.capabilities(), logLevel, Set.copyOf(subscriptions));
        }

        Active withLevel(String level) {
            return new Active(opened, level, subscriptions);
        }

        Active with(String uri, boolean subscribed) {
            Set<String> uris = new LinkedHashSet<>(subscriptions);
            if (subscribed) {
                uris.add(uri);
            } else {
                uris.remove(uri);
            }
            return new Active(opened, logLevel, uris);
        }
    }

    public record Ended() implements State {}

    // --- behaviour ------------------------------------------------------------------------

    private final JournalAvailability journal;
    private final Optional<Config> pluginConfig;

    private SessionEntity(PersistenceId persistenceId, JournalAvailability journal, Optional<Config> pluginConfig) {
        super(persistenceId, journal.restartStrategy()); // restart with backoff after a journal failure
        this.journal = journal;
        this.pluginConfig = pluginConfig;
    }

    public static Behavior<Command> create(String sessionId) {
        return org.apache.pekko.actor.typed.javadsl.Behaviors.setup(context -> new SessionEntity(
                PersistenceId.of(ENTITY_TYPE_KEY.name(), sessionId),
                JournalAvailability.get(context.getSystem()),
                EntityPluginConfig.of(context.getSystem())));
    }

    /** A failed write or recovery makes the node check whether the journal went away. */
    @Override
    public org.apache.pekko.persistence.typed.javadsl.SignalHandler<State> signalHandler() {
        return newSignalHandlerBuilder()
                .onSignal(
                        org.apache.pekko.persistence.typed.JournalPersistFailed.class,
                        (state, signal) -> journal.journalFailed(persistenceId().id(), signal.getFailure()))
                .onSignal(
                        org.apache.pekko.persistence.typed.RecoveryFailed.class,
                        (state, signal) -> journal.journalFailed(persistenceId().id(), signal.getFailure()))
                .build();
    }

    /** The system's settings, given so that Pekko does not merge them again at this start (EntityPluginConfig). */
    @Override
    public Optional<Config> journalPluginConfig() {
        return pluginConfig;
    }

    @Override
    public Optional<Config> snapshotPluginConfig() {
        return pluginConfig;
    }

    @Override
    public Recovery recovery() {
        return Recovery.withSnapshotSelectionCriteria(SnapshotSelectionCriteria.none());
    }

    @Override
    public State emptyState() {
        return new Empty();
    }

    @Override
    public CommandHandlerWithReply<Command, SessionEvent, State> commandHandler() {
        var builder = newCommandHandlerWithReplyBuilder();
        builder.forStateType(Empty.class)
                .onCommand(Open.class, this::onOpen)
                .onAnyCommand(command -> notFound(command));
        builder.forStateType(Active.class)
                .onCommand(
                        Open.class,
                        (state, command) -> owned(state, command.principal())
                                ? Effect().reply(command.replyTo(), state.view())
                                : notFound(command))
                .onCommand(
                        Get.class,
                        (state, command) -> owned(state, command.principal())
                                ? Effect().reply(command.replyTo(), state.view())
                                : notFound(command))
                .onCommand(
                        SetLogLevel.class,
                        (state, command) -> owned(state, command.principal())
                                ? persistThenView(new LogLevelSet(command.level(), Instant.now()), command.replyTo())
                                : notFound(command))
                .onCommand(
                        Subscribe.class,
                        (state, command) -> owned(state, command.principal())
                                ? persistThenView(
                                        new ResourceSubscribed(command.uri(), Instant.now()), command.replyTo())
                                : notFound(command))
                .onCommand(
                        Unsubscribe.class,
                        (state, command) -> owned(state, command.principal())
                                ? persistThenView(
                                        new ResourceUnsubscribed(command.uri(), Instant.now()), command.replyTo())
                                : notFound(command))
                .onCommand(
                        End.class,
                        (state, command) -> owned(state, command.principal())
                                ? Effect()
                                        .persist(new SessionEnded(Instant.now()))
                                        .thenReply(command.replyTo(), s -> new NotFound())
                                : notFound(command));
        builder.forStateType(Ended.class).onAnyCommand(command -> notFound(command));
        return builder.build();
    }

    private ReplyEffect<SessionEvent, State> onOpen(Empty state, Open command) {
        return persistThenView(
                new SessionOpened(
                        command.principal(),
                        command.protocolVersion(),
                        command.capabilities(),
                        command.clientInfo(),
                        Instant.now()),
                command.replyTo());
    }

    private ReplyEffect<SessionEvent, State> persistThenView(SessionEvent event, ActorRef<Reply> replyTo) {
        return Effect().persist(event).thenReply(replyTo, s -> ((Active) s).view());
    }

    private static boolean owned(Active state, String principal) {
        return state.opened().principal().equals(principal);
    }

    private ReplyEffect<SessionEvent, State> notFound(Command command) {
        return Effect().reply(command.replyTo(), new NotFound());
    }

    @Override
    public EventHandler<State, SessionEvent> eventHandler() {
        var builder = newEventHandlerBuilder();
        builder.forStateType(Empty.class)
                .onEvent(SessionOpened.class, (state, event) -> new Active(event, null, Set.of()));
        builder.forStateType(Active.class)
                .onEvent(LogLevelSet.class, (state, event) -> state.withLevel(event.level()))
                .onEvent(ResourceSubscribed.class, (state, event) -> state.with(event.uri(), true))
                .onEvent(ResourceUnsubscribed.class, (state, event) -> state.with(event.uri(), false))
                .onEvent(SessionEnded.class, (state, event) -> new Ended());
        return builder.build();
    }
}
