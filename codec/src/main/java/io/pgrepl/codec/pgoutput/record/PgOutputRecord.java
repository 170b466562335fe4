package io.pgrepl.codec.pgoutput.record;

/**
 * Immutable copies of pgoutput messages, for applications that keep messages beyond the
 * callback (allocation accepted). Built by {@link PgOutputRecords}. Times are PostgreSQL
 * microseconds (see {@link io.pgrepl.codec.PgTime}); xids are unsigned 32-bit values in a long.
 * On messages that can be streamed, {@code xid} is 0 (InvalidTransactionId) outside a stream block.
 */
public sealed interface PgOutputRecord
        permits Begin, Commit, Origin, Relation, Type, Insert, Update, Delete, Truncate, Message,
        StreamStart, StreamStop, StreamCommit, StreamAbort, BeginPrepare, Prepare, CommitPrepared,
        RollbackPrepared, StreamPrepare {
    /**
     * The pgoutput type byte.
     *
     * @return one of the {@link io.pgrepl.codec.pgoutput.PgOutputMessageType} constants, e.g. {@code 'B'} for Begin
     */
    byte type();
}
