package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Rollback Prepared 'r'. */
public record RollbackPrepared(int flags, long prepareEndLsn, long rollbackEndLsn, long prepareTimeMicros, long rollbackTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.ROLLBACK_PREPARED;
    }
}
