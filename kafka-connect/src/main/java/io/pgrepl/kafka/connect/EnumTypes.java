package io.pgrepl.kafka.connect;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
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
    private static final String ALL = "SELECT enumtypid, string_agg(enumlabel, ',' ORDER BY enumsortorder)"
            + " FROM pg_catalog.pg_enum";

    private final PgreplConnectorConfig config;
    private final Map<Integer, String> labels = new ConcurrentHashMap<>();

    private EnumTypes(PgreplConnectorConfig config) {
        this.config = config;
    }

    /** Reads every enum type's labels on {@code conn} (not yet streaming). */
    static EnumTypes load(PgConnection conn, PgreplConnectorConfig config) {
        EnumTypes e = new EnumTypes(config);
        e.put(ReplicationSetup.await(conn.query(ALL + " GROUP BY 1"), config, "reading enum types"));
        return e;
    }

    /** The labels of type {@code oid}, comma-separated; null when it is not an enum. */
    String labels(int oid) {
        if (oid < FIRST_NORMAL_OID) return null;
        String l = labels.get(oid);
        if (l == null) {
            ConnectionConfig plain = config.connectionConfig().toBuilder().replication(ReplicationMode.NONE).build();
            try (PgConnection c = ReplicationSetup.await(PgConnection.connect(plain), config, "connecting to read enum types")) {
                put(ReplicationSetup.await(c.query(ALL + " WHERE enumtypid = " + Integer.toUnsignedString(oid)
                        + " GROUP BY 1"), config, "reading enum type " + Integer.toUnsignedString(oid)));
            }
            l = labels.computeIfAbsent(oid, k -> NOT_ENUM);
        }
        return l.isEmpty() ? null : l;
    }

    private void put(QueryResult r) {
        for (Row row : r.rows()) labels.put(Integer.parseUnsignedInt(row.get(0)), row.get(1));
    }
}
