package dev.parley.actors.internal.ops;

import com.typesafe.config.Config;
import dev.parley.actors.internal.PekkoStages;
import dev.parley.actors.internal.journal.NewEntityIds;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.jdbc.journal.JdbcAsyncWriteJournal;
import scala.Function1;
import scala.collection.immutable.Seq;
import scala.concurrent.Future;
import scala.jdk.javaapi.FutureConverters;
import scala.runtime.BoxedUnit;
import scala.util.Try;

/**
 * pekko-persistence-jdbc's journal, timed: configured as {@code jdbc-journal.class}
 * (parley-node.conf), it reports every write an entity hands it (from handing over to the
 * acknowledgement, so the wait for the database batch is included) and every replay of an
 * entity's events when it recovers. The database batches themselves are {@link MeteredJournalDao}'s.
 */
public class MeteredJdbcJournal extends JdbcAsyncWriteJournal {
    private final ParleyMetrics.JournalMeters meters;
    private final NewEntityIds newEntityIds;

    public MeteredJdbcJournal(Config config) {
        super(config);
        this.meters = ParleyMetrics.get(Adapter.toTyped(system())).journal();
        this.newEntityIds = NewEntityIds.get(Adapter.toTyped(system()));
    }

    /** A new entity's first recovery needs no query: it has no events (see NewEntityIds). */
    @Override
    public Future<Object> asyncReadHighestSequenceNr(String persistenceId, long fromSequenceNr) {
        return newEntityIds.claim(persistenceId)
                ? Future.successful(0L)
                : super.asyncReadHighestSequenceNr(persistenceId, fromSequenceNr);
    }

    @Override
    public Future<Seq<Try<BoxedUnit>>> asyncWriteMessages(Seq<AtomicWrite> messages) {
        long started = System.nanoTime();
        Future<Seq<Try<BoxedUnit>>> written = super.asyncWriteMessages(messages);
        // On the completing thread: a plain whenComplete would start a thread per write (see PekkoStages).
        PekkoStages.direct(FutureConverters.asJava(written)).whenComplete((results, failure) -> {
            long events = 0;
            if (results != null) {
                // Empty when every write succeeded, else one result per AtomicWrite: a rejected one (e.g.
                // not serializable) wrote none of its events.
                for (int i = 0; i < messages.size(); i++) {
                    if (results.isEmpty() || results.apply(i).isSuccess()) {
                        events += messages.apply(i).size();
                    }
                }
            }
            meters.written(failure == null, events, System.nanoTime() - started);
        });
        return written;
    }

    @Override
    public Future<BoxedUnit> asyncReplayMessages(
            String persistenceId,
            long fromSequenceNr,
            long toSequenceNr,
            long max,
            Function1<PersistentRepr, BoxedUnit> recoveryCallback) {
        long started = System.nanoTime();
        AtomicLong events = new AtomicLong();
        Future<BoxedUnit> replayed =
                super.asyncReplayMessages(persistenceId, fromSequenceNr, toSequenceNr, max, event -> {
                    events.incrementAndGet();
                    return recoveryCallback.apply(event);
                });
        PekkoStages.direct(FutureConverters.asJava(replayed))
                .whenComplete(
                        (done, failure) -> meters.replayed(failure == null, events.get(), System.nanoTime() - started));
        return replayed;
    }
}
