package io.pgrepl.testkit.schema;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tables rebuilt from a stream the way a sink keeping copies would: shapes from the schema-change
 * events (renamed columns carry their values, dropped ones lose them, added ones start NULL, a
 * dropped table goes), rows from inserts, updates and deletes, matched by the columns their old
 * tuple carries, else by the key columns of the new one. Values are text; numeric ones are kept
 * normalized, since widening a numeric's scale rewrites the stored values without streaming them.
 */
public final class Rebuilt {
    private final Map<Integer, Table> tables = new LinkedHashMap<>();
    /** Without DDL capture a renamed column's value is lost in rows not written since: match old tuples without it. */
    private final boolean valuesMayBeLost;
    /** Rows that could not be applied: kept, not thrown, so the stream goes on and the events can be compared first. */
    private final List<String> problems = new ArrayList<>();
    /** Tables a row was applied to (or tried): a CREATE must come before any. */
    private final java.util.Set<Integer> withRows = new java.util.HashSet<>();

    /** {@return the rows that could not be applied (no table, no matching row), in order} */
    public List<String> problems() {
        return problems;
    }

    private static final class Table {
        String schema;
        String name;
        /** {@code name:typeOid:typmod:key} per column. */
        List<String> columns = List.of();
        final List<Map<String, String>> rows = new ArrayList<>();
    }

    /** @param valuesMayBeLost true without DDL capture: an old tuple may then name a value this copy lost to a rename */
    public Rebuilt(boolean valuesMayBeLost) {
        this.valuesMayBeLost = valuesMayBeLost;
    }

    /** Applies a schema-change event; {@link ObservedChange#after()} null leaves the shape alone (CREATE) or drops (DROP). */
    public void schema(ObservedChange c) {
        if (c.kind().equals("CREATE") && withRows.contains(c.oid())) {
            problems.add(c.schema() + "." + c.table() + ": CREATE after rows of the table");
        }
        if (c.kind().equals("DROP")) {
            tables.remove(c.oid());
            return;
        }
        if (c.after() == null) return;
        Table t = tables.computeIfAbsent(c.oid(), k -> new Table());
        for (String r : c.renamed()) {
            String[] p = r.split("->", 2);
            for (Map<String, String> row : t.rows) {
                if (row.containsKey(p[0])) row.put(p[1], row.remove(p[0]));
            }
        }
        List<String> names = new ArrayList<>();
        for (String col : c.after()) names.add(name(col));
        for (Map<String, String> row : t.rows) {
            row.keySet().retainAll(names);
            for (String d : c.dropped()) if (c.added().contains(d)) row.remove(d); // dropped and added again: a new, empty column
            for (String col : c.after()) {
                String n = name(col);
                if (!row.containsKey(n)) row.put(n, null);
                else if (numeric(col)) row.put(n, normalize(row.get(n)));
            }
        }
        t.schema = c.schema();
        t.name = c.table();
        t.columns = c.after();
    }

    /**
     * An insert.
     *
     * @param oid    the table
     * @param values every column's text (null for NULL)
     */
    public void insert(int oid, Map<String, String> values) {
        Table t = table(oid);
        if (t == null) return;
        t.rows.add(normalized(t, new HashMap<>(values)));
    }

    /**
     * An incremental snapshot's read: the row as the table had it, replacing the row with the same
     * key, else added. A read must come in the shape the table's last schema-change event announced
     * (as a streamed row does): one in another shape is a problem, since a copy following the
     * events would then get a row its table has no columns for, or lose the values of new ones. The
     * table must have had its first event: reads of a table the stream has delivered no row of yet
     * come before its {@code FIRST_SEEN} (start the snapshot after one).
     *
     * @param oid    the table
     * @param shape  the read's columns, {@code name:typeOid} each, in order
     * @param values every column's text (null for NULL)
     * @param key    the names of the columns the read is keyed by
     */
    public void read(int oid, List<String> shape, Map<String, String> values, Collection<String> key) {
        Table t = table(oid);
        if (t == null) return;
        List<String> announced = new ArrayList<>();
        for (String c : t.columns) announced.add(c.substring(0, c.lastIndexOf(':', c.lastIndexOf(':') - 1)));
        if (!announced.equals(shape)) {
            String problem = t.name + ": a read in columns " + shape + " after the schema-change event that announced " + announced;
            if (!problems.contains(problem)) problems.add(problem); // once, not once per row
            return;
        }
        Map<String, String> row = normalized(t, new HashMap<>(values));
        Map<String, String> match = new HashMap<>();
        for (String k : key) match.put(k, row.get(k));
        for (Map<String, String> r : t.rows) {
            if (matches(r, match)) {
                r.putAll(row);
                return;
            }
        }
        t.rows.add(row);
    }

    /**
     * An update.
     *
     * @param oid       the table
     * @param old       the old tuple's columns that had a value (key columns only for a key tuple), or null without one
     * @param newValues the new tuple's columns, unchanged TOASTed ones left out
     */
    public void update(int oid, Map<String, String> old, Map<String, String> newValues) {
        Table t = table(oid);
        if (t == null) return;
        Map<String, String> row = find(t, old != null ? old : keyOf(t, newValues));
        if (row != null) row.putAll(normalized(t, new HashMap<>(newValues)));
    }

    /**
     * A delete.
     *
     * @param oid the table
     * @param old the old tuple's columns that had a value
     */
    public void delete(int oid, Map<String, String> old) {
        Table t = table(oid);
        if (t == null) return;
        Map<String, String> row = find(t, old);
        if (row != null) t.rows.remove(row);
    }

    /** {@return the tables by OID} */
    public Map<Integer, TableContent> content() {
        Map<Integer, TableContent> out = new LinkedHashMap<>();
        tables.forEach((oid, t) -> {
            List<String> cols = new ArrayList<>();
            for (String c : t.columns) cols.add(c.substring(0, c.lastIndexOf(':')));
            List<Map<String, String>> rows = new ArrayList<>();
            for (Map<String, String> r : t.rows) rows.add(new HashMap<>(r));
            out.put(oid, new TableContent(t.schema, t.name, cols, rows));
        });
        return out;
    }

    private Table table(int oid) {
        withRows.add(oid);
        Table t = tables.get(oid);
        if (t == null) problems.add("a row of table " + Integer.toUnsignedString(oid) + " before any schema-change event for it");
        return t;
    }

    private Map<String, String> keyOf(Table t, Map<String, String> values) {
        Map<String, String> key = new HashMap<>();
        for (String c : t.columns) if (c.endsWith(":1")) key.put(name(c), values.get(name(c)));
        if (key.isEmpty()) problems.add(t.name + ": an update without old tuple on a table without key");
        return key;
    }

    private Map<String, String> find(Table t, Map<String, String> match) {
        Map<String, String> m = normalized(t, new HashMap<>(match));
        Map<String, String> found = null;
        for (Map<String, String> row : t.rows) {
            if (matches(row, m)) {
                if (found != null) {
                    problems.add(t.name + ": " + shorten(match) + " matches more than one row");
                    return null;
                }
                found = row;
            }
        }
        if (found == null && valuesMayBeLost) {
            for (Map<String, String> row : t.rows) {
                boolean same = true;
                for (Map.Entry<String, String> e : m.entrySet()) {
                    String have = row.get(e.getKey());
                    if (have != null && !have.equals(e.getValue())) {
                        same = false;
                        break;
                    }
                }
                if (same && found != null) {
                    problems.add(t.name + ": " + shorten(match) + " matches more than one row");
                    return null;
                }
                if (same) found = row;
            }
        }
        if (found == null) problems.add(t.name + ": no row matches " + shorten(match) + " in " + shorten(t.rows));
        return found;
    }

    private static boolean matches(Map<String, String> row, Map<String, String> match) {
        for (Map.Entry<String, String> e : match.entrySet()) {
            if (!java.util.Objects.equals(row.get(e.getKey()), e.getValue())) return false;
        }
        return true;
    }

    /** Long (TOASTed) values cut in messages. */
    static String shorten(Object o) {
        return String.valueOf(o).replaceAll("([0-9a-f]{24})[0-9a-f]{40,}", "$1...");
    }

    private static Map<String, String> normalized(Table t, Map<String, String> values) {
        for (String c : t.columns) {
            String n = name(c);
            if (numeric(c) && values.get(n) != null) values.put(n, normalize(values.get(n)));
        }
        return values;
    }

    private static boolean numeric(String col) {
        String[] p = col.split(":");
        return Integer.parseUnsignedInt(p[p.length - 3]) == TableContent.NUMERIC;
    }

    private static String normalize(String v) {
        return v == null ? null : TableContent.normalize(v);
    }

    /** The name of a {@code name:typeOid:typmod:key} column. */
    private static String name(String col) {
        int end = col.length();
        for (int i = 0; i < 3; i++) end = col.lastIndexOf(':', end - 1);
        return col.substring(0, end);
    }
}
