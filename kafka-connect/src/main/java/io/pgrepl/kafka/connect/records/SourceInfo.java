package io.pgrepl.kafka.connect.records;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/** The {@code source} block of Debezium's PostgreSQL envelope (same name and fields). */
public final class SourceInfo {
    public static final String CONNECTOR = "postgresql";
    public static final String VERSION = versionOf();

    /** Debezium's values of {@code source.snapshot} (pgrepl sends false, true and last). */
    public static final String SNAPSHOT_VALUES = "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental";

    public static final Schema SCHEMA = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source").version(1)
            .field("version", Schema.STRING_SCHEMA)
            .field("connector", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("snapshot", SchemaBuilder.string().optional().name("io.debezium.data.Enum").version(1)
                    .parameter("allowed", SNAPSHOT_VALUES).defaultValue("false").build())
            .field("db", Schema.STRING_SCHEMA)
            .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
            .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
            .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
            .field("schema", Schema.STRING_SCHEMA)
            .field("table", Schema.STRING_SCHEMA)
            .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
            .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
            // Debezium 3.x: the replication origin of a transaction applied by a subscription (pgoutput's Origin message).
            .field("origin", Schema.OPTIONAL_STRING_SCHEMA)
            .field("origin_lsn", Schema.OPTIONAL_INT64_SCHEMA)
            .build();

    private static final Field VERSION_F = SCHEMA.field("version");
    private static final Field CONNECTOR_F = SCHEMA.field("connector");
    private static final Field NAME_F = SCHEMA.field("name");
    private static final Field TS_MS_F = SCHEMA.field("ts_ms");
    public static final Field SNAPSHOT_F = SCHEMA.field("snapshot");
    private static final Field DB_F = SCHEMA.field("db");
    private static final Field SEQUENCE_F = SCHEMA.field("sequence");
    private static final Field TS_US_F = SCHEMA.field("ts_us");
    private static final Field TS_NS_F = SCHEMA.field("ts_ns");
    private static final Field SCHEMA_F = SCHEMA.field("schema");
    private static final Field TABLE_F = SCHEMA.field("table");
    public static final Field TX_ID_F = SCHEMA.field("txId");
    private static final Field LSN_F = SCHEMA.field("lsn");
    private static final Field XMIN_F = SCHEMA.field("xmin");
    public static final Field ORIGIN_F = SCHEMA.field("origin");
    public static final Field ORIGIN_LSN_F = SCHEMA.field("origin_lsn");

    /** Debezium's optional transaction block; pgrepl leaves it null (no transaction metadata topic). */
    public static final Schema TRANSACTION_SCHEMA = SchemaBuilder.struct().name("event.block").version(1).optional()
            .field("id", Schema.STRING_SCHEMA)
            .field("total_order", Schema.INT64_SCHEMA)
            .field("data_collection_order", Schema.INT64_SCHEMA)
            .build();

    private SourceInfo() {}

    /**
     * @param lastCommitLsn Debezium's sequence[0]: the previous transaction's commit end, as a string
     *                      (JSON null when unknown, 0: the first transaction after a start, and snapshot reads)
     * @param lsn           the position of this change (the commit LSN of its transaction; pgoutput
     *                      carries no per-row LSN)
     */
    public static Struct of(String serverName, String db, String schema, String table, long commitMicros, long xid,
                     long lsn, long lastCommitLsn, String snapshot) {
        long tsMs = Math.floorDiv(commitMicros, 1000);
        // Fields by reference, not by name: the lookup by name was a tenth of Struct.put's time.
        return new CheckedStruct(SCHEMA)
                .put(VERSION_F, VERSION)
                .put(CONNECTOR_F, CONNECTOR)
                .put(NAME_F, serverName)
                .put(TS_MS_F, tsMs)
                .put(SNAPSHOT_F, snapshot)
                .put(DB_F, db)
                .put(SEQUENCE_F, "[" + (lastCommitLsn == 0 ? "null" : "\"" + Long.toUnsignedString(lastCommitLsn) + "\"")
                        + ",\"" + Long.toUnsignedString(lsn) + "\"]")
                .put(TS_US_F, commitMicros)
                .put(TS_NS_F, commitMicros * 1000)
                .put(SCHEMA_F, schema)
                .put(TABLE_F, table)
                .put(TX_ID_F, xid)
                .put(LSN_F, lsn)
                .put(XMIN_F, null);
    }

    /** {@code source} with another {@code snapshot} value (a fresh struct: the original may be shared by other records). */
    public static Struct withSnapshot(Struct source, String snapshot) {
        Struct copy = new CheckedStruct(SCHEMA);
        for (Field f : SCHEMA.fields()) copy.put(f, source.get(f));
        return copy.put(SNAPSHOT_F, snapshot);
    }

    private static String versionOf() {
        String v = SourceInfo.class.getPackage().getImplementationVersion();
        return "pgrepl-" + (v != null ? v : "0.1.0-SNAPSHOT");
    }
}
