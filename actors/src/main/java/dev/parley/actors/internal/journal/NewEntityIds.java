package dev.parley.actors.internal.journal;

import dev.parley.actors.internal.EntityIds;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;

/**
 * Persistence ids this node has just minted ({@link EntityIds}) and whose entity has not recovered
 * yet. Such an entity has no events: nobody else knows its id yet. So its first recovery may skip
 * the journal's highest-sequence-number query (one read per new call) and start at 0;
 * {@link dev.parley.actors.internal.ops.MeteredJdbcJournal} asks {@link #claim} before it queries.
 *
 * <p>An id is remembered only while the command that creates its entity ({@code Start},
 * {@code Create}) is in flight: the minting code calls {@link #forget} once that ask has ended,
 * whatever its outcome. Until then no other command can reach the entity (the client learns the
 * id from that command's reply), so should the entity recover here after all with events in the
 * journal (it started on another node, wrote, and that node died), the creating command tries to
 * write sequence number 1 again: the journal's unique {@code (persistence_id, sequence_number)}
 * key refuses it, and the entity restarts and recovers its real events. Nothing is overwritten,
 * and nothing is answered from an empty state. Each id is claimed at most once.
 *
 * <p>Bounded: beyond {@link #CAPACITY} the oldest ids are dropped (a dropped id only costs its query).
 */
public final class NewEntityIds implements Extension {
    static final int CAPACITY = 8192;

    private static final ExtensionId<NewEntityIds> ID = new ExtensionId<>() {
        @Override
        public NewEntityIds createExtension(ActorSystem<?> system) {
            return new NewEntityIds();
        }
    };

    private final Map<String, Boolean> minted = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > CAPACITY;
        }
    };

    public static NewEntityIds get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    /** A new entity id ({@link EntityIds#next()}) of {@code type}, remembered as new. */
    public String mint(EntityTypeKey<?> type) {
        String id = EntityIds.next();
        remember(PersistenceId.of(type.name(), id).id());
        return id;
    }

    /** {@code persistenceId} was minted on this node and has never been written. */
    public synchronized void remember(String persistenceId) {
        minted.put(persistenceId, Boolean.TRUE);
    }

    /** The creating command of {@code id} has ended: its entity's recoveries query as usual. */
    public void forget(EntityTypeKey<?> type, String id) {
        claim(PersistenceId.of(type.name(), id).id());
    }

    /** Whether {@code persistenceId} is new (once: the next call answers false). */
    public synchronized boolean claim(String persistenceId) {
        return minted.remove(persistenceId) != null;
    }
}
