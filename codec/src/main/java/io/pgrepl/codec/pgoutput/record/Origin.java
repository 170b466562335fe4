package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Origin 'O'. */
public record Origin(long originLsn, String name) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.ORIGIN;
    }
}
