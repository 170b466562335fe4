package io.pgrepl.codec.pgoutput;

/**
 * One column of a Relation message, matched to TupleData columns by position.
 *
 * @param flags   the column flags byte; bit 0 = part of the replica identity key
 * @param name    column name
 * @param typeOid type OID (user-defined types are described by a preceding Type message)
 * @param typmod  atttypmod, -1 when the type has none
 */
public record ColumnInfo(int flags, String name, int typeOid, int typmod) {
    /** The flags bit of a replica identity key column. */
    public static final int FLAG_KEY = 1;

    /**
     * Whether the column is part of the replica identity key.
     *
     * @return true when {@link #FLAG_KEY} is set
     */
    public boolean isKey() {
        return (flags & FLAG_KEY) != 0;
    }
}
