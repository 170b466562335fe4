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
 *
 * <p>A table read again while the job ran differs in one way: the changelog may already hold keys
 * that its new pieces lack, so a removal the pieces saw cannot simply be dropped. It is held
 * ({@link HeldDelete}): dropped if a later change the pieces saw puts the key back (the read row
 * holds it), else emitted before the key's next change or once the stream passes everything the
 * pieces saw, whichever comes first.
 *
 * <p>Pieces read after a failure ({@link Piece#again}) are treated the same way for their own keys:
 * the split's earlier attempt may have emitted rows of their range, after the checkpoint it was
 * restored from, that a sink not rolled back to that checkpoint still holds; a row removed before
 * the piece was read is then in that sink but in neither the piece nor, without this, the stream.
 */
final class Merge implements AutoCloseable {
    /** Receives what to emit: changes with the ordinal of their record in the transaction, and held removals. */
    interface Sink {
        void accept(PgChange change, long ordinal);

        void hold(HeldDelete delete);

        void release(HeldKey key);

        void flush(HeldDelete delete);
    }

    private final Settings settings;
    private final Coverage coverage;
    private final KeyLocator locator;
    /** How the coverage saw the open transaction, per table (decided once per transaction). */
    private final Map<TableName, Coverage.Seen> seen = new HashMap<>();
    private long xid;
    /** Tables read again whose pieces' horizon the stream has not passed yet, with that horizon (the last piece LSN). */
    private final Map<TableName, Long> window = new HashMap<>();
    private final Map<HeldKey, HeldDelete> held = new java.util.LinkedHashMap<>();
    private final Map<TableName, KeyAt> keyAt = new HashMap<>();
    /** Tables read again whole (a signal, a lost slot): every removal their pieces saw is held, not only those of pieces read again. */
    private final java.util.Set<TableName> rereadWhole;

    Merge(Settings settings, Coverage coverage) {
        this(settings, coverage, java.util.Set.of(), List.of(), Map.of());
    }

    Merge(Settings settings, Coverage coverage, java.util.Set<TableName> reread, List<HeldDelete> heldBefore,
          Map<TableName, List<Piece>> pieces) {
        this.settings = settings;
        this.coverage = coverage;
        this.locator = new KeyLocator(settings);
        this.rereadWhole = java.util.Set.copyOf(reread);
        for (TableName t : reread) {
            long horizon = 0;
            for (Piece p : pieces.getOrDefault(t, List.of())) if (Long.compareUnsigned(p.lsn(), horizon) > 0) horizon = p.lsn();
            window.put(t, horizon);
        }
        // Pieces read after a failure: an earlier attempt may have emitted rows of their ranges that a sink not rolled back
        // to the checkpoint still holds. A retracting changelog (whole old rows required) cannot take a delete of a row it
        // may not hold, and its sink must be transactional anyway, so there they are left as they are.
        if (!settings.fullIdentityRequired()) {
            pieces.forEach((t, ps) -> {
                for (Piece p : ps) {
                    if (p.again()) window.merge(t, p.lsn(), (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
                }
            });
        }
        for (HeldDelete h : heldBefore) held.put(new HeldKey(h.table(), h.key()), h);
    }

    static TableName tableOf(Relation r) {
        return new TableName(r.namespace().isEmpty() ? "pg_catalog" : r.namespace(), r.name());
    }

    void startTransaction(Transaction t, Sink sink) {
        seen.clear();
        xid = t.xid();
        passed(t.endLsn(), sink);
    }

    /**
     * The stream reached {@code lsn}: a transaction ending there or later is newer than every piece
     * of a table whose horizon lies before it, and the table's held removals are due.
     */
    void passed(long lsn, Sink sink) {
        if (window.isEmpty()) return;
        for (java.util.Iterator<Map.Entry<TableName, Long>> it = window.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TableName, Long> w = it.next();
            if (Long.compareUnsigned(lsn, w.getValue()) <= 0) continue;
            for (java.util.Iterator<HeldDelete> h = held.values().iterator(); h.hasNext(); ) {
                HeldDelete d = h.next();
                if (!d.table().equals(w.getKey())) continue;
                sink.flush(d);
                h.remove();
            }
            it.remove();
        }
    }

    /** A record's two sides and where their keys fall. */
    private static final class Pending {
        final PgOutputRecord record;
        final long ordinal;
        final TableName table;
        final Relation rel;
        final Coverage.Table cover;
        Coverage.Seen how;
        List<String> oldKey;
        List<String> newKey;
        int oldPiece = -1;
        int newPiece = -1;

        Pending(PgOutputRecord record, long ordinal, TableName table, Relation rel, Coverage.Table cover, Coverage.Seen how) {
            this.rel = rel;
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
            Pending p = new Pending(r, ordinals.get(i), name, rel, cover, how);
            pending.add(p);
            if (how == Coverage.Seen.SOME || how == Coverage.Seen.ALL && window.containsKey(name) && !rereadWhole.contains(name)
                    && !(r instanceof Insert)) {
                // a removal every piece saw is held only if its key's piece was read again: that needs the piece
                keys(p, rel);
                toLocate.computeIfAbsent(cover, c -> new ArrayList<>()).add(p);
            } else if (window.containsKey(name)) {
                keys(p, rel);
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
        if (window.containsKey(p.table)) {
            emitReread(t, p, sink);
            return;
        }
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
                sink.accept(new PgChange(PgChange.Op.UPDATE, p.table, u.oldTuple(), whole, after, xid, lsn, time, keyChanged(p, u, after)),
                        p.ordinal);
            }
        }
    }

    /** A change of a table read again, inside its pieces' window: seen removals are held, seen re-creations release them. */
    private void emitReread(Transaction t, Pending p, Sink sink) {
        long lsn = t.commitLsn();
        long time = t.commitTimeMicros();
        if (p.record instanceof Insert ins) {
            if (held(p, p.newPiece)) {
                release(p.table, p.newKey, sink);
            } else {
                flush(p.table, p.newKey, sink);
                sink.accept(new PgChange(PgChange.Op.INSERT, p.table, null, false, ins.newTuple(), xid, lsn, time), p.ordinal);
            }
        } else if (p.record instanceof Delete d) {
            boolean whole = d.oldTupleKind() == 'O';
            if (held(p, p.oldPiece)) {
                if (holdable(p, p.oldPiece)) hold(HeldDelete.of(p.table, p.oldKey, d.oldTuple(), whole, xid, lsn, time), sink);
            } else {
                flush(p.table, p.oldKey, sink);
                sink.accept(new PgChange(PgChange.Op.DELETE, p.table, d.oldTuple(), whole, null, xid, lsn, time), p.ordinal);
            }
        } else if (p.record instanceof Update u) {
            boolean oldHeld = held(p, p.oldPiece);
            boolean newHeld = held(p, p.newPiece);
            boolean moved = !p.oldKey.equals(p.newKey);
            boolean whole = u.oldTupleKind() == 'O';
            if (oldHeld && moved && holdable(p, p.oldPiece)) hold(HeldDelete.of(p.table, p.oldKey, u.oldTuple(), whole, xid, lsn, time), sink);
            if (newHeld) release(p.table, p.newKey, sink);
            if (oldHeld && newHeld) return;
            if (newHeld) {
                flush(p.table, p.oldKey, sink);
                sink.accept(new PgChange(PgChange.Op.DELETE, p.table, u.oldTuple(), whole, null, xid, lsn, time), p.ordinal);
                return;
            }
            Tuple after = filled(u, p.table);
            if (!oldHeld) flush(p.table, p.oldKey, sink);
            if (moved || oldHeld) flush(p.table, p.newKey, sink);
            if (oldHeld) {
                sink.accept(new PgChange(PgChange.Op.INSERT, p.table, null, false, after, xid, lsn, time), p.ordinal);
            } else {
                sink.accept(new PgChange(PgChange.Op.UPDATE, p.table, u.oldTuple(), whole, after, xid, lsn, time, moved), p.ordinal);
            }
        }
    }

    /**
     * Whether a removal the pieces saw may be of a row the changelog still holds: any, in a table read
     * again whole; else only in a piece read after an earlier attempt may have emitted its range's rows.
     */
    private boolean holdable(Pending p, int piece) {
        return rereadWhole.contains(p.table) || p.cover != null && p.cover.again(piece);
    }

    /**
     * Whether an update moved its row to another key. Without an old tuple the key stayed; with the
     * old key ('K', sent when an identity column changed or is stored out of line) the identity
     * columns it carries are compared; with the whole old row ('O') the table's key columns.
     */
    private boolean keyChanged(Pending p, Update u, Tuple now) {
        if (p.oldKey != null && p.newKey != null) return !p.oldKey.equals(p.newKey);
        Tuple old = u.oldTuple();
        if (old == null) return false;
        if (u.oldTupleKind() == 'K') {
            for (int i = 0; i < old.size() && i < now.size(); i++) {
                if (old.hasValue(i) && !old.valueEquals(i, now, i)) return true;
            }
            return false;
        }
        for (int i : keyIndexes(p)) {
            if (!old.valueEquals(i, now, i)) return true;
        }
        return false;
    }

    /** Where a table's key columns are in its Relation (looked up again when the server sends a new Relation). */
    private int[] keyIndexes(Pending p) {
        KeyAt k = keyAt.get(p.table);
        if (k != null && k.rel == p.rel) return k.at;
        List<String> names = locator.keyColumns(p.table);
        int[] at = new int[names.size()];
        for (int n = 0; n < at.length; n++) {
            at[n] = -1;
            for (int i = 0; i < p.rel.columns().size(); i++) {
                if (p.rel.columns().get(i).name().equals(names.get(n))) at[n] = i;
            }
            if (at[n] < 0) throw KeyLocator.noKey(p.table, names.get(n));
        }
        keyAt.put(p.table, new KeyAt(p.rel, at));
        return at;
    }

    private record KeyAt(Relation rel, int[] at) {}

    private void hold(HeldDelete d, Sink sink) {
        held.put(new HeldKey(d.table(), d.key()), d);
        sink.hold(d);
    }

    private void release(TableName t, List<String> key, Sink sink) {
        HeldKey k = new HeldKey(t, key);
        if (held.remove(k) != null) sink.release(k);
    }

    private void flush(TableName t, List<String> key, Sink sink) {
        HeldDelete d = held.remove(new HeldKey(t, key));
        if (d != null) sink.flush(d);
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
