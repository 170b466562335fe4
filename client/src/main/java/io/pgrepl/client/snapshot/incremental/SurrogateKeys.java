package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.snapshot.SnapshotException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a surrogate key must be before a table is walked by it, checked from the catalog: unique
 * (a valid unique index without a WHERE clause or expressions whose key columns are all among the
 * surrogate's), and NOT NULL in every column. The chunks compare keys with {@code >}: two rows
 * sharing a value at a chunk boundary would lose the second (read after the first, never again),
 * and a row whose key is NULL satisfies no comparison and is never read. Both are refused with
 * what to run to make the key usable.
 */
final class SurrogateKeys {
    private SurrogateKeys() {}

    /**
     * Two statements: the candidate unique indexes (their key columns' attnums, the key column
     * count first) and the attnums of the table's NOT NULL columns.
     */
    static String checkSql(long oid, int major) {
        String keyColumns = major >= 11 ? "i.indnkeyatts" : "i.indnatts";
        return "SELECT " + keyColumns + ", i.indkey::text FROM pg_catalog.pg_index i WHERE i.indrelid = " + oid
                + " AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL;"
                + " SELECT a.attnum FROM pg_catalog.pg_attribute a WHERE a.attrelid = " + oid
                + " AND a.attnum > 0 AND NOT a.attisdropped AND a.attnotnull";
    }

    /**
     * Refuses a surrogate key that is not unique or allows NULL.
     *
     * @param table     the table, for messages ({@code schema.table} as the catalog has it)
     * @param schema    its schema
     * @param name      its name
     * @param attributes the table's live columns
     * @param columns   the surrogate key's column names, in key order
     * @param indexes   the first result of {@link #checkSql}
     * @param notNull   the second result of {@link #checkSql}
     * @throws SnapshotException saying what is wrong and how to fix it
     */
    static void check(String table, String schema, String name, List<PlanCatalog.Attribute> attributes, List<String> columns,
                      QueryResult indexes, QueryResult notNull) {
        Set<Integer> attnums = new HashSet<>();
        for (String c : columns) {
            for (PlanCatalog.Attribute a : attributes) if (a.name().equals(c)) attnums.add(a.attnum());
        }
        Set<Integer> notNullAttnums = new HashSet<>();
        for (Row r : notNull.rows()) notNullAttnums.add(Integer.parseInt(r.get(0)));
        String qualified = Identifiers.quoteIdentifier(schema) + "." + Identifiers.quoteIdentifier(name);
        String spelled = new io.pgrepl.client.replication.QualifiedName(schema, name).toString();
        boolean unique = false;
        for (Row r : indexes.rows()) {
            int keyCount = Integer.parseInt(r.get(0));
            String[] parts = r.get(1).trim().split(" ");
            boolean covered = keyCount > 0;
            for (int i = 0; i < keyCount && i < parts.length; i++) {
                if (!attnums.contains(Integer.parseInt(parts[i]))) covered = false;
            }
            if (covered) unique = true;
        }
        if (!unique) {
            throw new SnapshotException(SnapshotException.Kind.FAILED, "surrogate key " + quotedList(columns) + " of table " + spelled
                    + " is not known to be unique: no valid unique index without a WHERE clause or expressions has only its"
                    + " columns as its key, and two rows sharing a value at a chunk boundary would lose the second. Create one"
                    + " (CREATE UNIQUE INDEX CONCURRENTLY ON " + qualified + " ("
                    + columns.stream().map(Identifiers::quoteIdentifier).collect(Collectors.joining(", "))
                    + ")) or name another surrogate key", table, null);
        }
        List<String> nullable = new ArrayList<>();
        for (String c : columns) {
            for (PlanCatalog.Attribute a : attributes) {
                if (a.name().equals(c) && !notNullAttnums.contains(a.attnum())) nullable.add(c);
            }
        }
        if (!nullable.isEmpty()) {
            throw new SnapshotException(SnapshotException.Kind.FAILED, "surrogate key column"
                    + (nullable.size() == 1 ? " " : "s ") + quotedList(nullable) + " of table " + spelled + " allow"
                    + (nullable.size() == 1 ? "s" : "") + " NULL, and a row whose key is NULL is never read: make "
                    + (nullable.size() == 1 ? "it" : "them") + " NOT NULL ("
                    + nullable.stream().map(c -> "ALTER TABLE " + qualified + " ALTER COLUMN " + Identifiers.quoteIdentifier(c)
                            + " SET NOT NULL").collect(Collectors.joining("; ")) + ") or name another surrogate key", table, null);
        }
    }

    private static String quotedList(List<String> columns) {
        return columns.stream().map(c -> "\"" + c.replace("\"", "\"\"") + "\"").collect(Collectors.joining(", "));
    }
}
