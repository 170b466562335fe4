package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Stream Stop 'E'. */
public record StreamStop() implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_STOP;
    }
}
