package io.pgrepl.codec.pgoutput;

import java.util.Arrays;
import java.util.List;

/**
 * Decoded Relation message, cached by OID in {@link PgOutputState} and replaced by every new one.
 * Immutable, so it may be kept after the callback that delivered it.
 */
public final class RelationInfo {
    public static final char REPLICA_IDENTITY_DEFAULT = 'd';
    public static final char REPLICA_IDENTITY_NOTHING = 'n';
    public static final char REPLICA_IDENTITY_FULL = 'f';
    public static final char REPLICA_IDENTITY_INDEX = 'i';

    private final int oid;
    private final String namespace;
    private final String name;
    private final char replicaIdentity;
    private final ColumnInfo[] columns;
    private final int[] keyColumns;

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

    public int oid() {
        return oid;
    }

    /** Namespace as sent: empty means pg_catalog. */
    public String namespace() {
        return namespace;
    }

    /** Namespace with the empty shorthand expanded to pg_catalog. */
    public String schema() {
        return namespace.isEmpty() ? "pg_catalog" : namespace;
    }

    public String name() {
        return name;
    }

    /** relreplident: 'd' default, 'n' nothing, 'f' full, 'i' index. */
    public char replicaIdentity() {
        return replicaIdentity;
    }

    public int columnCount() {
        return columns.length;
    }

    public ColumnInfo column(int i) {
        return columns[i];
    }

    public List<ColumnInfo> columns() {
        return List.of(columns);
    }

    /** Number of columns flagged as part of the replica identity key. */
    public int keyColumnCount() {
        return keyColumns.length;
    }

    /** Position (within this relation's columns) of the {@code k}-th key column. */
    public int keyColumnIndex(int k) {
        return keyColumns[k];
    }

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
