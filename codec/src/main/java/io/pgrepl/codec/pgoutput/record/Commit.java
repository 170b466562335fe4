package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Commit 'C'. */
public record Commit(int flags, long commitLsn, long endLsn, long commitTimeMicros) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.COMMIT;
    }
}
