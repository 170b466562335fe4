package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;
import java.util.List;
/**
 * Truncate 'T'; options bit 1 CASCADE, bit 2 RESTART IDENTITY.
 *
 * @param xid          xid of the transaction, an unsigned 32-bit value; 0 outside a stream block
 * @param options      Int8 options: bit 1 CASCADE, bit 2 RESTART IDENTITY
 * @param relationOids OIDs of the truncated relations
 */
public record Truncate(long xid, int options, List<Integer> relationOids) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.TRUNCATE;
    }
}
