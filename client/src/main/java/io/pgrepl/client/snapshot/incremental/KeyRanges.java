package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.Identifiers;
import java.util.ArrayList;
import java.util.List;

/**
 * Range bounds without a full scan. From the leading key column's histogram when the table was
 * analyzed: {@code pg_stats.histogram_bounds} holds about 100 equi-depth bounds, and a bound of the
 * leading column alone is a valid key prefix. Else from a {@code TABLESAMPLE SYSTEM} sample of the
 * key, which reads a few percent of the pages. Either way the server orders the bounds with the
 * key column's own collation and operators, which the chunks' comparisons use, so the ranges are
 * contiguous whatever the collation.
 */
final class KeyRanges {
    /** Rows the sample aims at: enough for even quantiles, few enough to read quickly. */
    static final long SAMPLE_ROWS = 10_000;

    private KeyRanges() {}

    /** The leading key column's histogram and collation, or no row when it has none. */
    static String histogramSql(KeyedTable t) {
        KeyedTable.Column k = t.keyColumns().get(0);
        return "SELECT s.histogram_bounds::text, cn.nspname, co.collname FROM pg_catalog.pg_stats s"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = pg_catalog.to_regclass("
                + Identifiers.quoteLiteral(Identifiers.quoteIdentifier(t.schema()) + "." + Identifiers.quoteIdentifier(t.table()))
                + ") AND a.attname = s.attname"
                + " LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation"
                + " LEFT JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace"
                + " WHERE s.schemaname = " + Identifiers.quoteLiteral(t.schema()) + " AND s.tablename = "
                + Identifiers.quoteLiteral(t.table()) + " AND s.attname = " + Identifiers.quoteLiteral(k.name())
                + " AND s.histogram_bounds IS NOT NULL AND s.inherited = " + t.partitionedRoot();
    }

    /** The histogram's values in the column's order (the server casts and sorts them). */
    static String sortedHistogramSql(KeyedTable t, String histogram, String collationSchema, String collation) {
        KeyedTable.Column k = t.keyColumns().get(0);
        String collate = collation == null ? ""
                : " COLLATE " + Identifiers.quoteIdentifier(collationSchema) + "." + Identifiers.quoteIdentifier(collation);
        return "SELECT u.v FROM pg_catalog.unnest(" + Identifiers.quoteLiteral(histogram) + "::" + k.type() + "[]) AS u(v)"
                + " ORDER BY u.v" + collate;
    }

    /** A sample of the key, ordered as the chunks walk it. */
    static String sampleSql(KeyedTable t) {
        double percent = t.estimatedRows() <= SAMPLE_ROWS ? 100 : Math.max(0.001, 100.0 * SAMPLE_ROWS / t.estimatedRows());
        StringBuilder key = new StringBuilder();
        for (KeyedTable.Column c : t.keyColumns()) {
            if (key.length() > 0) key.append(", ");
            key.append(Identifiers.quoteIdentifier(c.name()));
        }
        return "SELECT " + key + " FROM " + (t.partitionedRoot() ? "" : "ONLY ") + Identifiers.quoteIdentifier(t.schema()) + "."
                + Identifiers.quoteIdentifier(t.table()) + " TABLESAMPLE SYSTEM (" + String.format(java.util.Locale.ROOT, "%.4f", percent)
                + ") ORDER BY " + key;
    }

    /** The points in key order as bounds: one value each (histogram) or whole keys (sample). */
    static List<List<String>> points(QueryResult r) {
        List<List<String>> out = new ArrayList<>(r.rows().size());
        for (Row row : r.rows()) {
            List<String> key = new ArrayList<>(row.size());
            for (int i = 0; i < row.size(); i++) key.add(row.get(i));
            if (!key.contains(null)) out.add(key);
        }
        return out;
    }

    /**
     * At most {@code n} ranges split at evenly spaced points (quantiles of an ordered list),
     * skipping repeats; the first and last point of a histogram (its minimum and maximum) are
     * never bounds, so the open ends hold the tails.
     */
    static List<KeyRange> split(List<List<String>> points, int n) {
        List<List<String>> bounds = new ArrayList<>();
        int m = points.size();
        for (int i = 1; i < n && m > 1; i++) {
            List<String> b = points.get((int) Math.round((double) i * (m - 1) / n));
            if (bounds.isEmpty() || !bounds.get(bounds.size() - 1).equals(b)) bounds.add(b);
        }
        List<KeyRange> out = new ArrayList<>(bounds.size() + 1);
        List<String> after = null;
        for (List<String> b : bounds) {
            out.add(new KeyRange(after, b));
            after = b;
        }
        out.add(new KeyRange(after, null));
        return out;
    }
}
