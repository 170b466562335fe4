package io.pgrepl.client.schema;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A table's shape changed, or was seen for the first time, or the table was created or dropped:
 * delivered by every face of the stream just before the message that told it (a Relation message,
 * or a DDL capture message for {@link Kind#CREATE} and {@link Kind#DROP}), so before the first row
 * of the new shape and in the same transaction. Immutable.
 *
 * <p>The shapes are pgoutput's ({@link RelationInfo}: the published columns, their type OIDs and
 * modifiers, the replica identity key): {@link #before()} is the last one this stream delivered for
 * the relation id, {@link #after()} the new one. The difference is computed by column name; a
 * renamed column appears as renamed only when DDL capture reported the rename
 * ({@link #ddl()}), otherwise as one column dropped and one added.
 *
 * @param kind                   what happened
 * @param relationId             the table's OID (the relation id of its Relation messages)
 * @param before                 the earlier shape; null for {@link Kind#CREATE} and {@link Kind#FIRST_SEEN},
 *                               and for a {@link Kind#DROP} of a table this stream never received a Relation for
 * @param after                  the new shape; null for {@link Kind#CREATE} (no Relation yet: the DDL's
 *                               {@link DdlCommand#table()} describes it) and {@link Kind#DROP}
 * @param added                  columns of {@code after} that {@code before} did not have
 * @param dropped                columns of {@code before} that {@code after} does not have
 * @param retyped                columns whose type OID or type modifier changed (renamed ones included)
 * @param renamed                columns renamed, as reported by DDL capture
 * @param keyChanged             the replica identity key columns changed (names, or their order)
 * @param replicaIdentityChanged the REPLICA IDENTITY setting changed
 * @param ddl                    the captured DDL commands on this table since the previous event for it,
 *                               in order; empty without DDL capture
 */
public record SchemaChange(Kind kind, int relationId, RelationInfo before, RelationInfo after, List<ColumnInfo> added,
                           List<ColumnInfo> dropped, List<ColumnChange> retyped, List<ColumnChange> renamed,
                           boolean keyChanged, boolean replicaIdentityChanged, List<DdlCommand> ddl) {
    /** What the event says happened. */
    public enum Kind {
        /**
         * The table was created (DDL capture): delivered with the creating statement's message,
         * before any row. Its first Relation follows with its first row, as {@link #FIRST_SEEN}.
         */
        CREATE,
        /** A Relation differs from the last one delivered for the table, or DDL capture reported a statement on it. */
        ALTER,
        /** The table was dropped (DDL capture). */
        DROP,
        /**
         * A Relation for a table this stream knew no shape of: its first row since the table was
         * created, or the first Relation after the stream (or the process) started, when pgoutput
         * announces every table again. Compare it with what you have; it need not be a change.
         */
        FIRST_SEEN
    }

    /** Copies the lists. */
    public SchemaChange {
        Objects.requireNonNull(kind, "kind");
        added = List.copyOf(added);
        dropped = List.copyOf(dropped);
        retyped = List.copyOf(retyped);
        renamed = List.copyOf(renamed);
        ddl = List.copyOf(ddl);
    }

    /** {@return the table's schema: the new shape's, else the DDL's, else the old shape's} */
    public String schema() {
        if (after != null) return after.schema();
        DdlCommand d = lastDdl();
        if (d != null) return d.schema();
        return before == null ? null : before.schema();
    }

    /** {@return the table's name: the new shape's, else the DDL's, else the old shape's} */
    public String table() {
        if (after != null) return after.name();
        DdlCommand d = lastDdl();
        if (d != null && d.table() != null) return d.table().name();
        if (d != null) return d.name();
        return before == null ? null : before.name();
    }

    /** {@return true when the table has another name than before (RENAME TO)} */
    public boolean tableRenamed() {
        return before != null && after != null && !before.name().equals(after.name());
    }

    /** {@return true when the table moved to another schema (SET SCHEMA)} */
    public boolean schemaMoved() {
        return before != null && after != null && !before.namespace().equals(after.namespace());
    }

    /**
     * Whether the published shape differs: columns added, dropped, renamed or retyped, another
     * key, replica identity, name or schema. False for an {@link Kind#ALTER} that only carries a
     * captured statement which changed nothing pgoutput sends (a default, a constraint, ...).
     *
     * @return true when the shape changed
     */
    public boolean shapeChanged() {
        return !added.isEmpty() || !dropped.isEmpty() || !retyped.isEmpty() || !renamed.isEmpty() || keyChanged
                || replicaIdentityChanged || tableRenamed() || schemaMoved() || columnsReordered();
    }

    /**
     * Whether columns that both shapes have come in another order: a column dropped and added
     * again under the same name moves to the end (DDL capture tells; without it only the order does).
     *
     * @return true when the common columns' order differs
     */
    public boolean columnsReordered() {
        if (before == null || after == null) return false;
        List<String> a = new ArrayList<>();
        for (ColumnInfo c : after.columns()) if (before.columns().stream().anyMatch(b -> b.name().equals(c.name()))) a.add(c.name());
        List<String> b = new ArrayList<>();
        for (ColumnInfo c : before.columns()) if (a.contains(c.name())) b.add(c.name());
        return !a.equals(b);
    }

    private DdlCommand lastDdl() {
        return ddl.isEmpty() ? null : ddl.get(ddl.size() - 1);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("SchemaChange[").append(kind).append(' ').append(schema()).append('.').append(table());
        if (tableRenamed() || schemaMoved()) b.append(" was ").append(before.schema()).append('.').append(before.name());
        if (!added.isEmpty()) b.append(" added=").append(names(added));
        if (!dropped.isEmpty()) b.append(" dropped=").append(names(dropped));
        for (ColumnChange r : renamed) b.append(" renamed ").append(r.before().name()).append("->").append(r.after().name());
        for (ColumnChange r : retyped) {
            b.append(" retyped ").append(r.after().name()).append(' ').append(r.before().typeOid()).append('(').append(r.before().typmod())
                    .append(")->").append(r.after().typeOid()).append('(').append(r.after().typmod()).append(')');
        }
        if (keyChanged) b.append(" key changed");
        if (replicaIdentityChanged) b.append(" replica identity ").append(before.replicaIdentity()).append("->").append(after.replicaIdentity());
        if (!ddl.isEmpty()) b.append(" ddl=").append(ddl.size());
        return b.append(']').toString();
    }

    private static List<String> names(List<ColumnInfo> cols) {
        List<String> n = new ArrayList<>(cols.size());
        for (ColumnInfo c : cols) n.add(c.name());
        return n;
    }
}
