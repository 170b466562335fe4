package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.internal.PublishedRelations;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.replication.QualifiedName;
import io.pgrepl.client.snapshot.SnapshotException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The catalog queries behind {@link TablePlanner#plan} and the pure functions that read their
 * results. Published columns follow {@code pg_publication_tables} the way the initial copy's
 * catalog does: on 15+ its {@code attnames} (the union over the publications, column lists
 * included; on 18 it honours publish_generated_columns), before 15 every live non-generated
 * column. Row filters of several publications are ORed, and any unfiltered publication wins.
 */
final class PlanCatalog {
    private PlanCatalog() {}

    /**
     * The table and, per publication of ours that lists it, the column names and row filter; last,
     * the ancestor whose name the stream gives its rows when another publication lists one through
     * the root (then the table itself is not read: see {@link PublishedRelations}).
     */
    static String tableSql(String qualifiedTable, List<String> publications, int major) {
        String lists = major >= 15 ? "pt.attnames::text[], pt.rowfilter" : "NULL::text[], NULL::text";
        return "WITH " + PublishedRelations.cte(PublishedRelations.literals(publications), major)
                + " SELECT c.oid, n.nspname, c.relname, c.relkind, c.relreplident, pt.pubname, " + lists
                + ", " + PublishedRelations.publishedAncestor(major)
                + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " LEFT JOIN pub pt ON pt.relid = c.oid"
                + " WHERE c.oid = pg_catalog.to_regclass(" + Identifiers.quoteLiteral(QualifiedName.parse(qualifiedTable).quoted()) + ")"
                + " ORDER BY pt.pubname";
    }

    /**
     * Three statements for one round trip: the columns, the primary key and replica identity
     * indexes, and the size of each relation holding the rows (the leaves of a partitioned table).
     */
    static String detailsSql(long oid, boolean partitioned, int major) {
        String generated = major >= 12 ? "a.attgenerated <> ''" : "false";
        String relations = partitioned
                ? "WITH RECURSIVE tree(relid) AS (SELECT " + oid + "::oid UNION ALL SELECT i.inhrelid FROM pg_catalog.pg_inherits i"
                  + " JOIN tree ON i.inhparent = tree.relid) SELECT c.reltuples::float8, c.relpages, pg_catalog.pg_relation_size(c.oid),"
                  + " pg_catalog.current_setting('block_size')::bigint FROM tree JOIN pg_catalog.pg_class c ON c.oid = tree.relid"
                  + " WHERE c.relkind = 'r'"
                : "SELECT c.reltuples::float8, c.relpages, pg_catalog.pg_relation_size(c.oid),"
                  + " pg_catalog.current_setting('block_size')::bigint FROM pg_catalog.pg_class c WHERE c.oid = " + oid;
        return "SELECT a.attnum, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.atttypid, " + generated + ", t.typlen,"
                + " a.atttypmod"
                + " FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid"
                + " WHERE a.attrelid = " + oid + " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum;"
                + " SELECT i.indisprimary, i.indisreplident, i.indkey::text FROM pg_catalog.pg_index i"
                + " WHERE i.indrelid = " + oid + " AND (i.indisprimary OR i.indisreplident);"
                + " " + relations;
    }

    /** What {@link #tableSql} found: null publication data when our publications do not list the table. */
    record Found(long oid, String schema, String name, char relkind, char replident, boolean published,
                 Set<String> columnNames, String rowFilter) {}

    static Found found(QueryResult r, String qualifiedTable, List<String> publications) {
        if (r.rows().isEmpty()) {
            throw new SnapshotException(SnapshotException.Kind.FAILED, "table " + qualifiedTable + " does not exist", qualifiedTable, null);
        }
        Row first = r.rows().get(0);
        String schema = first.get(1);
        String name = first.get(2);
        char relkind = first.get(3).charAt(0);
        Set<String> union = new HashSet<>();
        boolean allColumns = false;
        boolean unfiltered = false;
        List<String> filters = new ArrayList<>();
        boolean published = false;
        String ancestor = first.get(8);
        for (Row row : r.rows()) {
            if (row.isNull(5)) continue;
            published = true;
            if (row.isNull(6)) allColumns = true;
            else union.addAll(textArray(row.get(6)));
            if (row.isNull(7)) unfiltered = true;
            else filters.add(row.get(7));
        }
        String table = schema + "." + name;
        if (ancestor != null) {
            throw new SnapshotException(SnapshotException.Kind.FAILED, "table " + table + " is a partition whose rows the stream"
                    + " names by " + ancestor + " (a publication lists it with publish_via_partition_root = true): snapshot "
                    + ancestor, table, null);
        }
        if (!published) {
            String hint = relkind == 'p'
                    ? " (a partitioned table is listed under its own name only with publish_via_partition_root = true;"
                      + " otherwise snapshot its partitions)"
                    : "";
            throw new SnapshotException(SnapshotException.Kind.FAILED, "table " + table + " is not in the publication"
                    + (publications.size() == 1 ? " " : "s ") + String.join(", ", publications) + hint
                    + ": add it to a publication the stream uses before snapshotting it", table, null);
        }
        String filter = unfiltered || filters.isEmpty() ? null
                : filters.size() == 1 ? filters.get(0) : filters.stream().map(f -> "(" + f + ")").collect(Collectors.joining(" OR "));
        return new Found(Long.parseLong(first.get(0)), schema, name, relkind, first.get(4).charAt(0), true,
                allColumns ? null : union, filter);
    }

    /** One live column of the table. */
    record Attribute(int attnum, String name, String type, int typeOid, boolean generated, int typlen, int typmod) {}

    static List<Attribute> attributes(QueryResult r) {
        List<Attribute> out = new ArrayList<>();
        for (Row row : r.rows()) {
            out.add(new Attribute(Integer.parseInt(row.get(0)), row.get(1), row.get(2), (int) Long.parseLong(row.get(3)),
                    "t".equals(row.get(4)), Integer.parseInt(row.get(5)), Integer.parseInt(row.get(6))));
        }
        return out;
    }

    /** pgoutput's choice: generated columns only from 18 on, and then only when the list names them. */
    static boolean published(Attribute a, Set<String> columnNames, int major) {
        boolean listed = columnNames != null ? columnNames.contains(a.name()) : !a.generated();
        return listed && (major >= 18 || !a.generated());
    }

    /**
     * The key's attnums: the replica identity index under REPLICA IDENTITY USING INDEX (the key
     * pgoutput sends with updates and deletes), else the primary key; null when there is neither.
     */
    static int[] keyAttnums(QueryResult indexes, char replident) {
        int[] primary = null;
        int[] identity = null;
        for (Row row : indexes.rows()) {
            String[] parts = row.get(2).trim().split(" ");
            int[] attnums = new int[parts.length];
            for (int i = 0; i < parts.length; i++) attnums[i] = Integer.parseInt(parts[i]);
            if ("t".equals(row.get(0))) primary = attnums;
            if ("t".equals(row.get(1))) identity = attnums;
        }
        return replident == 'i' && identity != null ? identity : primary;
    }

    /**
     * The attnums pgoutput flags as the replica identity in its Relation message: the primary key
     * under DEFAULT, the index's columns under USING INDEX, none under NOTHING (or when the index
     * or key is missing); null under FULL, where every column is flagged.
     */
    static int[] identityAttnums(QueryResult indexes, char replident) {
        if (replident == 'f') return null;
        int[] out = new int[0];
        for (Row row : indexes.rows()) {
            boolean match = replident == 'd' ? "t".equals(row.get(0)) : replident == 'i' && "t".equals(row.get(1));
            if (!match) continue;
            String[] parts = row.get(2).trim().split(" ");
            out = new int[parts.length];
            for (int i = 0; i < parts.length; i++) out[i] = Integer.parseInt(parts[i]);
        }
        return out;
    }

    static String noKeyMessage(String table, char replident) {
        String identity = switch (replident) {
            case 'd' -> "default";
            case 'f' -> "full";
            case 'n' -> "nothing";
            default -> "using an index that no longer exists";
        };
        return "table " + table + " has no primary key and its replica identity is " + identity
                + ", so an incremental snapshot has no key to read it by in chunks: name a surrogate key"
                + " (columns that are unique and not null) for it, or read it with the initial copy under"
                + " the exported snapshot (the slot's snapshot at creation)";
    }

    /**
     * The row estimate from each relation's {@code reltuples} scaled to its current size, as the
     * planner does; from its size and the columns' widths when reltuples is unknown (-1 on 14+,
     * 0 with relpages 0 before).
     */
    static long estimate(QueryResult sizes, int major, List<Attribute> attributes) {
        int width = 0;
        for (Attribute a : attributes) width += a.typlen() > 0 ? a.typlen() : 32;
        double total = 0;
        for (Row row : sizes.rows()) {
            double reltuples = Double.parseDouble(row.get(0));
            long relpages = Long.parseLong(row.get(1));
            long bytes = row.isNull(2) ? 0 : Long.parseLong(row.get(2));
            long blockSize = Long.parseLong(row.get(3));
            total += estimate(reltuples, relpages, bytes, blockSize, major, width);
        }
        return Math.round(total);
    }

    static double estimate(double reltuples, long relpages, long bytes, long blockSize, int major, int width) {
        long pages = (bytes + blockSize - 1) / blockSize;
        boolean unknown = reltuples < 0 || (major < 14 && reltuples == 0 && relpages == 0);
        if (!unknown && relpages > 0) return reltuples / relpages * pages;
        // A heap tuple: 24 bytes of header (23, aligned) and a 4-byte line pointer; each page loses 24 to its header.
        long perPage = Math.max(1, (blockSize - 24) / (width + 28));
        return (double) pages * perPage;
    }

    /** Builds the table: published columns in attnum order, then key columns the publication leaves out. */
    static KeyedTable build(Found f, List<Attribute> attributes, int[] keyAttnums, int[] identityAttnums,
                            List<String> surrogateKey, int major, String additionalCondition, long estimate) {
        Map<String, Attribute> byName = new LinkedHashMap<>();
        Map<Integer, Attribute> byNum = new LinkedHashMap<>();
        for (Attribute a : attributes) {
            byName.put(a.name(), a);
            byNum.put(a.attnum(), a);
        }
        String table = f.schema() + "." + f.name();
        List<Attribute> key = new ArrayList<>();
        if (surrogateKey != null && !surrogateKey.isEmpty()) {
            for (String column : surrogateKey) {
                Attribute a = byName.get(column);
                if (a == null) {
                    throw new SnapshotException(SnapshotException.Kind.FAILED, "surrogate key column \"" + column
                            + "\" is not a column of table " + table, table, null);
                }
                if (key.contains(a)) {
                    throw new SnapshotException(SnapshotException.Kind.FAILED, "surrogate key column \"" + column
                            + "\" is named twice for table " + table, table, null);
                }
                key.add(a);
            }
        } else if (keyAttnums != null) {
            for (int n : keyAttnums) key.add(byNum.get(n));
        } else {
            throw new SnapshotException(SnapshotException.Kind.FAILED, noKeyMessage(table, f.replident()), table, null);
        }
        List<KeyedTable.Column> columns = new ArrayList<>();
        List<Attribute> selected = new ArrayList<>();
        for (Attribute a : attributes) {
            if (published(a, f.columnNames(), major)) selected.add(a);
        }
        int publishedCount = selected.size();
        for (Attribute a : key) {
            if (!selected.contains(a)) selected.add(a);
        }
        for (Attribute a : selected) {
            boolean identity = identityAttnums == null || java.util.Arrays.stream(identityAttnums).anyMatch(n -> n == a.attnum());
            columns.add(new KeyedTable.Column(a.name(), a.type(), a.typeOid(), a.typmod(), identity));
        }
        int[] keyIndexes = new int[key.size()];
        for (int i = 0; i < key.size(); i++) keyIndexes[i] = selected.indexOf(key.get(i));
        int[] matchIndexes = surrogateKey != null && !surrogateKey.isEmpty()
                ? matchIndexes(f.replident(), identityAttnums, selected, keyIndexes) : keyIndexes;
        try {
            return new KeyedTable(f.schema(), f.name(), f.replident(), f.relkind() == 'p', columns, publishedCount, keyIndexes,
                    matchIndexes, f.rowFilter(), additionalCondition, estimate);
        } catch (IllegalArgumentException e) {
            throw new SnapshotException(SnapshotException.Kind.FAILED, "table " + table + ": " + e.getMessage(), table, e);
        }
    }

    /**
     * What a surrogate-keyed table's chunk rows are matched to the stream's changes by (see {@link
     * KeyedTable#matchColumnIndexes}): the replica identity's columns under DEFAULT (the primary
     * key) or USING INDEX, when the table has them and all are selected; else the surrogate key
     * itself (under FULL every old value is in the stream; without an identity the publication
     * can carry only inserts, whose new row has every column).
     */
    static int[] matchIndexes(char replident, int[] identityAttnums, List<Attribute> selected, int[] keyIndexes) {
        if ((replident != 'd' && replident != 'i') || identityAttnums == null || identityAttnums.length == 0) return keyIndexes;
        int[] out = new int[identityAttnums.length];
        for (int k = 0; k < identityAttnums.length; k++) {
            out[k] = -1;
            for (int i = 0; i < selected.size(); i++) if (selected.get(i).attnum() == identityAttnums[k]) out[k] = i;
            if (out[k] < 0) return keyIndexes; // an identity column the publication leaves out: inserts only
        }
        return out;
    }

    /** A one-dimensional array in its text output form, e.g. {@code {a,"b c","d\"e",NULL}}; NULL elements as null. */
    static List<String> textArray(String s) {
        List<String> out = new ArrayList<>();
        if (s.length() < 2 || s.charAt(0) != '{' || s.charAt(s.length() - 1) != '}') {
            throw new IllegalArgumentException("not an array: " + s);
        }
        int i = 1;
        int end = s.length() - 1;
        while (i < end) {
            StringBuilder b = new StringBuilder();
            boolean quoted = s.charAt(i) == '"';
            if (quoted) {
                i++;
                while (i < end && s.charAt(i) != '"') {
                    if (s.charAt(i) == '\\') i++;
                    b.append(s.charAt(i++));
                }
                i++;
            } else {
                while (i < end && s.charAt(i) != ',') b.append(s.charAt(i++));
            }
            String v = b.toString();
            out.add(!quoted && v.equals("NULL") ? null : v);
            if (i < end && s.charAt(i) == ',') i++;
        }
        return out;
    }
}
