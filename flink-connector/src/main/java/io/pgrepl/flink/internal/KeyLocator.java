package io.pgrepl.flink.internal;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.snapshot.incremental.KeyedTable;
import io.pgrepl.client.snapshot.incremental.TablePlanner;
import io.pgrepl.flink.PgreplFlinkException;
import io.pgrepl.flink.TableName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Tells which piece of a table a key falls in, by asking the server: the pieces' bounds are key
 * texts compared in PostgreSQL's order (the column types, their collations), which only the server
 * knows in general. One query per batch of keys: each key's piece is the number of piece bounds
 * below it. Used only for transactions that committed while the table was being read.
 */
final class KeyLocator implements AutoCloseable {
    private static final int BATCH = 500;

    private final Settings settings;
    private final Map<TableName, Keyed> keyed = new HashMap<>();
    private PgConnection connection;

    /** A table's key columns: names, types as casts, and a COLLATE clause where the column's collation is not its type's default. */
    private record Keyed(List<String> names, List<String> casts) {}

    KeyLocator(Settings settings) {
        this.settings = settings;
    }

    /**
     * The piece of each key.
     *
     * @param table the table's coverage
     * @param keys  key texts, in key column order
     * @return the piece index of each key
     */
    int[] locate(Coverage.Table table, List<List<String>> keys) {
        Keyed k = keyed(table.name);
        List<List<String>> bounds = new ArrayList<>();
        for (Piece p : table.pieces) if (p.upTo() != null) bounds.add(p.upTo());
        int[] out = new int[keys.size()];
        if (bounds.isEmpty()) return out;
        for (int from = 0; from < keys.size(); from += BATCH) {
            int to = Math.min(keys.size(), from + BATCH);
            QueryResult r = Db.query(connection(), settings, sql(k, bounds, keys.subList(from, to), from), "locating keys of " + table.name);
            for (Row row : r.rows()) out[Integer.parseInt(row.get(0))] = Integer.parseInt(row.get(1));
        }
        return out;
    }

    private static String sql(Keyed k, List<List<String>> bounds, List<List<String>> keys, int offset) {
        int n = k.names().size();
        StringBuilder cols = new StringBuilder();
        for (int c = 1; c <= n; c++) cols.append(", c").append(c);
        StringBuilder b = new StringBuilder("SELECT k.i, (SELECT count(*) FROM (VALUES ");
        TreeSet<Integer> lengths = new TreeSet<>();
        for (int i = 0; i < bounds.size(); i++) {
            List<String> bound = bounds.get(i);
            if (bound.size() > n) throw new IllegalStateException("a piece bound of " + n + "-column key has " + bound.size() + " values");
            lengths.add(bound.size());
            b.append(i == 0 ? "(" : ", (").append(bound.size());
            for (int c = 0; c < n; c++) b.append(", ").append(c < bound.size() ? literal(bound.get(c), k.casts().get(c)) : "NULL" + k.casts().get(c));
            b.append(')');
        }
        b.append(") b(n").append(cols).append(") WHERE ");
        boolean first = true;
        for (int len : lengths) {
            b.append(first ? "" : " OR ").append("(b.n = ").append(len).append(" AND ");
            first = false;
            if (len == 1) {
                b.append("k.c1 > b.c1)");
            } else {
                StringBuilder kc = new StringBuilder();
                StringBuilder bc = new StringBuilder();
                for (int c = 1; c <= len; c++) {
                    kc.append(c == 1 ? "" : ", ").append("k.c").append(c);
                    bc.append(c == 1 ? "" : ", ").append("b.c").append(c);
                }
                b.append('(').append(kc).append(") > (").append(bc).append("))");
            }
        }
        b.append(") FROM (VALUES ");
        for (int i = 0; i < keys.size(); i++) {
            List<String> key = keys.get(i);
            if (key.size() != n) throw new IllegalStateException("a key of " + n + " columns has " + key.size() + " values");
            b.append(i == 0 ? "(" : ", (").append(offset + i);
            for (int c = 0; c < n; c++) b.append(", ").append(literal(key.get(c), k.casts().get(c)));
            b.append(')');
        }
        return b.append(") k(i").append(cols).append(')').toString();
    }

    private static String literal(String text, String cast) {
        return Identifiers.quoteLiteral(text) + cast;
    }

    private Keyed keyed(TableName t) {
        Keyed k = keyed.get(t);
        if (k != null) return k;
        PgConnection c = connection();
        KeyedTable plan = Db.await(TablePlanner.plan(c, List.of(settings.publication()), t.quoted(), null), settings,
                "planning table " + t, Db.TIMEOUT);
        List<String> names = new ArrayList<>();
        List<String> casts = new ArrayList<>();
        for (KeyedTable.Column col : plan.keyColumns()) {
            QueryResult coll = Db.query(c, settings, "SELECT CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation"
                    + " THEN quote_ident(n.nspname) || '.' || quote_ident(co.collname) END FROM pg_catalog.pg_attribute a"
                    + " JOIN pg_catalog.pg_type t ON t.oid = a.atttypid LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation"
                    + " LEFT JOIN pg_catalog.pg_namespace n ON n.oid = co.collnamespace WHERE a.attrelid = "
                    + Identifiers.quoteLiteral(t.quoted()) + "::regclass AND a.attname = " + Identifiers.quoteLiteral(col.name()),
                    "reading the collation of " + t + "." + col.name());
            String collation = coll.rows().isEmpty() ? null : coll.rows().get(0).get(0);
            names.add(col.name());
            casts.add("::" + col.type() + (collation == null ? "" : " COLLATE " + collation));
        }
        k = new Keyed(names, casts);
        keyed.put(t, k);
        return k;
    }

    /** {@return the key column names of a table, as planned} */
    List<String> keyColumns(TableName t) {
        return keyed(t).names();
    }

    private PgConnection connection() {
        if (connection == null || !connection.isOpen()) {
            if (connection != null) connection.close();
            connection = Db.connect(settings, ReplicationMode.NONE);
        }
        return connection;
    }

    @Override
    public void close() {
        if (connection != null) connection.close();
        connection = null;
    }

    static PgreplFlinkException noKey(TableName t, String column) {
        return new PgreplFlinkException("a change of table " + t + " carries no value for key column \"" + column + "\"");
    }
}
