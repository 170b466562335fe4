package io.pgrepl.kafka.connect.records;

import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.ReplicationSetup;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What pgoutput's Relation message does not say about a table and Debezium's schemas hold: the
 * record key Debezium chooses and the columns' defaults. Read from {@code pg_index} and
 * {@code pg_attrdef} on a short ordinary connection of its own (the replication connection is busy
 * streaming) when a table's schema is built: at first sight and at every Relation message, as
 * Debezium reads them.
 *
 * <p>Debezium keys a table by its primary key, and a table without one by its first unique index
 * (pgJDBC's {@code getIndexInfo} order: a clustered index first, then by name), leaving out an
 * index on an expression; a table with neither has no key.
 *
 * <p>The catalog is read now, while the change may be old (a backlog): a key created by a later
 * transaction did not exist for the change, and its columns may be NULL in the change's rows (a
 * required field then fails the task). So a key whose {@code pg_index} row was written by a later
 * transaction than the change's is not used: the change gets no key. One written by the change's
 * own transaction is (CREATE TABLE and its first rows in one transaction), though it may have come
 * after the Relation in it: no catalog row tells which.
 */
public final class TableCatalog {
    /** Looks up a table's key and defaults as they stand for a transaction. */
    public interface Lookup {
        /**
         * @param relOid the table
         * @param xid    the transaction of the change (32-bit, unsigned), or 0 when unknown
         * @return what the catalog says; null when nothing is known
         */
        Info of(int relOid, long xid);
    }

    /**
     * @param key      the key's column names: the primary key's, else the first unique index's;
     *                 empty when there is none, or none known to predate the transaction
     * @param notNull  those of {@code key} PostgreSQL keeps NOT NULL (all of a primary key)
     * @param defaults column name to its default expression ({@code pg_get_expr} of {@code pg_attrdef.adbin})
     */
    public record Info(Set<String> key, Set<String> notNull, Map<String, String> defaults) {
        public static final Info NONE = new Info(Set.of(), Set.of(), Map.of());
    }

    /** xids below this are special (bootstrap, frozen): older than any transaction. */
    private static final long FIRST_NORMAL_XID = 3;

    private final PgreplConnectorConfig config;

    public TableCatalog(PgreplConnectorConfig config) {
        this.config = config;
    }

    public Info of(int relOid, long xid) {
        String id = Integer.toUnsignedString(relOid);
        QueryResult r = ReplicationSetup.queryOnce(config, query(id), "reading the key and column defaults of table " + id);
        return info(r.rows(), xid);
    }

    /**
     * One round trip: defaults ({@code d}) and the columns of the unique indexes not on an
     * expression ({@code p} for the primary key, {@code u}), with the index's name, whether it is
     * clustered, its row's xmin and whether the column is NOT NULL.
     */
    static String query(String id) {
        return "SELECT 'd', a.attname, pg_catalog.pg_get_expr(d.adbin, d.adrelid), NULL, NULL, NULL"
                + " FROM pg_catalog.pg_attrdef d JOIN pg_catalog.pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum"
                + " WHERE d.adrelid = " + id + " AND NOT a.attisdropped"
                + " UNION ALL SELECT CASE WHEN i.indisprimary THEN 'p' ELSE 'u' END, a.attname, c.relname,"
                + " i.indisclustered::text, i.xmin::text, a.attnotnull::text"
                + " FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
                + " WHERE i.indrelid = " + id + " AND i.indisunique AND NOT (0 = ANY (i.indkey))";
    }

    static Info info(List<Row> rows, long xid) {
        Map<String, String> defaults = new HashMap<>();
        Map<String, List<Row>> indexes = new HashMap<>();
        for (Row row : rows) {
            String kind = row.get(0);
            if (kind.equals("d")) defaults.put(row.get(1), row.get(2));
            else indexes.computeIfAbsent(row.get(2), n -> new ArrayList<>()).add(row);
        }
        // The primary key, else a clustered index, else the first by name (pgJDBC sorts by name as the server does: bytes).
        List<Row> chosen = indexes.values().stream().min(Comparator
                .comparing((List<Row> ix) -> !ix.get(0).get(0).equals("p"))
                .thenComparing(ix -> !"true".equals(ix.get(0).get(3)))
                .thenComparing(ix -> ix.get(0).get(2), TableCatalog::bytewise)).orElse(List.of());
        Set<String> key = new HashSet<>();
        Set<String> notNull = new HashSet<>();
        for (Row row : chosen) {
            if (xid != 0 && later(Long.parseLong(row.get(4)), xid)) return new Info(Set.of(), Set.of(), Map.copyOf(defaults));
            key.add(row.get(1));
            if ("true".equals(row.get(5))) notNull.add(row.get(1));
        }
        return new Info(Set.copyOf(key), Set.copyOf(notNull), Map.copyOf(defaults));
    }

    private static int bytewise(String a, String b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Whether xid {@code a} is newer than {@code b}, modulo 2^32 as PostgreSQL compares them (TransactionIdFollows). */
    public static boolean later(long a, long b) {
        if (a < FIRST_NORMAL_XID) return false;
        return (int) (a - b) > 0;
    }
}
