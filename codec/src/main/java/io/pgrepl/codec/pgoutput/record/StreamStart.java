package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Stream Start 'S'.
 *
 * @param xid          top-level xid of the streamed transaction
 * @param firstSegment 1 if this is the first stream block for the xid, else 0
 */
public record StreamStart(long xid, int firstSegment) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_START;
    }
}
