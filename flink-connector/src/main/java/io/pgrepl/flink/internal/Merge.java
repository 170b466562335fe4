package io.pgrepl.flink.internal;

import io.pgrepl.client.tx.Transaction;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.flink.PgChange;
import io.pgrepl.flink.PgreplFlinkException;
import io.pgrepl.flink.TableName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The stream side of the merge: turns a transaction's records into the changes to emit, dropping
 * each side of a change (the old key of an update or delete, the new row of an insert or update)
 * that the snapshot piece holding its key already saw ({@link Coverage}). An update whose old side
 * is dropped becomes an insert of its new row; one whose new side is dropped becomes a delete of
 * its old key. Also fills an update's unchanged TOASTed values from the whole old row.
 */
final class Merge implements AutoCloseable {
    /** Receives a change to emit and the ordinal of its record in the transaction. */
    interface Sink {
        void accept(PgChange change, long ordinal);
    }

    private final Settings settings;
    private final Coverage coverage;
    private final KeyLocator locator;
    /** How the coverage saw the open transaction, per table (decided once per transaction). */
    private final Map<TableName, Coverage.Seen> seen = new HashMap<>();
    private long xid;

    Merge(Settings settings, Coverage coverage) {
        this.settings = settings;
        this.coverage = coverage;
        this.locator = new KeyLocator(settings);
    }

    static TableName tableOf(Relation r) {
        return new TableName(r.namespace().isEmpty() ? "pg_catalog" : r.namespace(), r.name());
    }

    void startTransaction(Transaction t) {
        seen.clear();
        xid = t.xid();
    }

    /** A record's two sides and where their keys fall. */
    private static final class Pending {
        final PgOutputRecord record;
        final long ordinal;
        final TableName table;
        final Coverage.Table cover;
        Coverage.Seen how;
        List<String> oldKey;
        List<String> newKey;
        int oldPiece = -1;
        int newPiece = -1;

        Pending(PgOutputRecord record, long ordinal, TableName table, Coverage.Table cover, Coverage.Seen how) {
            this.record = record;
            this.ordinal = ordinal;
            this.table = table;
            this.cover = cover;
            this.how = how;
        }
    }

    /** Decides a batch of the transaction's records (one key lookup per table for the batch at most) and hands on what to emit, in order. */
    void changes(Transaction t, List<PgOutputRecord> batch, List<Long> ordinals, Set<TableName> captured, Sink sink) {
        List<Pending> pending = new ArrayList<>(batch.size());
        Map<Coverage.Table, List<Pending>> toLocate = new HashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            PgOutputRecord r = batch.get(i);
            int oid;
            if (r instanceof Insert ins) oid = ins.relationOid();
            else if (r instanceof Update u) oid = u.relationOid();
            else if (r instanceof Delete d) oid = d.relationOid();
            else continue;
            Relation rel = t.relation(oid);
            if (rel == null) throw new IllegalStateException("no Relation message for relation " + oid + " before its change");
            TableName name = tableOf(rel);
            if (!captured.contains(name)) continue;
            Coverage.Table cover = coverage.table(name);
            Coverage.Seen how = cover == null ? Coverage.Seen.NONE : seen.computeIfAbsent(name, n -> cover.seen(xid));
            Pending p = new Pending(r, ordinals.get(i), name, cover, how);
            pending.add(p);
            if (how == Coverage.Seen.SOME) {
                keys(p, rel);
                toLocate.computeIfAbsent(cover, c -> new ArrayList<>()).add(p);
            }
        }
        toLocate.forEach(this::locate);
        for (Pending p : pending) emit(t, p, sink);
    }

    private void keys(Pending p, Relation rel) {
        List<String> keyNames = locator.keyColumns(p.table);
        if (p.record instanceof Insert ins) {
            p.newKey = key(ins.newTuple(), rel, keyNames, p.table);
        } else if (p.record instanceof Update u) {
            p.newKey = key(u.newTuple(), rel, keyNames, p.table);
            p.oldKey = u.oldTuple() == null ? p.newKey : key(u.oldTuple(), rel, keyNames, p.table);
        } else if (p.record instanceof Delete d) {
            p.oldKey = key(d.oldTuple(), rel, keyNames, p.table);
        }
    }

    private static List<String> key(Tuple t, Relation rel, List<String> keyNames, TableName table) {
        List<String> out = new ArrayList<>(keyNames.size());
        for (String k : keyNames) {
            int at = -1;
            for (int i = 0; i < rel.columns().size(); i++) {
                if (rel.columns().get(i).name().equals(k)) at = i;
            }
            if (at < 0 || !t.hasValue(at)) throw KeyLocator.noKey(table, k);
            out.add(t.text(at));
        }
        return out;
    }

    private void locate(Coverage.Table cover, List<Pending> ps) {
        List<List<String>> keys = new ArrayList<>();
        for (Pending p : ps) {
            if (p.oldKey != null) keys.add(p.oldKey);
            if (p.newKey != null) keys.add(p.newKey);
        }
        int[] at = locator.locate(cover, keys);
        int i = 0;
        for (Pending p : ps) {
            if (p.oldKey != null) p.oldPiece = at[i++];
            if (p.newKey != null) p.newPiece = at[i++];
        }
    }

    /** Whether the snapshot already holds one side of a change: ALL yes, NONE no, SOME by the key's piece. */
    private boolean held(Pending p, int piece) {
        return switch (p.how) {
            case ALL -> true;
            case NONE -> false;
            case SOME -> p.cover.seenBy(piece, xid);
        };
    }

    private void emit(Transaction t, Pending p, Sink sink) {
        long lsn = t.commitLsn();
        long time = t.commitTimeMicros();
        if (p.record instanceof Insert ins) {
            if (!held(p, p.newPiece)) sink.accept(new PgChange(PgChange.Op.INSERT, p.table, null, false, ins.newTuple(), xid, lsn, time), p.ordinal);
        } else if (p.record instanceof Delete d) {
            if (!held(p, p.oldPiece)) {
                sink.accept(new PgChange(PgChange.Op.DELETE, p.table, d.oldTuple(), d.oldTupleKind() == 'O', null, xid, lsn, time), p.ordinal);
            }
        } else if (p.record instanceof Update u) {
            boolean oldHeld = held(p, p.oldPiece);
            boolean newHeld = held(p, p.newPiece);
            if (oldHeld && newHeld) return;
            boolean whole = u.oldTupleKind() == 'O';
            if (newHeld) {
                // the new row is in the snapshot, the old key still is too: retract the old key only
                sink.accept(new PgChange(PgChange.Op.DELETE, p.table, u.oldTuple(), whole, null, xid, lsn, time), p.ordinal);
                return;
            }
            Tuple after = filled(u, p.table);
            if (oldHeld) {
                sink.accept(new PgChange(PgChange.Op.INSERT, p.table, null, false, after, xid, lsn, time), p.ordinal);
            } else {
                sink.accept(new PgChange(PgChange.Op.UPDATE, p.table, u.oldTuple(), whole, after, xid, lsn, time), p.ordinal);
            }
        }
    }

    /** The update's new row with unchanged TOASTed values taken from the whole old row. */
    private static Tuple filled(Update u, TableName table) {
        Tuple n = u.newTuple();
        boolean unchanged = false;
        for (int i = 0; i < n.size(); i++) unchanged |= n.kind(i) == ColumnKind.UNCHANGED_TOAST;
        if (!unchanged) return n;
        Tuple o = u.oldTupleKind() == 'O' ? u.oldTuple() : null;
        List<ColumnValue> cols = new ArrayList<>(n.size());
        for (int i = 0; i < n.size(); i++) {
            if (n.kind(i) != ColumnKind.UNCHANGED_TOAST) {
                cols.add(n.get(i));
            } else if (o != null && i < o.size() && o.kind(i) != ColumnKind.UNCHANGED_TOAST && o.kind(i) != ColumnKind.ABSENT) {
                cols.add(new ColumnValue(n.name(i), n.typeOid(i), o.kind(i), o.hasValue(i) ? o.bytes(i) : null));
            } else {
                throw new PgreplFlinkException("an update of " + table + " left column \"" + n.name(i) + "\" unchanged and"
                        + " stored out of line (TOAST), so PostgreSQL did not send its value, and the table's replica identity"
                        + " sends no old row to take it from: run ALTER TABLE " + table.quoted() + " REPLICA IDENTITY FULL");
            }
        }
        return new Tuple(cols);
    }

    @Override
    public void close() {
        locator.close();
    }
}
