package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Stream Start 'S'. */
public record StreamStart(long xid, int firstSegment) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_START;
    }
}
