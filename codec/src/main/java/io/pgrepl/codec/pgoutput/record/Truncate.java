package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;
import java.util.List;
/** Truncate 'T'; options bit 1 CASCADE, bit 2 RESTART IDENTITY. */
public record Truncate(long xid, int options, List<Integer> relationOids) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.TRUNCATE;
    }
}
