package io.pgrepl.flink.internal;

import io.pgrepl.client.replication.QualifiedName;
import io.pgrepl.client.snapshot.incremental.MalformedSignalException;
import io.pgrepl.client.snapshot.incremental.SnapshotSignal;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.flink.TableName;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream's side of snapshot signals: rows inserted into Debezium's signal table, read with the
 * client's parser ({@link SnapshotSignals}). An {@code execute-snapshot} names tables to read again;
 * the stream stops after the signal's transaction for them ({@link Resnapshot}). What the source
 * cannot do as asked is logged and the signal ignored, never half done: other signal types (the
 * stream waits while the tables are read, so there is nothing to pause or stop), additional
 * conditions and surrogate keys (a split reads its whole key range), names of tables the source
 * does not capture. A malformed signal is logged and the stream goes on, as in the client's engine.
 */
final class SignalWatch {
    private static final Logger log = LoggerFactory.getLogger(SignalWatch.class);

    private final Settings settings;
    private final Coverage coverage;
    /** The tables the signals of the open transaction ask for. */
    private final Set<TableName> requested = new LinkedHashSet<>();

    SignalWatch(Settings settings, Coverage coverage) {
        this.settings = settings;
        this.coverage = coverage;
    }

    /** Whether a change is a row of the signal table (then it is a signal, not a change to emit). */
    boolean isSignal(Relation rel) {
        TableName t = settings.signalTable();
        return t != null && t.table().equals(rel.name()) && t.schema().equals(rel.namespace());
    }

    /** Reads a signal row inserted by the transaction {@code xid} ending at {@code endLsn}. */
    void offer(Insert row, Relation rel, long xid, long endLsn) {
        Tuple t = row.newTuple();
        String where = "signal table row in the transaction ending at " + Lsn.format(endLsn);
        SnapshotSignal s;
        try {
            s = SnapshotSignals.parse(text(t, rel, "id"), text(t, rel, "type"), text(t, rel, "data"));
        } catch (MalformedSignalException e) {
            log.error("pgrepl source: malformed snapshot signal ({}): {}; ignored, the stream goes on", where, e.getMessage());
            return;
        }
        if (s.type() != SnapshotSignal.Type.EXECUTE) {
            log.warn("pgrepl source: snapshot signal {} ({}) ignored: the Flink source reads signalled tables while the stream waits,"
                    + " so there is no running snapshot to pause, resume or stop", s.type().signalName(), where);
            return;
        }
        if (!s.additionalConditions().isEmpty() || s.surrogateKey() != null) {
            log.error("pgrepl source: execute-snapshot ({}) ignored: the Flink source reads whole tables by their key, so"
                    + " additional-conditions and surrogate-key cannot be honoured; send the signal without them", where);
            return;
        }
        Set<TableName> hits = new LinkedHashSet<>();
        for (String name : s.dataCollections()) {
            boolean any = false;
            for (TableName c : settings.tables()) {
                if (SnapshotSignal.names(name, new QualifiedName(c.schema(), c.table()))) {
                    hits.add(c);
                    any = true;
                }
            }
            if (!any) {
                log.warn("pgrepl source: execute-snapshot ({}) names {}, which is no table this source captures ({}); left out",
                        where, name, settings.tables());
            }
        }
        for (TableName h : hits) {
            Coverage.Table cover = coverage.table(h);
            if (cover != null && cover.seen(xid) == Coverage.Seen.ALL) {
                log.info("pgrepl source: execute-snapshot ({}) for {}: every split of the table was read after the signal; not read again",
                        where, h);
                continue;
            }
            requested.add(h);
        }
        if (!hits.isEmpty()) log.info("pgrepl source: execute-snapshot ({}) for {}", where, hits);
    }

    /** {@return the tables the transaction's signals asked for (then forgotten), or null for none} */
    Resnapshot take() {
        if (requested.isEmpty()) return null;
        Resnapshot r = new Resnapshot(List.copyOf(requested), false);
        requested.clear();
        return r;
    }

    private static String text(Tuple t, Relation rel, String column) {
        for (int i = 0; i < rel.columns().size(); i++) {
            if (rel.columns().get(i).name().equals(column)) return t.hasValue(i) ? t.text(i) : null;
        }
        return null;
    }
}
