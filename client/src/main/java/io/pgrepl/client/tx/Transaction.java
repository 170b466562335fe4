package io.pgrepl.client.tx;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * One assembled transaction: its changes (Relation/Type/Origin records in their places, then
 * Insert/Update/Delete/Truncate/transactional Message) in server order, without Begin/Commit and
 * stream framing. Changes that were spilled to disk are read back on iteration; {@link #close()}
 * (or {@link #acknowledge()}) deletes the spill file, after which the changes are gone. The file
 * belongs to this object, not to the stream: it outlives the stream's end.
 */
public final class Transaction implements TxEvent, AutoCloseable {
    /**
     * The last resort for a spilled transaction that the application received and dropped without
     * closing or acknowledging it: its file goes when the transaction is garbage collected.
     */
    private static final Cleaner SPILL_CLEANER = Cleaner.create();

    /** Why this transaction was delivered. */
    public enum Kind {
        /** B…C or a streamed transaction ended by Stream Commit. */
        COMMITTED,
        /** b…P or a streamed transaction ended by Stream Prepare ({@link PreparedDelivery#AT_PREPARE}). */
        PREPARED,
        /** A prepared transaction delivered at COMMIT PREPARED ({@link PreparedDelivery#AT_COMMIT_PREPARED}). */
        COMMIT_PREPARED
    }

    private final Kind kind;
    private final long xid;
    private final String gid;
    private final long commitLsn;
    private final long endLsn;
    private final long commitTimeMicros;
    private final String origin;
    private final boolean streamed;
    private final TxBuffer buffer;
    private final LongConsumer acknowledger;
    private final IntFunction<Relation> relations;
    /** Deletes the spill file once: at close(), or when an unclosed transaction is collected. */
    private final Cleaner.Cleanable spillCleanup;

    Transaction(Kind kind, long xid, String gid, long commitLsn, long endLsn, long commitTimeMicros, String origin,
                boolean streamed, TxBuffer buffer, LongConsumer acknowledger, IntFunction<Relation> relations) {
        this.kind = kind;
        this.xid = xid;
        this.gid = gid;
        this.commitLsn = commitLsn;
        this.endLsn = endLsn;
        this.commitTimeMicros = commitTimeMicros;
        this.origin = origin;
        this.streamed = streamed;
        this.buffer = buffer;
        this.acknowledger = acknowledger;
        this.relations = relations;
        // The action holds the buffer, never this transaction, or it would never become unreachable.
        this.spillCleanup = buffer.spilled() ? SPILL_CLEANER.register(this, buffer::delete) : null;
    }

    /** {@return how the transaction ended: committed, prepared, or committed after being prepared} */
    public Kind kind() {
        return kind;
    }

    /** {@return the top-level xid (unsigned 32-bit in a long)} */
    public long xid() {
        return xid;
    }

    /** {@return the global identifier of a two-phase transaction, else null} */
    public String gid() {
        return gid;
    }

    /** {@return the LSN of the commit (or prepare) record} */
    public long commitLsn() {
        return commitLsn;
    }

    /** {@return the end LSN of the commit (or prepare) record: what {@link #acknowledge()} confirms} */
    public long endLsn() {
        return endLsn;
    }

    /** {@return the commit (or prepare) time, microseconds since 2000-01-01 UTC as pgoutput sends it} */
    public long commitTimeMicros() {
        return commitTimeMicros;
    }

    /** {@return the commit (or prepare) time} */
    public Instant commitTime() {
        return PgTime.toInstant(commitTimeMicros);
    }

    /** {@return the replication origin name from an Origin message, else null} */
    public String origin() {
        return origin;
    }

    /** {@return true when the server streamed this transaction before it ended (Stream Start … Stream Commit/Prepare)} */
    public boolean streamed() {
        return streamed;
    }

    /** {@return true when some changes were spilled to disk (the memory budget was exceeded)} */
    public boolean spilled() {
        return buffer.spilled();
    }

    /** {@return the number of records in {@link #changes()}} */
    public int size() {
        return buffer.count();
    }

    /** {@return the estimated heap size of all changes, in bytes} */
    public long estimatedBytes() {
        return buffer.totalBytes();
    }

    /**
     * The changes in server order. Can be iterated more than once until {@link #close()}; spilled
     * changes are read back from disk on each iteration, so memory stays bounded.
     *
     * @return the changes
     */
    public Iterable<PgOutputRecord> changes() {
        return this::iterator;
    }

    /** {@return all changes in one list; loads spilled changes into memory} */
    public List<PgOutputRecord> changeList() {
        List<PgOutputRecord> l = new ArrayList<>(buffer.count());
        for (Iterator<PgOutputRecord> it = iterator(); it.hasNext(); ) l.add(it.next());
        return l;
    }

    /** An iterator that keeps this transaction reachable, so the cleaner cannot delete the file under it. */
    private Iterator<PgOutputRecord> iterator() {
        Iterator<PgOutputRecord> records = buffer.iterator();
        if (spillCleanup == null) return records;
        Transaction owner = this;
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                try {
                    return records.hasNext();
                } finally {
                    Reference.reachabilityFence(owner);
                }
            }

            @Override
            public PgOutputRecord next() {
                try {
                    return records.next();
                } finally {
                    Reference.reachabilityFence(owner);
                }
            }
        };
    }

    /**
     * The latest Relation seen for {@code oid} on this stream, or null.
     *
     * @param oid the relation OID of a change
     * @return the Relation message
     */
    public Relation relation(int oid) {
        return relations.apply(oid);
    }

    @Override
    public long ackLsn() {
        return endLsn;
    }

    /** Confirms {@link #endLsn()} and releases the changes (see {@link #close()}). */
    @Override
    public void acknowledge() {
        close();
        if (acknowledger != null) acknowledger.accept(endLsn);
    }

    /**
     * Deletes the spill file, if any, and drops the changes. Idempotent; does not acknowledge. A
     * transaction owns its file from delivery on: the stream's end does not delete it, so one still
     * queued for a subscriber stays readable. The reactive face closes the transactions it drops
     * undelivered (cancel); one received and never closed loses its file when garbage collected.
     */
    @Override
    public void close() {
        buffer.delete();
        if (spillCleanup != null) spillCleanup.clean();
    }

    @Override
    public String toString() {
        return "Transaction[" + kind + ", xid=" + Long.toUnsignedString(xid) + (gid == null ? "" : ", gid=" + gid)
                + ", endLsn=" + Lsn.format(endLsn) + ", changes=" + buffer.count()
                + (streamed ? ", streamed" : "") + (buffer.spilled() ? ", spilled" : "") + "]";
    }
}
