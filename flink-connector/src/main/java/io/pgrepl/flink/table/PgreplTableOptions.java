package io.pgrepl.flink.table;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * The {@code 'connector' = 'pgrepl'} table options. Where Flink CDC's {@code postgres-cdc} has an
 * option for the same thing, it has the same name; an option this connector does not know is
 * refused when the table is planned, never ignored.
 */
public final class PgreplTableOptions {
    private PgreplTableOptions() {}

    public static final ConfigOption<String> HOSTNAME = ConfigOptions.key("hostname").stringType().noDefaultValue()
            .withDescription("The server's host name or address (or give 'url').");
    public static final ConfigOption<Integer> PORT = ConfigOptions.key("port").intType().defaultValue(5432)
            .withDescription("The server's port.");
    public static final ConfigOption<String> USERNAME = ConfigOptions.key("username").stringType().noDefaultValue()
            .withDescription("The role; it needs REPLICATION and SELECT on the table.");
    public static final ConfigOption<String> PASSWORD = ConfigOptions.key("password").stringType().noDefaultValue()
            .withDescription("The password.");
    public static final ConfigOption<String> DATABASE_NAME = ConfigOptions.key("database-name").stringType().noDefaultValue()
            .withDescription("The database.");
    public static final ConfigOption<String> URL = ConfigOptions.key("url").stringType().noDefaultValue()
            .withDescription("A libpq URI or key=value string instead of hostname/port/username/database-name: several hosts,"
                    + " target_session_attrs, sslmode, sslrootcert, channel_binding...");
    public static final ConfigOption<String> SSL_MODE = ConfigOptions.key("sslmode").stringType().noDefaultValue()
            .withDescription("libpq's sslmode (disable, allow, prefer, require, verify-ca, verify-full), with hostname.");
    public static final ConfigOption<String> SSL_ROOT_CERT = ConfigOptions.key("sslrootcert").stringType().noDefaultValue()
            .withDescription("libpq's sslrootcert: the CA certificate file, with hostname.");
    public static final ConfigOption<String> SCHEMA_NAME = ConfigOptions.key("schema-name").stringType().defaultValue("public")
            .withDescription("The table's schema (an exact name, not a pattern).");
    public static final ConfigOption<String> TABLE_NAME = ConfigOptions.key("table-name").stringType().noDefaultValue()
            .withDescription("The table (an exact name, not a pattern).");
    public static final ConfigOption<String> SLOT_NAME = ConfigOptions.key("slot.name").stringType().noDefaultValue()
            .withDescription("The logical replication slot, created when missing.");
    public static final ConfigOption<String> DECODING_PLUGIN_NAME = ConfigOptions.key("decoding.plugin.name").stringType()
            .defaultValue("pgoutput").withDescription("Only pgoutput.");
    public static final ConfigOption<String> PUBLICATION_NAME = ConfigOptions.key("publication.name").stringType().noDefaultValue()
            .withDescription("The publication; default: the slot's name followed by _pub.");
    public static final ConfigOption<Boolean> PUBLICATION_AUTOCREATE = ConfigOptions.key("publication.autocreate.enabled")
            .booleanType().defaultValue(true).withDescription("Create a missing publication for the table.");
    public static final ConfigOption<String> STARTUP_MODE = ConfigOptions.key("scan.startup.mode").stringType().defaultValue("initial")
            .withDescription("initial, latest-offset, committed-offset or snapshot.");
    public static final ConfigOption<Boolean> INCREMENTAL_SNAPSHOT = ConfigOptions.key("scan.incremental.snapshot.enabled")
            .booleanType().defaultValue(true).withDescription("Always on: the snapshot is read in parallel splits.");
    public static final ConfigOption<Integer> CHUNK_SIZE = ConfigOptions.key("scan.incremental.snapshot.chunk.size").intType()
            .defaultValue(8096).withDescription("About how many rows one snapshot split holds.");
    public static final ConfigOption<Integer> FETCH_SIZE = ConfigOptions.key("scan.snapshot.fetch.size").intType().noDefaultValue()
            .withDescription("The most rows one read of a split holds (one transaction each); default: the chunk size.");
    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConfigOptions.key("connect.timeout").durationType()
            .defaultValue(Duration.ofSeconds(30)).withDescription("The connection timeout.");
    public static final ConfigOption<Duration> HEARTBEAT = ConfigOptions.key("heartbeat.interval.ms").durationType()
            .defaultValue(Duration.ofSeconds(30)).withDescription("How often an idle stream moves the slot's position along; 0 s: never.");
    public static final ConfigOption<String> CHANGELOG_MODE = ConfigOptions.key("changelog-mode").stringType().defaultValue("all")
            .withDescription("all (+I, -U, +U, -D; needs REPLICA IDENTITY FULL) or upsert (+I, +U, -D by the primary key).");
    public static final ConfigOption<Integer> LSN_COMMIT_DELAY = ConfigOptions.key("scan.lsn-commit.checkpoints-num-delay").intType()
            .defaultValue(3).withDescription("Completed checkpoints the slot's confirmation lags behind.");
    public static final ConfigOption<String> STREAMING = ConfigOptions.key("streaming").stringType().defaultValue("on")
            .withDescription("pgoutput streaming of large transactions (14+): on, parallel (16+) or off.");
    public static final ConfigOption<MemorySize> MEMORY_BUDGET = ConfigOptions.key("transaction.memory-budget").memoryType()
            .defaultValue(MemorySize.ofMebiBytes(64)).withDescription("Heap a transaction being assembled may use before it spills.");
    public static final ConfigOption<String> SPILL_DIRECTORY = ConfigOptions.key("transaction.spill-directory").stringType()
            .noDefaultValue().withDescription("Where large transactions spill; default java.io.tmpdir.");
    public static final ConfigOption<Boolean> SLOT_FAILOVER = ConfigOptions.key("slot.failover").booleanType().defaultValue(false)
            .withDescription("Create the slot as a failover slot (17+).");
    public static final ConfigOption<String> TRUNCATE_HANDLING = ConfigOptions.key("scan.truncate.handling").stringType()
            .defaultValue("fail").withDescription("fail (the job stops at a TRUNCATE of the table) or skip (logged).");
    public static final ConfigOption<MemorySize> GUARD_WARN = ConfigOptions.key("slot.guard.warn-retained-wal").memoryType()
            .noDefaultValue().withDescription("Log a warning when the slot retains more WAL than this.");
    public static final ConfigOption<MemorySize> GUARD_FAIL = ConfigOptions.key("slot.guard.fail-retained-wal").memoryType()
            .noDefaultValue().withDescription("Fail the job when the slot retains more WAL than this.");
    public static final ConfigOption<Duration> SLOT_METRICS_INTERVAL = ConfigOptions.key("slot.metrics.interval").durationType()
            .defaultValue(Duration.ofSeconds(30)).withDescription("How often the slot's retained WAL is read; 0 s: never.");
    public static final ConfigOption<String> STANDBY_PRIMARY_URL = ConfigOptions.key("standby.primary-url").stringType()
            .noDefaultValue().withDescription("When the source is a hot standby (16+): the primary, asked for the record slot"
                    + " creation waits for.");
    public static final ConfigOption<String> SIGNAL_DATA_COLLECTION = ConfigOptions.key("signal.data.collection").stringType()
            .noDefaultValue().withDescription("Debezium's signal table (schema.table): an execute-snapshot row inserted into it has"
                    + " the table read again while the job runs. Needs changelog-mode upsert.");
    public static final ConfigOption<String> SLOT_LOST_HANDLING = ConfigOptions.key("slot.lost.handling").stringType()
            .defaultValue("fail").withDescription("fail (the job stops when the slot is gone or invalidated) or snapshot (a new"
                    + " slot, the table read again; needs changelog-mode upsert).");
}
