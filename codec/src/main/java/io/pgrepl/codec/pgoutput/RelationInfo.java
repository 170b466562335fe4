package io.pgrepl.codec.pgoutput;

import java.util.Arrays;
import java.util.List;

/**
 * Decoded Relation message, cached by OID in {@link PgOutputState} and replaced by every new one.
 * Immutable, so it may be kept after the callback that delivered it.
 */
public final class RelationInfo {
    /** REPLICA IDENTITY DEFAULT: the primary key identifies old rows. */
    public static final char REPLICA_IDENTITY_DEFAULT = 'd';
    /** REPLICA IDENTITY NOTHING: old rows are not identified. */
    public static final char REPLICA_IDENTITY_NOTHING = 'n';
    /** REPLICA IDENTITY FULL: the whole old row is sent. */
    public static final char REPLICA_IDENTITY_FULL = 'f';
    /** REPLICA IDENTITY USING INDEX: the columns of a chosen unique index identify old rows. */
    public static final char REPLICA_IDENTITY_INDEX = 'i';

    private final int oid;
    private final String namespace;
    private final String name;
    private final char replicaIdentity;
    private final ColumnInfo[] columns;
    private final int[] keyColumns;

    /**
     * A relation as a Relation message describes it.
     *
     * @param oid             the relation's OID
     * @param namespace       its namespace as sent (empty for pg_catalog)
     * @param name            its name
     * @param replicaIdentity relreplident: 'd', 'n', 'f' or 'i'
     * @param columns         its columns in attribute order
     */
    public RelationInfo(int oid, String namespace, String name, char replicaIdentity, List<ColumnInfo> columns) {
        this.oid = oid;
        this.namespace = namespace;
        this.name = name;
        this.replicaIdentity = replicaIdentity;
        this.columns = columns.toArray(new ColumnInfo[0]);
        int keys = 0;
        for (ColumnInfo c : this.columns) if (c.isKey()) keys++;
        this.keyColumns = new int[keys];
        for (int i = 0, k = 0; i < this.columns.length; i++) if (this.columns[i].isKey()) keyColumns[k++] = i;
    }

    /**
     * The relation's OID, which Insert, Update, Delete and Truncate messages refer to.
     *
     * @return the OID
     */
    public int oid() {
        return oid;
    }

    /**
     * The namespace as sent: empty means pg_catalog.
     *
     * @return the namespace
     */
    public String namespace() {
        return namespace;
    }

    /**
     * The namespace with the empty shorthand expanded to pg_catalog.
     *
     * @return the schema name
     */
    public String schema() {
        return namespace.isEmpty() ? "pg_catalog" : namespace;
    }

    /**
     * The relation's name, without schema.
     *
     * @return the table name
     */
    public String name() {
        return name;
    }

    /**
     * The replica identity setting (relreplident).
     *
     * @return 'd' default, 'n' nothing, 'f' full, 'i' index
     */
    public char replicaIdentity() {
        return replicaIdentity;
    }

    /**
     * The number of published columns.
     *
     * @return the column count
     */
    public int columnCount() {
        return columns.length;
    }

    /**
     * Column {@code i} in attribute order.
     *
     * @param i the column index, from 0
     * @return the column
     */
    public ColumnInfo column(int i) {
        return columns[i];
    }

    /**
     * All columns in attribute order.
     *
     * @return an unmodifiable list
     */
    public List<ColumnInfo> columns() {
        return List.of(columns);
    }

    /**
     * The number of columns flagged as part of the replica identity key.
     *
     * @return the key column count
     */
    public int keyColumnCount() {
        return keyColumns.length;
    }

    /**
     * Where the {@code k}-th key column is among this relation's columns.
     *
     * @param k the key column's index, from 0
     * @return its column index
     */
    public int keyColumnIndex(int k) {
        return keyColumns[k];
    }

    /**
     * Whether column {@code column} is part of the replica identity key.
     *
     * @param column the column index, from 0
     * @return true for a key column
     */
    public boolean isKey(int column) {
        return columns[column].isKey();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RelationInfo r && r.oid == oid && r.replicaIdentity == replicaIdentity
                && r.namespace.equals(namespace) && r.name.equals(name) && Arrays.equals(r.columns, columns);
    }

    @Override
    public int hashCode() {
        return oid * 31 + name.hashCode();
    }

    @Override
    public String toString() {
        return "RelationInfo[" + oid + " " + schema() + "." + name + " identity=" + replicaIdentity
                + " columns=" + Arrays.toString(columns) + "]";
    }
}
