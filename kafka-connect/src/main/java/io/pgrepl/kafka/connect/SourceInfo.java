package io.pgrepl.kafka.connect;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/** The {@code source} block of Debezium's PostgreSQL envelope (same name and fields). */
final class SourceInfo {
    static final String CONNECTOR = "postgresql";
    static final String VERSION = versionOf();

    static final Schema SCHEMA = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
            .field("version", Schema.STRING_SCHEMA)
            .field("connector", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("snapshot", SchemaBuilder.string().optional().defaultValue("false").build())
            .field("db", Schema.STRING_SCHEMA)
            .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
            .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
            .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
            .field("schema", Schema.STRING_SCHEMA)
            .field("table", Schema.STRING_SCHEMA)
            .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
            .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
            .build();

    /** Debezium's optional transaction block; pgrepl leaves it null (no transaction metadata topic). */
    static final Schema TRANSACTION_SCHEMA = SchemaBuilder.struct().name("event.block").version(1).optional()
            .field("id", Schema.STRING_SCHEMA)
            .field("total_order", Schema.INT64_SCHEMA)
            .field("data_collection_order", Schema.INT64_SCHEMA)
            .build();

    private SourceInfo() {}

    /**
     * @param lastCommitLsn Debezium's sequence[0]: the previous transaction's commit end, as a string
     * @param lsn           the position of this change (the commit LSN of its transaction; pgoutput
     *                      carries no per-row LSN)
     */
    static Struct of(String serverName, String db, String schema, String table, long commitMicros, long xid,
                     long lsn, long lastCommitLsn, String snapshot) {
        long tsMs = Math.floorDiv(commitMicros, 1000);
        return new Struct(SCHEMA)
                .put("version", VERSION)
                .put("connector", CONNECTOR)
                .put("name", serverName)
                .put("ts_ms", tsMs)
                .put("snapshot", snapshot)
                .put("db", db)
                .put("sequence", "[\"" + Long.toUnsignedString(lastCommitLsn) + "\",\"" + Long.toUnsignedString(lsn) + "\"]")
                .put("ts_us", commitMicros)
                .put("ts_ns", commitMicros * 1000)
                .put("schema", schema)
                .put("table", table)
                .put("txId", xid)
                .put("lsn", lsn)
                .put("xmin", null);
    }

    private static String versionOf() {
        String v = SourceInfo.class.getPackage().getImplementationVersion();
        return "pgrepl-" + (v != null ? v : "0.1.0-SNAPSHOT");
    }
}
