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
 * Persistence ids this node has just minted ({@link EntityIds}) and
 * whose entity has not recovered yet. Such an entity has no events: nobody else can know its id.
 * So its first recovery may skip the journal's highest-sequence-number query (one read per new
 * call) and start at 0; {@link dev.parley.actors.internal.ops.MeteredJdbcJournal} asks
 * {@link #claim} before it queries. Each id is claimed at most once; a later recovery (after
 * passivation, a restart, on another node) queries as usual. Should an event exist after all, its
 * write fails on the journal's unique {@code (persistence_id, sequence_number)} key and the entity
 * restarts and recovers from the journal: nothing can be overwritten.
 *
 * <p>Bounded: ids whose entity starts on another node of a cluster are never claimed here, so the
 * oldest are dropped beyond {@link #CAPACITY} (a dropped id only costs its query).
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

    /** Whether {@code persistenceId} is new (once: the next call answers false). */
    public synchronized boolean claim(String persistenceId) {
        return minted.remove(persistenceId) != null;
    }
}
