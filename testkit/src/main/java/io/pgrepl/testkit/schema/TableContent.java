package io.pgrepl.testkit.schema;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's name, published columns and rows, as text: read from the source, or rebuilt from a stream.
 * Numeric values are compared by value ({@code 13.25} and {@code 13.2500} are equal): widening a
 * numeric's scale rewrites every stored value without streaming a row.
 *
 * @param schema  the table's schema
 * @param name    its name
 * @param columns {@code name:typeOid:typmod} per column, in order
 * @param rows    each row as column name to text (null for SQL NULL), in any order
 */
public record TableContent(String schema, String name, List<String> columns, List<Map<String, String>> rows) {
    /** The numeric type's OID. */
    static final int NUMERIC = 1700;

    /** The rows in a canonical form: sorted, numeric values normalized. */
    public List<String> canonicalRows() {
        List<String> out = new ArrayList<>();
        for (Map<String, String> r : rows) {
            Map<String, String> sorted = new LinkedHashMap<>();
            for (String c : columns) {
                String[] p = c.split(":");
                String name = c.substring(0, c.length() - p[p.length - 1].length() - p[p.length - 2].length() - 2);
                String v = r.get(name);
                if (v != null && Integer.parseUnsignedInt(p[p.length - 2]) == NUMERIC) v = normalize(v);
                sorted.put(name, v);
            }
            out.add(sorted.toString());
        }
        out.sort(null);
        return out;
    }

    /** {@return this table without the given columns} */
    public TableContent without(java.util.Set<String> names) {
        List<String> cols = new ArrayList<>();
        for (String c : columns) if (!names.contains(c.substring(0, c.lastIndexOf(':', c.lastIndexOf(':') - 1)))) cols.add(c);
        List<Map<String, String>> rs = new ArrayList<>();
        for (Map<String, String> r : rows) {
            Map<String, String> copy = new java.util.HashMap<>(r);
            copy.keySet().removeAll(names);
            rs.add(copy);
        }
        return new TableContent(schema, name, cols, rs);
    }

    /** {@code 13.2500} to {@code 13.25}; NaN and infinities as they are. */
    public static String normalize(String numeric) {
        try {
            BigDecimal d = new BigDecimal(numeric).stripTrailingZeros();
            return d.signum() == 0 ? "0" : d.toPlainString();
        } catch (NumberFormatException e) {
            return numeric;
        }
    }
}
