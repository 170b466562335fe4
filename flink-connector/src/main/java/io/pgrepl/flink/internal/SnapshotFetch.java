package io.pgrepl.flink.internal;

import io.pgrepl.client.snapshot.incremental.KeyRangeRead;
import io.pgrepl.client.snapshot.incremental.KeyRangeReader;
import io.pgrepl.client.snapshot.incremental.KeyedTable;
import io.pgrepl.client.snapshot.incremental.TablePlanner;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import io.pgrepl.flink.PgChange;
import io.pgrepl.flink.PgreplFlinkException;
import io.pgrepl.flink.TableName;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;

/**
 * Reads snapshot splits one piece per fetch on one ordinary connection, with the client's
 * {@link KeyRangeReader}: each piece is one REPEATABLE READ transaction of at most
 * {@code scan.snapshot.fetch.size} rows after the split's last piece. A split whose piece came back
 * short is finished.
 */
final class SnapshotFetch implements AutoCloseable {
    private final Settings settings;
    private final Map<TableName, KeyedTable> plans = new HashMap<>();
    private KeyRangeReader reader;

    SnapshotFetch(Settings settings) {
        this.settings = settings;
    }

    /**
     * Reads the next piece of {@code split} into {@code out}.
     *
     * @return the split with that piece added
     */
    SnapshotSplit next(SnapshotSplit split, RecordsBySplits.Builder<Element> out) {
        KeyRangeReader r = reader();
        KeyedTable plan = plan(r, split);
        List<String> after = split.resumeAfter();
        try (KeyRangeRead read = Db.await(r.read(plan, after, split.upTo(), settings.fetchSize()), settings,
                "reading split " + split.id(), Db.TIMEOUT.multipliedBy(10))) {
            String snapshot = read.snapshot().toString();
            long lsn = read.lsn();
            TableName table = split.table();
            int[] keys = plan.keyColumnIndexes();
            read.forEach(row -> out.add(split.id(), new Element.Read(
                    new PgChange(PgChange.Op.READ, table, null, false, PgOutputRecords.tuple(row), 0, 0, 0), keys, snapshot, lsn)));
            boolean full = read.rowCount() >= settings.fetchSize();
            Piece piece = new Piece(full ? read.lastKey() : split.upTo(), snapshot, lsn, split.again());
            out.add(split.id(), new Element.PieceDone(piece, !full));
            List<Piece> pieces = new java.util.ArrayList<>(split.pieces());
            pieces.add(piece);
            return split.with(pieces, !full);
        }
    }

    private KeyRangeReader reader() {
        if (reader == null || !reader.connection().isOpen()) {
            if (reader != null) reader.close();
            reader = Db.await(KeyRangeReader.open(settings.connection(io.pgrepl.client.ReplicationMode.NONE), "UTC"), settings,
                    "connecting for snapshot reads", Db.TIMEOUT);
        }
        return reader;
    }

    /** The table's plan on this reader, checked against the key its ranges were planned by. */
    private KeyedTable plan(KeyRangeReader r, SnapshotSplit split) {
        KeyedTable k = plans.get(split.table());
        if (k == null) {
            k = Db.await(TablePlanner.plan(r.connection(), List.of(settings.publication()), split.table().quoted(), null), settings,
                    "planning table " + split.table(), Db.TIMEOUT);
            List<String> keys = k.keyColumns().stream().map(KeyedTable.Column::name).toList();
            if (!keys.equals(split.keyColumns())) {
                throw new PgreplFlinkException("table " + split.table() + " is now keyed by " + keys + ", but its snapshot splits were"
                        + " planned by " + split.keyColumns() + ": the key changed while the snapshot ran; start the job anew");
            }
            plans.put(split.table(), k);
        }
        return k;
    }

    @Override
    public void close() {
        if (reader != null) reader.close();
        reader = null;
    }
}
