package io.pgrepl.cli;

import io.pgrepl.client.schema.CatalogColumn;
import io.pgrepl.client.schema.CatalogTable;
import io.pgrepl.client.schema.ColumnChange;
import io.pgrepl.client.schema.DdlCommand;
import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * The {@code schema} line of {@code pgrepl stream --schema-changes} (docs/cli.md): one
 * {@link SchemaChange} as one JSON object, written before the first row of the new shape.
 */
final class SchemaJson {
    private SchemaJson() {}

    /**
     * @param c        the change
     * @param xid      the transaction's xid (json format), or -1 for none
     * @param lsn      the message's LSN (protocol format), or null for none
     * @param typeName a type's name by OID (built-in names, and those of Type messages)
     * @return the line, {@code \n}-terminated
     */
    static String line(SchemaChange c, long xid, String lsn, IntFunction<String> typeName) {
        Json.Obj o = Json.object().put("type", "schema");
        if (lsn != null) o.put("lsn", lsn);
        if (xid != -1) o.put("xid", xid);
        o.put("change", c.kind().name().toLowerCase(Locale.ROOT))
                .put("relation_id", Integer.toUnsignedLong(c.relationId()))
                .put("schema", c.schema()).put("table", c.table())
                .put("before", shape(c.before(), typeName)).put("after", shape(c.after(), typeName));
        List<Object> added = new ArrayList<>();
        for (ColumnInfo a : c.added()) added.add(a.name());
        List<Object> dropped = new ArrayList<>();
        for (ColumnInfo d : c.dropped()) dropped.add(d.name());
        List<Object> renamed = new ArrayList<>();
        for (ColumnChange r : c.renamed()) renamed.add(Json.object().put("from", r.before().name()).put("to", r.after().name()));
        List<Object> retyped = new ArrayList<>();
        for (ColumnChange r : c.retyped()) {
            retyped.add(Json.object().put("column", r.after().name())
                    .put("type", typeName.apply(r.after().typeOid())).put("type_modifier", r.after().typmod())
                    .put("previous_type", typeName.apply(r.before().typeOid())).put("previous_type_modifier", r.before().typmod()));
        }
        o.put("added", added).put("dropped", dropped).put("renamed", renamed).put("retyped", retyped)
                .put("key_changed", c.keyChanged()).put("replica_identity_changed", c.replicaIdentityChanged())
                .put("table_renamed", c.tableRenamed()).put("schema_moved", c.schemaMoved());
        List<Object> ddl = new ArrayList<>();
        for (DdlCommand d : c.ddl()) {
            ddl.add(Json.object().put("event", d.event()).put("tag", d.commandTag()).put("object_type", d.objectType())
                    .put("identity", d.identity()).put("column", d.column()).put("query", d.query()));
        }
        o.put("ddl", ddl);
        if (c.kind() == SchemaChange.Kind.CREATE && c.ddl().get(0).table() != null) o.put("definition", definition(c.ddl().get(0).table()));
        return o + "\n";
    }

    private static Json.Obj shape(RelationInfo r, IntFunction<String> typeName) {
        if (r == null) return null;
        List<Object> cols = new ArrayList<>();
        for (ColumnInfo c : r.columns()) {
            cols.add(Json.object().put("name", c.name()).put("type", typeName.apply(c.typeOid()))
                    .put("type_oid", Integer.toUnsignedLong(c.typeOid())).put("type_modifier", c.typmod()).put("key", c.isKey()));
        }
        return Json.object().put("schema", r.schema()).put("table", r.name())
                .put("replica_identity", String.valueOf(r.replicaIdentity())).put("columns", cols);
    }

    /** The created table as the catalog had it: type names with their modifiers, NOT NULL, defaults, primary key. */
    private static Json.Obj definition(CatalogTable t) {
        List<Object> cols = new ArrayList<>();
        for (CatalogColumn c : t.columns()) {
            cols.add(Json.object().put("name", c.name()).put("type", c.type()).put("type_oid", Integer.toUnsignedLong(c.typeOid()))
                    .put("type_modifier", c.typmod()).put("not_null", c.notNull()).put("default", c.defaultValue())
                    .put("generated", c.generated()));
        }
        return Json.object().put("schema", t.schema()).put("table", t.name()).put("kind", String.valueOf(t.kind()))
                .put("replica_identity", String.valueOf(t.replicaIdentity())).put("primary_key", new ArrayList<Object>(t.primaryKey()))
                .put("columns", cols);
    }
}
