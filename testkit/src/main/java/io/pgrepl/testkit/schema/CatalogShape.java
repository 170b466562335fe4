package io.pgrepl.testkit.schema;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A table's shape as the catalog has it, in the terms of a pgoutput Relation message: its columns in
 * {@code attnum} order (dropped ones left out), each with its type OID, type modifier and whether it
 * belongs to the replica identity key (the primary key under REPLICA IDENTITY DEFAULT, the chosen
 * index's columns under USING INDEX, every column under FULL, none under NOTHING). Read from
 * {@code pg_class}, {@code pg_attribute} and {@code pg_index}: the expectations of the schema-change
 * tests come from here, never from the code under test.
 *
 * @param oid             the table's OID
 * @param schema          its schema
 * @param name            its name
 * @param replicaIdentity {@code relreplident}
 * @param columns         its columns
 */
public record CatalogShape(int oid, String schema, String name, char replicaIdentity, List<Column> columns) {
    /** One column; {@code attnum} is what tells a rename (same number) from a drop and an add (a new number). */
    public record Column(int attnum, String name, int typeOid, int typmod, boolean key) {
        /** {@return {@code name:typeOid:typmod:key}, the form the tests compare} */
        public String describe() {
            return name + ":" + Integer.toUnsignedString(typeOid) + ":" + typmod + ":" + (key ? 1 : 0);
        }
    }

    /** {@return the columns as {@link Column#describe()} strings} */
    public List<String> describe() {
        return columns.stream().map(Column::describe).collect(Collectors.toList());
    }

    /** {@return the column with this attnum, or null} */
    public Column byAttnum(int attnum) {
        for (Column c : columns) if (c.attnum == attnum) return c;
        return null;
    }

    /** {@return the column with this name, or null} */
    public Column byName(String name) {
        for (Column c : columns) if (c.name.equals(name)) return c;
        return null;
    }

    /** Whether pgoutput would describe both the same way (names, types, key flags, identity, table name). */
    public boolean samePublishedShape(CatalogShape o) {
        return o != null && o.schema.equals(schema) && o.name.equals(name) && o.replicaIdentity == replicaIdentity
                && o.describe().equals(describe());
    }

    /** Reads the shapes of the given tables (those that still exist), by OID. */
    public static Map<Integer, CatalogShape> read(PgConnection conn, Collection<Integer> oids) throws Exception {
        Map<Integer, CatalogShape> out = new LinkedHashMap<>();
        if (oids.isEmpty()) return out;
        String in = oids.stream().map(Integer::toUnsignedString).collect(Collectors.joining(","));
        String sql = "SELECT c.oid, n.nspname, c.relname, c.relreplident, a.attnum, a.attname, a.atttypid, a.atttypmod,"
                + " CASE c.relreplident WHEN 'f' THEN true WHEN 'n' THEN false"
                + "   WHEN 'd' THEN EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY (i.indkey))"
                + "   ELSE EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisreplident AND a.attnum = ANY (i.indkey)) END"
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
                + " WHERE c.oid IN (" + in + ") ORDER BY c.oid, a.attnum";
        Map<Integer, List<Column>> cols = new LinkedHashMap<>();
        Map<Integer, String[]> heads = new LinkedHashMap<>();
        for (Row r : conn.query(sql).toCompletableFuture().get(60, TimeUnit.SECONDS).rows()) {
            int oid = Integer.parseUnsignedInt(r.get(0));
            heads.putIfAbsent(oid, new String[] {r.get(1), r.get(2), r.get(3)});
            cols.computeIfAbsent(oid, k -> new ArrayList<>()).add(new Column(Integer.parseInt(r.get(4)), r.get(5),
                    Integer.parseUnsignedInt(r.get(6)), Integer.parseInt(r.get(7)), "t".equals(r.get(8))));
        }
        for (Integer oid : oids) {
            String[] h = heads.get(oid);
            if (h != null) out.put(oid, new CatalogShape(oid, h[0], h[1], h[2].charAt(0), List.copyOf(cols.get(oid))));
        }
        return out;
    }
}
