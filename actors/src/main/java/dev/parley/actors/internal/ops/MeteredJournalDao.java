package dev.parley.actors.internal.ops;

import dev.parley.actors.internal.PekkoStages;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.persistence.jdbc.config.JournalConfig;
import org.apache.pekko.persistence.jdbc.journal.dao.DefaultJournalDao;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.stream.Materializer;
import scala.collection.immutable.Seq;
import scala.concurrent.ExecutionContext;
import scala.concurrent.Future;
import scala.jdk.javaapi.FutureConverters;
import scala.runtime.BoxedUnit;
import slick.jdbc.JdbcBackend;
import slick.jdbc.JdbcProfile;

/**
 * pekko-persistence-jdbc's journal DAO, timed: configured as {@code jdbc-journal.dao}, it reports
 * each database transaction the DAO's write queue makes (the rows of many entities' writes,
 * batched while the previous transaction ran) with its row count and duration.
 */
public class MeteredJournalDao extends DefaultJournalDao {
    private final ParleyMetrics.JournalMeters meters;

    /** The constructor pekko-persistence-jdbc calls for {@code jdbc-journal.dao}. */
    public MeteredJournalDao(
            JdbcBackend.JdbcDatabaseDef db,
            JdbcProfile profile,
            JournalConfig journalConfig,
            Serialization serialization,
            ExecutionContext ec,
            Materializer mat) {
        super(db, profile, journalConfig, serialization, ec, mat);
        this.meters = ParleyMetrics.get(Adapter.toTyped(serialization.system())).journal();
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"}) // the row type is a case class nested in a Scala object
    public Future<BoxedUnit> writeJournalRows(Seq rows) {
        long started = System.nanoTime();
        int size = rows.size();
        Future<BoxedUnit> written = super.writeJournalRows(rows);
        // On the completing thread: a plain whenComplete would start a thread per batch (see PekkoStages).
        PekkoStages.direct(FutureConverters.asJava(written))
                .whenComplete((done, failure) -> meters.batch(failure == null, size, System.nanoTime() - started));
        return written;
    }
}
