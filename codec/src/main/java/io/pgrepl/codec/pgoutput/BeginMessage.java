package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/** Begin 'B': Int64 final_lsn, Int64 commit time, Int32 xid. */
public final class BeginMessage extends PgOutputMessage {
    static final int LENGTH = 21;

    @Override
    public byte type() {
        return PgOutputMessageType.BEGIN;
    }

    /** LSN of the transaction's commit record. */
    public long finalLsn() {
        return buf.getLong(start + 1);
    }

    /** Commit time in PostgreSQL microseconds since 2000-01-01 UTC. */
    public long commitTimeMicros() {
        return buf.getLong(start + 9);
    }

    public Instant commitTime() {
        return instant(commitTimeMicros());
    }

    /** Top-level xid, unsigned. */
    public long xid() {
        return buf.getUnsignedInt(start + 17);
    }
}
