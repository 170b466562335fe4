package io.pgrepl.benchmarks;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import java.util.BitSet;

/**
 * What the soak's application keeps: the changes of each transaction are buffered (as longs)
 * until its Commit, then applied at most once, de-duplicated by commit end LSN (at-least-once
 * delivery made exactly-once by the application). Compact on purpose: a bit per row id, a
 * counter per counter row, so that the heap reflects the client, not the bookkeeping.
 * Event loop only, except the volatile progress fields.
 */
final class SoakState implements LogicalStreamHandler {
    static final int COUNTERS = 1000;
    /** The marker row id the writer inserts last. */
    static final long MARKER = -1;

    final BitSet inserted = new BitSet();
    final BitSet deleted = new BitSet();
    final long[] counters = new long[COUNTERS];
    volatile long appliedEnd;
    volatile long changesApplied;
    volatile long transactionsApplied;
    volatile long duplicateTransactions;
    volatile long anomalies;
    volatile boolean markerSeen;
    volatile int connections;
    private long[] buffer = new long[1024];
    private int buffered;

    @Override
    public void onStarted(LogicalReplicationStream s) {
        connections++;
        buffered = 0; // a transaction cut off by the last connection comes again whole
    }

    @Override
    public void onBegin(BeginMessage m) {
        buffered = 0;
    }

    // Encoding: op in the top 2 bits (1 insert, 2 delete, 3 counter update), the id or counter below.
    @Override
    public void onInsert(InsertMessage m) {
        if (m.relation().name().equals("soak_rows")) add(1L << 62 | (m.newTuple().int8(0) & 0x3fffffffffffffffL));
    }

    @Override
    public void onDelete(DeleteMessage m) {
        add(2L << 62 | m.oldTuple().int8(0));
    }

    @Override
    public void onUpdate(UpdateMessage m) {
        add(3L << 62 | m.newTuple().int8(0));
    }

    private void add(long change) {
        if (buffered == buffer.length) buffer = java.util.Arrays.copyOf(buffer, buffer.length * 2);
        buffer[buffered++] = change;
    }

    @Override
    public void onCommit(CommitMessage m) {
        long end = m.endLsn();
        if (Long.compareUnsigned(end, appliedEnd) <= 0) {
            duplicateTransactions++;
            buffered = 0;
            return;
        }
        for (int i = 0; i < buffered; i++) {
            long c = buffer[i];
            long op = c >>> 62;
            long v = c & 0x3fffffffffffffffL;
            if (op == 1) {
                if (v == (MARKER & 0x3fffffffffffffffL)) {
                    markerSeen = true;
                    continue;
                }
                if (inserted.get((int) v)) anomalies++;
                inserted.set((int) v);
            } else if (op == 2) {
                if (!inserted.get((int) v) || deleted.get((int) v)) anomalies++;
                deleted.set((int) v);
            } else {
                counters[(int) v]++;
            }
        }
        changesApplied += buffered;
        transactionsApplied++;
        buffered = 0;
        appliedEnd = Lsn.max(appliedEnd, end);
    }
}
