package io.pgrepl.client.snapshot;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.internal.PublishedRelations;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the publications cover, read inside the snapshot's transaction so it matches the rows:
 * {@code pg_publication_tables} (which already follows publish_via_partition_root, less the
 * partitions the stream names by an ancestor another publication lists: {@link PublishedRelations}; on 15+
 * carries column lists and row filters; on 18 its column list honours publish_generated_columns),
 * then {@code pg_attribute} for the columns' types and replica identity key flags. Before 15 every
 * live, non-generated column is published, as pgoutput sends them. Pure functions of query results.
 */
final class SnapshotCatalog {
    private SnapshotCatalog() {}

    static String tablesSql(List<String> publications, int major) {
        String size = major >= 13
                ? "CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_relation_size(t.relid)), 0)"
                  + " FROM pg_catalog.pg_partition_tree(c.oid) t) ELSE pg_catalog.pg_relation_size(c.oid) END"
                : "pg_catalog.pg_relation_size(c.oid)";
        String lists = major >= 15 ? "pt.attnames::text[], pt.rowfilter" : "NULL::text[], NULL::text";
        // A partition another publication lists an ancestor of through the root is read with that ancestor.
        return "WITH " + PublishedRelations.cte(publications.stream().map(SnapshotCatalog::literal).collect(Collectors.joining(", ")), major)
                + " SELECT c.oid, n.nspname, c.relname, c.relkind, c.relreplident, " + lists + ", " + size
                + ", " + rowsEstimateSql(size) + ", current_setting('block_size')::bigint,"
                + " EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND CASE c.relreplident"
                + " WHEN 'd' THEN i.indisprimary WHEN 'i' THEN i.indisreplident ELSE false END)"
                + " FROM pub pt JOIN pg_catalog.pg_class c ON c.oid = pt.relid"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE " + PublishedRelations.namedByItself(major);
    }

    /**
     * The rows to expect, as the planner would guess them without a row filter (the estimate
     * ignores publication row filters). Analyzed tables: {@code reltuples} per page scaled to the
     * current size, so rows loaded since the last ANALYZE count. Never analyzed ({@code reltuples}
     * -1 from 14, 0 before): the current pages times the tuples a page holds at the columns'
     * widths (fixed-width types their length, variable-width ones 32 bytes, the planner's default),
     * plus the tuple header (24) and line pointer (4) in a page less its header (24).
     */
    static String rowsEstimateSql(String size) {
        String pages = "ceil((" + size + ")::float8 / current_setting('block_size')::float8)";
        String width = "(SELECT coalesce(sum(CASE WHEN t.typlen > 0 THEN t.typlen ELSE 32 END), 0) FROM pg_catalog.pg_attribute a"
                + " JOIN pg_catalog.pg_type t ON t.oid = a.atttypid WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)";
        return "coalesce(CASE WHEN c.reltuples > 0 AND c.relpages > 0 THEN c.reltuples / c.relpages * " + pages
                + " WHEN c.reltuples > 0 THEN c.reltuples"
                + " ELSE " + pages + " * floor((current_setting('block_size')::float8 - 24) / (28 + " + width + "))"
                + " END, 0)::bigint";
    }

    static String columnsSql(List<Integer> oids, int major) {
        String generated = major >= 12 ? "a.attgenerated <> ''" : "false";
        return "SELECT a.attrelid, a.attname, a.atttypid, a.atttypmod, " + generated + ","
                + " c.relreplident = 'f' OR coalesce(a.attnum = ANY ((SELECT i.indkey FROM pg_catalog.pg_index i"
                + " WHERE i.indrelid = a.attrelid AND CASE c.relreplident WHEN 'd' THEN i.indisprimary"
                + " WHEN 'i' THEN i.indisreplident ELSE false END LIMIT 1)::int2[]), false)"
                + " FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid"
                + " WHERE a.attnum > 0 AND NOT a.attisdropped AND a.attrelid IN ("
                + (oids.isEmpty() ? "0" : oids.stream().map(String::valueOf).collect(Collectors.joining(", ")))
                + ") ORDER BY a.attrelid, a.attnum";
    }

    /** One entry per table, however many publications list it. */
    record Published(int oid, String schema, String name, char relkind, char replident, Set<String> columns,
                     List<String> filters, boolean unfiltered, long bytes, long rows, long blockSize, boolean keyIndex) {}

    static Map<Integer, Published> tables(QueryResult r) {
        Map<Integer, Published> out = new LinkedHashMap<>();
        for (Row row : r.rows()) {
            int oid = (int) Long.parseLong(row.get(0));
            Set<String> cols = row.isNull(5) ? null : new HashSet<>(textArray(row.get(5)));
            String filter = row.get(6);
            Published p = out.get(oid);
            if (p == null) {
                p = new Published(oid, row.get(1), row.get(2), row.get(3).charAt(0), row.get(4).charAt(0), cols,
                        // pg_relation_size is NULL for a table dropped since the snapshot: its COPY then reports it.
                        new ArrayList<>(), filter == null, row.isNull(7) ? 0 : Long.parseLong(row.get(7)), Long.parseLong(row.get(8)),
                        Long.parseLong(row.get(9)), "t".equals(row.get(10)));
            } else {
                // Several publications: pgoutput publishes the union of their column lists and ORs their row filters.
                Set<String> union = p.columns == null || cols == null ? null : new HashSet<>(p.columns);
                if (union != null) union.addAll(cols);
                p = new Published(oid, p.schema, p.name, p.relkind, p.replident, union, p.filters,
                        p.unfiltered || filter == null, p.bytes, p.rows, p.blockSize, p.keyIndex);
            }
            if (filter != null) p.filters.add(filter);
            out.put(oid, p);
        }
        return out;
    }

    /** Builds the tables, largest first, from both query results. */
    static List<SnapshotTable> build(Map<Integer, Published> published, QueryResult columns, int major) {
        Map<Integer, List<ColumnInfo>> cols = new LinkedHashMap<>();
        for (Row row : columns.rows()) {
            int oid = (int) Long.parseLong(row.get(0));
            Published p = published.get(oid);
            String name = row.get(1);
            boolean generated = "t".equals(row.get(4));
            // pgoutput sends generated columns only from 18 on (publish_generated_columns, or listed).
            boolean included = (p.columns != null ? p.columns.contains(name) : !generated) && (major >= 18 || !generated);
            if (!included) continue;
            cols.computeIfAbsent(oid, k -> new ArrayList<>()).add(new ColumnInfo("t".equals(row.get(5)) ? ColumnInfo.FLAG_KEY : 0,
                    name, (int) Long.parseLong(row.get(2)), Integer.parseInt(row.get(3))));
        }
        List<SnapshotTable> out = new ArrayList<>();
        for (Published p : published.values()) {
            RelationInfo rel = new RelationInfo(p.oid, p.schema, p.name, p.replident, cols.getOrDefault(p.oid, List.of()));
            String filter = p.unfiltered || p.filters.isEmpty() ? null
                    : p.filters.stream().map(f -> "(" + f + ")").collect(Collectors.joining(" OR "));
            boolean identity = p.replident == 'f' || ((p.replident == 'd' || p.replident == 'i') && p.keyIndex);
            long pages = (p.bytes + p.blockSize - 1) / p.blockSize;
            out.add(new SnapshotTable(rel, filter, p.relkind == 'p', pages, p.rows, identity));
        }
        out.sort(Comparator.comparingLong(SnapshotTable::pages).reversed().thenComparing(SnapshotTable::qualifiedName));
        return out;
    }

    /** A text[] in its output form: {a,"b c","d\"e"}. */
    static List<String> textArray(String s) {
        List<String> out = new ArrayList<>();
        if (s.length() < 2 || s.charAt(0) != '{') throw new IllegalArgumentException("not an array");
        int i = 1;
        int end = s.length() - 1;
        while (i < end) {
            StringBuilder b = new StringBuilder();
            if (s.charAt(i) == '"') {
                i++;
                while (s.charAt(i) != '"') {
                    if (s.charAt(i) == '\\') i++;
                    b.append(s.charAt(i++));
                }
                i++;
            } else {
                while (i < end && s.charAt(i) != ',') b.append(s.charAt(i++));
            }
            out.add(b.toString());
            if (i < end && s.charAt(i) == ',') i++;
        }
        return out;
    }

    static String literal(String s) {
        if (s.indexOf('\0') >= 0) throw new IllegalArgumentException("NUL in a name");
        return "'" + s.replace("'", "''") + "'";
    }

    static String ident(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }

    /** The COPY of one unit: published columns, row filter, ctid page range (null bounds: open). */
    static String copySql(SnapshotTable t, long fromPage, long toPage, boolean binary) {
        RelationInfo r = t.relation();
        StringBuilder sb = new StringBuilder("COPY (SELECT ");
        for (int i = 0; i < r.columnCount(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(ident(r.column(i).name()));
        }
        sb.append(" FROM ").append(t.partitionedRoot() ? "" : "ONLY ").append(ident(r.schema())).append('.').append(ident(r.name()));
        List<String> where = new ArrayList<>();
        if (t.rowFilter() != null) where.add("(" + t.rowFilter() + ")");
        if (fromPage > 0) where.add("ctid >= '(" + fromPage + ",0)'::tid");
        if (toPage >= 0) where.add("ctid < '(" + toPage + ",0)'::tid");
        if (!where.isEmpty()) sb.append(" WHERE ").append(String.join(" AND ", where));
        sb.append(") TO STDOUT");
        if (binary) sb.append(" WITH (FORMAT binary)");
        return sb.toString();
    }

    static List<String> names(List<SnapshotTable> tables) {
        return tables.stream().map(SnapshotTable::qualifiedName).toList();
    }

}
