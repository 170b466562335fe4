package io.pgrepl.kafka.connect;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The labels of the database's enum types, for Debezium's {@code io.debezium.data.Enum} schema
 * (its {@code allowed} parameter: the labels comma-separated, in the type's sort order). pgoutput
 * names a column's type by OID only, so they are read from {@code pg_enum}: all of them once at
 * task start (before the connection streams), and an enum created later on first sight, on a
 * short ordinary connection of its own (the replication connection is busy streaming by then).
 */
final class EnumTypes {
    /** OIDs below this are built-in types, never enums. */
    static final int FIRST_NORMAL_OID = 16384;
    private static final String NOT_ENUM = "";
    /** Each enum with its labels and its array type (pg_type.typarray; 0 when it has none). */
    private static final String ALL = "SELECT e.enumtypid, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder),"
            + " t.typarray FROM pg_catalog.pg_enum e JOIN pg_catalog.pg_type t ON t.oid = e.enumtypid";
    private static final String GROUP = " GROUP BY e.enumtypid, t.typarray";

    private final PgreplConnectorConfig config;
    private final Map<Integer, String> labels = new ConcurrentHashMap<>();
    /** An enum's array type to the enum. */
    private final Map<Integer, Integer> arrays = new ConcurrentHashMap<>();

    private EnumTypes(PgreplConnectorConfig config) {
        this.config = config;
    }

    /** Reads every enum type's labels on {@code conn} (not yet streaming). */
    static EnumTypes load(PgConnection conn, PgreplConnectorConfig config) {
        EnumTypes e = new EnumTypes(config);
        e.put(ReplicationSetup.await(conn.query(ALL + GROUP), config, "reading enum types"));
        return e;
    }

    /** The labels of type {@code oid}, comma-separated; null when it is not an enum. */
    String labels(int oid) {
        lookUp(oid);
        String l = labels.get(oid);
        return l == null || l.isEmpty() ? null : l;
    }

    /** The enum whose array type {@code oid} is; 0 when it is not an enum's array. */
    int enumOfArray(int oid) {
        lookUp(oid);
        return arrays.getOrDefault(oid, 0);
    }

    /** A type seen for the first time (created after task start): asked once, then remembered either way. */
    private void lookUp(int oid) {
        if (oid < FIRST_NORMAL_OID || labels.containsKey(oid) || arrays.containsKey(oid)) return;
        String id = Integer.toUnsignedString(oid);
        put(ReplicationSetup.queryOnce(config, ALL + " WHERE e.enumtypid = " + id + " OR t.typarray = " + id + GROUP,
                "reading enum type " + id));
        if (!arrays.containsKey(oid)) labels.putIfAbsent(oid, NOT_ENUM);
    }

    private void put(QueryResult r) {
        for (Row row : r.rows()) {
            int oid = Integer.parseUnsignedInt(row.get(0));
            labels.put(oid, row.get(1));
            int array = Integer.parseUnsignedInt(row.get(2));
            if (array != 0) arrays.put(array, oid);
        }
    }
}
