package io.pgrepl.codec.pgoutput;

import java.util.Objects;

/** Truncate 'T' (PG11+): [Int32 xid], Int32 nrels, Int8 options, nrels × Int32 relation OID. */
public final class TruncateMessage extends StreamableMessage {
    /** Options bit 1: TRUNCATE ... CASCADE. */
    public static final int OPTION_CASCADE = 1;
    /** Options bit 2: TRUNCATE ... RESTART IDENTITY. */
    public static final int OPTION_RESTART_IDENTITY = 2;

    int count;
    PgOutputState state;

    @Override
    public byte type() {
        return PgOutputMessageType.TRUNCATE;
    }

    /**
     * Number of relations truncated together.
     *
     * @return the relation count
     */
    public int relationCount() {
        return count;
    }

    /**
     * The Int8 option bits, see {@link #OPTION_CASCADE} and {@link #OPTION_RESTART_IDENTITY}.
     *
     * @return the options byte
     */
    public int options() {
        return buf.getUnsignedByte(body + 4);
    }

    /**
     * Whether CASCADE was given.
     *
     * @return true if {@link #OPTION_CASCADE} is set
     */
    public boolean cascade() {
        return (options() & OPTION_CASCADE) != 0;
    }

    /**
     * Whether RESTART IDENTITY was given.
     *
     * @return true if {@link #OPTION_RESTART_IDENTITY} is set
     */
    public boolean restartIdentity() {
        return (options() & OPTION_RESTART_IDENTITY) != 0;
    }

    /**
     * The OID of the {@code i}-th truncated relation.
     *
     * @param i zero-based index, below {@link #relationCount()}
     * @return the relation's {@code pg_class} OID
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public int relationOid(int i) {
        Objects.checkIndex(i, count);
        return buf.getInt(body + 5 + 4 * i);
    }

    /**
     * The cached Relation for the {@code i}-th OID, or null if none was sent.
     *
     * @param i zero-based index, below {@link #relationCount()}
     * @return the relation, or null
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public RelationInfo relation(int i) {
        return state.relation(relationOid(i));
    }
}
