package io.pgrepl.flink.internal;

import io.pgrepl.client.snapshot.incremental.TransactionSnapshot;
import io.pgrepl.flink.TableName;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the snapshot splits already hold, for the stream split's merge: per table its pieces in key
 * order, each with the transaction snapshot it was read under. A stream change of a key inside a
 * piece whose snapshot saw the change's transaction is already in that piece's rows and is dropped;
 * every other change is newer than the row the piece emitted for its key and is emitted.
 *
 * <p>Why that is exact: two transactions that change the same key take the same row lock (or wait
 * on each other at the key's unique index), so the later one commits after the earlier one left
 * the running set; a snapshot that sees the later one therefore sees the earlier one too. The
 * changes of one key a piece's snapshot saw thus form a prefix of that key's changes in commit (and
 * stream) order, and the piece's row is the state after that prefix: dropping the prefix and
 * emitting the rest, after the piece's row, gives the key's changes exactly once.
 *
 * <p>Most transactions need no key at all: one that every piece of the table saw (committed before
 * the first piece was read) or none saw (committed after the last) is decided for the whole table.
 * Only those that committed while the table was being read need the piece of each key, which the
 * server tells ({@link KeyLocator}: keys are compared in the table's own types and collations,
 * as the pieces' bounds were).
 */
final class Coverage {
    /** How the pieces of one table saw a transaction. */
    enum Seen {
        /** Every piece saw it: its changes of the table are all in the snapshot rows. */
        ALL,
        /** No piece saw it: its changes all come after the snapshot rows. */
        NONE,
        /** Some did: each key's piece decides. */
        SOME
    }

    /** One table's pieces. */
    static final class Table {
        final TableName name;
        final List<Piece> pieces;
        final TransactionSnapshot[] snapshots;
        private final long minXmin;
        private final long maxXmax;

        Table(TableName name, List<Piece> pieces) {
            this.name = name;
            this.pieces = pieces;
            this.snapshots = new TransactionSnapshot[pieces.size()];
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            for (int i = 0; i < snapshots.length; i++) {
                snapshots[i] = TransactionSnapshot.parse(pieces.get(i).snapshot());
                lo = Math.min(lo, snapshots[i].xmin());
                hi = Math.max(hi, snapshots[i].xmax());
            }
            this.minXmin = lo;
            this.maxXmax = hi;
        }

        Seen seen(long xid32) {
            if (snapshots.length == 0) return Seen.NONE;
            long x = snapshots[0].widen(xid32);
            if (x < minXmin) return Seen.ALL;
            if (x >= maxXmax) return Seen.NONE;
            int seen = 0;
            for (TransactionSnapshot s : snapshots) if (s.sees(xid32)) seen++;
            return seen == 0 ? Seen.NONE : seen == snapshots.length ? Seen.ALL : Seen.SOME;
        }

        /** {@return whether the piece at {@code index} saw the transaction} */
        boolean seenBy(int index, long xid32) {
            return snapshots[index].sees(xid32);
        }

        /** {@return whether the piece at {@code index} was read after an earlier attempt may have emitted rows of its range} */
        boolean again(int index) {
            return index >= 0 && pieces.get(index).again();
        }
    }

    private final Map<TableName, Table> tables = new HashMap<>();

    Coverage(Map<TableName, List<Piece>> coverage) {
        coverage.forEach((t, pieces) -> tables.put(t, new Table(t, pieces)));
    }

    /** {@return the table's pieces, or null when it was not snapshotted (every change is emitted)} */
    Table table(TableName t) {
        return tables.get(t);
    }

    boolean isEmpty() {
        return tables.isEmpty();
    }
}
