package io.pgrepl.codec.pgoutput;

import java.util.Objects;

/** Truncate 'T' (PG11+): [Int32 xid], Int32 nrels, Int8 options, nrels × Int32 relation OID. */
public final class TruncateMessage extends StreamableMessage {
    public static final int OPTION_CASCADE = 1;
    public static final int OPTION_RESTART_IDENTITY = 2;

    int count;
    PgOutputState state;

    @Override
    public byte type() {
        return PgOutputMessageType.TRUNCATE;
    }

    public int relationCount() {
        return count;
    }

    public int options() {
        return buf.getUnsignedByte(body + 4);
    }

    public boolean cascade() {
        return (options() & OPTION_CASCADE) != 0;
    }

    public boolean restartIdentity() {
        return (options() & OPTION_RESTART_IDENTITY) != 0;
    }

    public int relationOid(int i) {
        Objects.checkIndex(i, count);
        return buf.getInt(body + 5 + 4 * i);
    }

    /** The cached Relation for the {@code i}-th OID, or null if none was sent. */
    public RelationInfo relation(int i) {
        return state.relation(relationOid(i));
    }
}
