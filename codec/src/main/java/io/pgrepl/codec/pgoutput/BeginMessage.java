package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/** Begin 'B': Int64 final_lsn, Int64 commit time, Int32 xid. */
public final class BeginMessage extends PgOutputMessage {
    static final int LENGTH = 21;

    @Override
    public byte type() {
        return PgOutputMessageType.BEGIN;
    }

    /**
     * The LSN of the transaction's commit record.
     *
     * @return the final LSN
     */
    public long finalLsn() {
        return buf.getLong(start + 1);
    }

    /**
     * The commit time in PostgreSQL microseconds since 2000-01-01 UTC.
     *
     * @return the commit time
     */
    public long commitTimeMicros() {
        return buf.getLong(start + 9);
    }

    /**
     * The commit time.
     *
     * @return the commit time as an Instant
     */
    public Instant commitTime() {
        return instant(commitTimeMicros());
    }

    /**
     * The top-level transaction's xid.
     *
     * @return the xid, unsigned 32-bit
     */
    public long xid() {
        return buf.getUnsignedInt(start + 17);
    }
}
