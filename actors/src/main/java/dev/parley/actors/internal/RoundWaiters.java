package dev.parley.actors.internal;

import dev.parley.actors.internal.ToolCallEntity.AwaitRound;
import dev.parley.actors.internal.ToolCallEntity.Reply;
import dev.parley.actors.internal.ToolCallEntity.RoundNotice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The 2025-11-25 era's part of a call in memory: the streams waiting for a round's outcome
 * ({@link AwaitRound}), and where the notifications of a run an answer starts go. Nothing here is
 * journaled: a stream whose call left memory asks again. At most {@link #MAX_PER_ROUND} streams
 * wait per round; the oldest asked long ago and has asked again since.
 */
final class RoundWaiters {
    static final int MAX_PER_ROUND = 16;

    private final Map<Integer, List<ActorRef<Reply>>> waiting = new HashMap<>();
    /** The latest waiting stream's relay, per round. */
    private final Map<Integer, ActorRef<RoundNotice>> noticesOfRound = new HashMap<>();
    /** Round 0 on a call not journaled yet: only the principal its first round runs for gets the outcome. */
    private final List<AwaitRound> waitingForFirstRound = new ArrayList<>();

    /** A stream waits for the first round of a call that is not journaled yet. */
    void awaitFirstRound(AwaitRound await) {
        if (waitingForFirstRound.size() == MAX_PER_ROUND) {
            waitingForFirstRound.remove(0);
        }
        waitingForFirstRound.add(await);
    }

    /** A stream waits for the outcome of the round the call is in. */
    void await(AwaitRound await) {
        List<ActorRef<Reply>> waiters = waiting.computeIfAbsent(await.round(), round -> new ArrayList<>());
        if (waiters.size() == MAX_PER_ROUND) {
            waiters.remove(0);
        }
        waiters.add(await.replyTo());
        if (await.notices() != null) {
            noticesOfRound.put(await.round(), await.notices());
        }
    }

    /** Where a run of {@code round} started by an answer sends its notifications; null: nowhere. */
    ActorRef<RoundNotice> noticesOf(int round) {
        return noticesOfRound.get(round);
    }

    /** Tells every stream waiting for {@code round} what it ended with. */
    void wake(int round, Reply outcome) {
        noticesOfRound.remove(round);
        List<ActorRef<Reply>> waiters = waiting.remove(round);
        if (waiters != null) {
            waiters.forEach(waiter -> waiter.tell(outcome));
        }
    }

    /** The first round ended for {@code principal}: its streams get {@code outcome}, any other {@code refused}. */
    void wakeFirstRound(String principal, Reply outcome, Reply refused) {
        waitingForFirstRound.forEach(
                waiter -> waiter.replyTo().tell(waiter.principal().equals(principal) ? outcome : refused));
        waitingForFirstRound.clear();
    }
}
