package io.pgrepl.kafka.connect;

import static io.pgrepl.kafka.connect.ConfigValidators.enumValidator;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.kafka.connect.ConfigValidators.Matches;
import io.pgrepl.kafka.connect.ConfigValidators.NonEmpty;
import io.pgrepl.kafka.connect.ConfigValidators.TableListValidator;
import io.pgrepl.kafka.connect.ConfigValidators.UrlValidator;
import io.pgrepl.kafka.connect.ConfigValidators.ValuesWithAdvice;
import io.pgrepl.kafka.connect.settings.CaptureSettings;
import io.pgrepl.kafka.connect.settings.ColumnRules;
import io.pgrepl.kafka.connect.settings.DatabaseSettings;
import io.pgrepl.kafka.connect.settings.DriverSettings;
import io.pgrepl.kafka.connect.settings.IncrementalSnapshotKeys;
import io.pgrepl.kafka.connect.settings.InitialStatements;
import io.pgrepl.kafka.connect.settings.SettingsCheck;
import io.pgrepl.kafka.connect.settings.SkippedOperations;
import io.pgrepl.kafka.connect.settings.TopicNaming;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The connector's settings. Names are Debezium's where the meaning is the same, so a Debezium
 * configuration moves over with its keys (see docs/kafka-connect.md for the rest).
 */
public final class PgreplConnectorConfig extends AbstractConfig {
    public static final String DATABASE_URL = "database.url";
    public static final String DATABASE_PASSWORD = "database.password";
    public static final String SLOT_NAME = "slot.name";
    public static final String SLOT_CREATE = "slot.create";
    public static final String SLOT_FAILOVER = "slot.failover";
    public static final String SLOT_DROP_ON_STOP = "slot.drop.on.stop";
    public static final String PUBLICATION_NAME = "publication.name";
    public static final String PUBLICATION_AUTOCREATE_MODE = "publication.autocreate.mode";
    public static final String TABLE_INCLUDE_LIST = "table.include.list";
    public static final String TABLE_EXCLUDE_LIST = "table.exclude.list";
    public static final String SNAPSHOT_MODE = "snapshot.mode";
    public static final String SLOT_LOST_HANDLING = "slot.lost.handling";
    public static final String SNAPSHOT_MAX_THREADS = "snapshot.max.threads";
    public static final String TOPIC_PREFIX = "topic.prefix";
    public static final String HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms";
    public static final String DECIMAL_HANDLING_MODE = "decimal.handling.mode";
    public static final String BINARY_HANDLING_MODE = "binary.handling.mode";
    public static final String TIME_PRECISION_MODE = "time.precision.mode";
    public static final String INTERVAL_HANDLING_MODE = "interval.handling.mode";
    public static final String HSTORE_HANDLING_MODE = "hstore.handling.mode";
    public static final String INCLUDE_UNKNOWN_DATATYPES = "include.unknown.datatypes";
    public static final String MONEY_FRACTION_DIGITS = "money.fraction.digits";
    public static final String STREAMING = "streaming";
    public static final String MAX_BATCH_SIZE = "max.batch.size";
    public static final String POLL_INTERVAL_MS = "poll.interval.ms";
    public static final String MAX_UNACKNOWLEDGED_RECORDS = "max.unacknowledged.records";
    public static final String MAX_UNACKNOWLEDGED_MS = "max.unacknowledged.ms";
    public static final String UNAVAILABLE_VALUE_PLACEHOLDER = "unavailable.value.placeholder";
    public static final String RESELECT_UNAVAILABLE_VALUES = "reselect.unavailable.values";
    public static final String TOMBSTONES_ON_DELETE = "tombstones.on.delete";
    public static final String MESSAGES_TOPIC = "messages.topic";
    public static final String PROVIDE_TRANSACTION_METADATA = "provide.transaction.metadata";
    public static final String TOPIC_TRANSACTION = "topic.transaction";
    public static final String SCHEMA_CHANGES_TOPIC = "schema.changes.topic";
    public static final String STATUS_UPDATE_INTERVAL_MS = "status.update.interval.ms";
    public static final String SLOT_METRICS_INTERVAL_MS = "slot.metrics.interval.ms";

    // --- OAuth, a standby's primary and the slot guard; defined in one static block below ---
    public static final String DATABASE_OAUTH_TOKEN_FILE = "database.oauth.token.file";
    public static final String DATABASE_OAUTH_TOKEN_PROVIDER_CLASS = "database.oauth.token.provider.class";
    /** Prefix of the settings handed to the provider's {@code configure} (without the prefix). */
    public static final String DATABASE_OAUTH_TOKEN_PROVIDER_PREFIX = "database.oauth.token.provider.";
    public static final String DATABASE_PRIMARY_URL = "database.primary.url";
    public static final String DATABASE_PRIMARY_LOG_STANDBY_SNAPSHOT = "database.primary.log.standby.snapshot";
    public static final String SLOT_GUARD_INTERVAL_MS = "slot.guard.interval.ms";
    public static final String SLOT_GUARD_SAFE_WAL_SIZE_WARN = "slot.guard.safe.wal.size.warn.bytes";
    public static final String SLOT_GUARD_SAFE_WAL_SIZE_SNAPSHOT = "slot.guard.safe.wal.size.snapshot.bytes";
    public static final String SLOT_GUARD_SAFE_WAL_SIZE_FAIL = "slot.guard.safe.wal.size.fail.bytes";
    public static final String SLOT_GUARD_RETAINED_WAL_WARN = "slot.guard.retained.wal.warn.bytes";
    public static final String SLOT_GUARD_RETAINED_WAL_SNAPSHOT = "slot.guard.retained.wal.snapshot.bytes";
    public static final String SLOT_GUARD_RETAINED_WAL_FAIL = "slot.guard.retained.wal.fail.bytes";
    public static final String SLOT_GUARD_SNAPSHOT_ACTION = "slot.guard.snapshot.action";

    /** no_tables: Debezium's mode that creates a missing publication for no tables (they are added to it by hand). */
    public enum AutocreateMode { ALL_TABLES, FILTERED, DISABLED, NO_TABLES }

    /**
     * no_data: Debezium's name for never (stream only; incremental snapshots on signal); always: as
     * initial, and a copy again at every later start.
     */
    public enum SnapshotMode { INITIAL, NEVER, INITIAL_ONLY, WHEN_NEEDED, NO_DATA, ALWAYS }

    /** What a task does when stored offsets exist but the slot cannot serve them (gone, or re-created past them). */
    public enum SlotLostHandling { FAIL, SNAPSHOT }

    public enum DecimalMode { PRECISE, DOUBLE, STRING }

    public enum BinaryMode { BYTES, BASE64, BASE64_URL_SAFE, HEX }

    public enum TimePrecisionMode { ADAPTIVE, ADAPTIVE_TIME_MICROSECONDS, ISOSTRING, CONNECT, MICROSECONDS, NANOSECONDS }

    /** interval.handling.mode: Debezium's MicroDuration (numeric) or ISO-8601 text (string). */
    public enum IntervalMode { NUMERIC, STRING }

    /** hstore.handling.mode: a JSON object as text (json) or a map (map), as Debezium's. */
    public enum HstoreMode { JSON, MAP }

    /** A topic name Kafka accepts (legal characters; length checked by the broker). */
    private static final Pattern TOPIC_CHARS = Pattern.compile("[a-zA-Z0-9._-]+");
    /** What PostgreSQL accepts as a replication slot name. */
    private static final Pattern SLOT_CHARS = Pattern.compile("[a-z0-9_]{1,63}");

    public static final ConfigDef CONFIG_DEF = IncrementalSnapshotKeys.define(new ConfigDef()
            // PASSWORD, not STRING: a password may be embedded in the URL, and Connect then shows the
            // value as [hidden] in its logs, validation answers and error messages.
            .define(DATABASE_URL, Type.PASSWORD, null, new UrlValidator(), Importance.HIGH,
                    "libpq URI (postgresql://user@host:port/db?sslmode=...) or key=value conninfo. "
                            + "replication=database is added; a password in it is accepted but database.password is preferred."
                            + " Required unless database.hostname (and Debezium's other database.* settings) is given.")
            .define(DATABASE_PASSWORD, Type.PASSWORD, null, Importance.HIGH,
                    "Password; overrides one in database.url. Never logged.")
            .define(SLOT_NAME, Type.STRING, "debezium", new Matches(SLOT_CHARS,
                    "lower-case letters, digits and underscores, at most 63"), Importance.HIGH,
                    "Logical replication slot (pgoutput) this connector owns.")
            .define(SLOT_CREATE, Type.BOOLEAN, true, Importance.MEDIUM,
                    "Create the slot when it is missing; false fails validation when it is missing.")
            .define(SLOT_FAILOVER, Type.BOOLEAN, false, Importance.LOW,
                    "Create the slot with failover=true (PostgreSQL 17+), so it is synchronised to standbys.")
            .define(SLOT_DROP_ON_STOP, Type.BOOLEAN, false, Importance.LOW,
                    "Drop the slot when the task stops cleanly (as Debezium's, for tests and development): the next start"
                            + " finds no slot, so stored offsets then need slot.lost.handling=snapshot or"
                            + " snapshot.mode=when_needed or always.")
            .define(PUBLICATION_NAME, Type.STRING, "dbz_publication", new NonEmpty(), Importance.HIGH,
                    "Publication to stream.")
            .define(PUBLICATION_AUTOCREATE_MODE, Type.STRING, "all_tables", enumValidator(AutocreateMode.class),
                    Importance.MEDIUM, "all_tables, filtered (the include/exclude lists), disabled (must exist) or no_tables (created"
                    + " for no tables when missing; tables are added to it by hand).")
            .define(TABLE_INCLUDE_LIST, Type.LIST, "", new TableListValidator(), Importance.MEDIUM,
                    "Regular expressions for schema.table names to capture.")
            .define(TABLE_EXCLUDE_LIST, Type.LIST, "", new TableListValidator(), Importance.MEDIUM,
                    "Regular expressions for schema.table names not to capture.")
            .define(SLOT_LOST_HANDLING, Type.STRING, "fail", enumValidator(SlotLostHandling.class), Importance.MEDIUM,
                    "Stored offsets exist but the slot is gone or was confirmed past them (re-created): fail (default,"
                    + " the task stops with a message naming both positions) or snapshot (copy every table again under"
                    + " a new slot or the existing one, then stream; changes lost with the old slot are not recovered)")
            .define(SNAPSHOT_MODE, Type.STRING, "initial", new ValuesWithAdvice(SNAPSHOT_MODE, SnapshotMode.class),
                    Importance.MEDIUM, "initial, never, initial_only, when_needed, no_data (as never: stream only; tables"
                    + " are read by incremental snapshots when signalled) or always (initial, and a copy again at every"
                    + " later start).")
            .define(SNAPSHOT_MAX_THREADS, Type.INT, 1, ConfigDef.Range.between(1, 64), Importance.LOW,
                    "Parallel table copies during the snapshot.")
            .define(TOPIC_PREFIX, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new Matches(TOPIC_CHARS,
                    "letters, digits, '.', '_' and '-'"), Importance.HIGH,
                    "Topics are <topic.prefix>.<schema>.<table>; also source.name.")
            .define(HEARTBEAT_INTERVAL_MS, Type.INT, 0, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "0 = off. Otherwise a heartbeat record to __debezium-heartbeat.<topic.prefix> when nothing "
                            + "else was sent for this long, so the offset moves on idle databases.")
            .define(DECIMAL_HANDLING_MODE, Type.STRING, "precise", enumValidator(DecimalMode.class), Importance.MEDIUM,
                    "precise (Decimal), double or string.")
            .define(BINARY_HANDLING_MODE, Type.STRING, "bytes", enumValidator(BinaryMode.class), Importance.LOW,
                    "bytea as bytes, base64, base64-url-safe or hex.")
            .define(TIME_PRECISION_MODE, Type.STRING, "adaptive", enumValidator(TimePrecisionMode.class),
                    Importance.MEDIUM, "date, time and timestamp as Debezium's: adaptive (the unit the column's precision"
                            + " needs), adaptive_time_microseconds, isostring, connect, microseconds or nanoseconds.")
            .define(INTERVAL_HANDLING_MODE, Type.STRING, "numeric", enumValidator(IntervalMode.class), Importance.LOW,
                    "interval as numeric (MicroDuration, microseconds) or string (ISO-8601 Interval).")
            .define(HSTORE_HANDLING_MODE, Type.STRING, "json", enumValidator(HstoreMode.class), Importance.LOW,
                    "hstore as json (a JSON object as text) or map.")
            .define(INCLUDE_UNKNOWN_DATATYPES, Type.BOOLEAN, false, Importance.LOW,
                    "Columns of types neither pgrepl nor Debezium maps (composites, multiranges, tsquery, an extension's"
                            + " base type, ...): false leaves them out of the records and schemas, true sends the bytes of"
                            + " their text form (as binary.handling.mode represents bytes), as Debezium's connector does.")
            .define(MONEY_FRACTION_DIGITS, Type.INT, 2, ConfigDef.Range.between(0, 30), Importance.LOW,
                    "The scale of money's Decimal under decimal.handling.mode=precise, values rounded half up, as"
                            + " Debezium's.")
            .define(STREAMING, Type.STRING, "on", ConfigDef.ValidString.in("off", "on", "parallel"), Importance.LOW,
                    "pgoutput streaming of large in-progress transactions (14+; parallel 16+).")
            .define(MAX_BATCH_SIZE, Type.INT, 2048, ConfigDef.Range.between(1, 1_000_000), Importance.LOW,
                    "Most records one poll() returns.")
            .define(POLL_INTERVAL_MS, Type.INT, 500, ConfigDef.Range.between(1, 60_000), Importance.LOW,
                    "Longest poll() waits for changes before returning what it has.")
            .define(MAX_UNACKNOWLEDGED_RECORDS, Type.INT, 4096, ConfigDef.Range.between(1, 10_000_000), Importance.LOW,
                    "poll() hands over nothing more while this many records are not yet acknowledged by Kafka (a"
                            + " batch may pass it by up to max.batch.size), so that a stopping task's last offset commit"
                            + " fits in task.shutdown.graceful.timeout.ms.")
            .define(MAX_UNACKNOWLEDGED_MS, Type.INT, 1000, ConfigDef.Range.between(1, 600_000), Importance.LOW,
                    "poll() hands over nothing more while the records not yet acknowledged by Kafka would take"
                            + " longer than this to acknowledge at Kafka's slowest recent pace (the last second's, or"
                            + " fewer: any of the last 16 seconds that tell it), beyond a start allowance of 32 records"
                            + " that is also the floor and the only allowance in a task's first 12 seconds, so that a stopping"
                            + " task's last offset commit fits in task.shutdown.graceful.timeout.ms. A transaction's chunk"
                            + " of max.batch.size records may pass it.")
            .define(UNAVAILABLE_VALUE_PLACEHOLDER, Type.STRING, "__debezium_unavailable_value", Importance.LOW,
                    "Value for unchanged TOASTed columns.")
            .define(RESELECT_UNAVAILABLE_VALUES, Type.BOOLEAN, false, Importance.LOW,
                    "Fill unchanged TOASTed columns (the placeholder otherwise) with the row's value read from the"
                            + " table by its replica identity key on a plain connection of the task's own: one query per"
                            + " table per poll() batch. The value is the row's current one when queried, which can be"
                            + " newer than the change; a row that is gone (or whose key changed since) keeps the"
                            + " placeholder, and so does a batch whose query fails (logged).")
            .define(TOMBSTONES_ON_DELETE, Type.BOOLEAN, true, Importance.LOW,
                    "Send a tombstone (null value) after each delete, for log compaction.")
            .define(MESSAGES_TOPIC, Type.STRING, "", Importance.LOW,
                    "Topic for logical decoding messages (pg_logical_emit_message); empty = <topic.prefix>.message, as"
                            + " Debezium's connector names it.")
            .define(PROVIDE_TRANSACTION_METADATA, Type.BOOLEAN, false, Importance.LOW,
                    "Write BEGIN and END records to the transaction topic and a transaction block into every change"
                            + " record, as Debezium's connector does.")
            .define(TOPIC_TRANSACTION, Type.STRING, "transaction", Importance.LOW,
                    "The transaction topic's name after topic.prefix and topic.delimiter.")
            .define(SCHEMA_CHANGES_TOPIC, Type.STRING, "", Importance.LOW,
                    "Topic for schema change records (docs/schema-changes.md): one per change of a captured table's"
                            + " shape (and, with pgrepl's DDL capture on PostgreSQL 14+, per CREATE and DROP TABLE, with"
                            + " the statement), keyed by table, valued in Debezium's SchemaChangeValue shape; empty = none.")
            .define(io.pgrepl.kafka.connect.metrics.MetricNames.ADVANCED_METRICS, Type.BOOLEAN, false, Importance.LOW,
                    "Debezium's advanced.metrics.enable: the streaming JMX bean counts creates, updates, deletes and"
                            + " truncates per table (NumberOfCreateEventsSeen, ...); off, those maps stay empty, as Debezium's.")
            .define(io.pgrepl.kafka.connect.metrics.MetricNames.CUSTOM_METRIC_TAGS, Type.STRING, "",
                    io.pgrepl.kafka.connect.metrics.MetricNames.VALIDATOR, Importance.LOW,
                    "k1=v1,k2=v2: appended to the JMX names of the task's Debezium metrics beans, as Debezium appends them.")
            .define(SLOT_METRICS_INTERVAL_MS, Type.INT, 10_000, ConfigDef.Range.between(0, 3_600_000), Importance.LOW,
                    "How often the slot's own figures (retained WAL, safe_wal_size, wal_status, lag, spill) are read"
                            + " from pg_replication_slots over a separate ordinary connection and published as the task's"
                            + " metrics (SlotRetainedWalBytes, MilliSecondsBehindSource, ...); 0 turns that off.")
            .define(STATUS_UPDATE_INTERVAL_MS, Type.INT, 10_000, ConfigDef.Range.between(1, 3_600_000), Importance.LOW,
                    "How often the confirmed position is reported to the server (standby status updates); "
                            + "the server also asks for one when wal_sender_timeout nears."));

    // OAuth, a standby's primary and the slot guard: one block, so that other settings
    // added to the chain above merge without touching it.
    static {
        DatabaseSettings.define(CONFIG_DEF);
        CaptureSettings.define(CONFIG_DEF);
        ColumnRules.define(CONFIG_DEF);
        TopicNaming.define(CONFIG_DEF);
    }

    static {
        CONFIG_DEF
                .define(DATABASE_OAUTH_TOKEN_FILE, Type.STRING, null, Importance.MEDIUM,
                        "For a server that asks for OAuth (pg_hba method oauth, PostgreSQL 18): a file holding the bearer"
                                + " token, read again for every connection (a rotated workload-identity token); a line end is"
                                + " not part of the token.")
                .define(DATABASE_OAUTH_TOKEN_PROVIDER_CLASS, Type.CLASS, null, Importance.MEDIUM,
                        "For a server that asks for OAuth: a class implementing io.pgrepl.client.auth.OAuthBearerTokenSource"
                                + " (public, no-argument constructor), asked once per connection; if it implements"
                                + " org.apache.kafka.common.Configurable it gets the settings under "
                                + DATABASE_OAUTH_TOKEN_PROVIDER_PREFIX + "* without the prefix. Excludes "
                                + DATABASE_OAUTH_TOKEN_FILE + ".")
                .define(DATABASE_PRIMARY_URL, Type.PASSWORD, null, (name, value) -> {
                    if (value instanceof Password p && p.value() != null && !p.value().isBlank()) new UrlValidator().ensureValid(name, value);
                }, Importance.LOW,
                        "When database.url is a hot standby (PostgreSQL 16+): its primary, where pg_log_standby_snapshot()"
                                + " is called while the slot is created, if " + DATABASE_PRIMARY_LOG_STANDBY_SNAPSHOT
                                + " allows it. A password key in it is hidden as database.url's is.")
                .define(DATABASE_PRIMARY_LOG_STANDBY_SNAPSHOT, Type.BOOLEAN, false, Importance.LOW,
                        "Allow the task to ask " + DATABASE_PRIMARY_URL + " to log a standby snapshot (a small WAL record;"
                                + " superuser or an EXECUTE grant) until the slot being created on the standby exists."
                                + " Without it the creation waits for the primary's own running-transactions record.")
                .define(SLOT_GUARD_INTERVAL_MS, Type.INT, 5_000, ConfigDef.Range.between(100, 3_600_000), Importance.LOW,
                        "How often the slot guard reads the slot's safe_wal_size and retained WAL (only when a"
                                + " slot.guard.* threshold is set). Leave room: the slot must not go from the fail threshold"
                                + " to unreserved within one interval.")
                .define(SLOT_GUARD_SAFE_WAL_SIZE_WARN, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                        "Warn when the slot's safe_wal_size (13+, with max_slot_wal_keep_size) falls below this many bytes; 0: off.")
                .define(SLOT_GUARD_SAFE_WAL_SIZE_SNAPSHOT, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW,
                        "Pause or abort (" + SLOT_GUARD_SNAPSHOT_ACTION + ") a running incremental snapshot when safe_wal_size"
                                + " falls below this many bytes; 0: off.")
                .define(SLOT_GUARD_SAFE_WAL_SIZE_FAIL, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                        "Fail the task (not retried) when safe_wal_size falls below this many bytes, before the server"
                                + " invalidates the slot; 0: off (wal_status unreserved always fails it while the guard runs).")
                .define(SLOT_GUARD_RETAINED_WAL_WARN, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                        "Warn when the slot retains more than this many bytes of WAL (current LSN - restart_lsn); 0: off.")
                .define(SLOT_GUARD_RETAINED_WAL_SNAPSHOT, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW,
                        "Pause or abort a running incremental snapshot when the slot retains more than this many bytes; 0: off.")
                .define(SLOT_GUARD_RETAINED_WAL_FAIL, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                        "Fail the task (not retried) when the slot retains more than this many bytes of WAL; 0: off.")
                .define(SLOT_GUARD_SNAPSHOT_ACTION, Type.STRING, "pause", ConfigDef.CaseInsensitiveValidString.in("pause", "abort"),
                        Importance.LOW, "What the snapshot step does to a running incremental snapshot: pause (resumed below"
                                + " the threshold again) or abort.");
    }

    private io.pgrepl.client.auth.OAuthBearerTokenSource oauthSource;

    /** {@return where OAuth tokens come from, made once per config (a provider keeps its cache), or null} */
    public synchronized io.pgrepl.client.auth.OAuthBearerTokenSource oauthTokenSource() {
        if (oauthSource == null) {
            oauthSource = ConnectOAuth.source(getString(DATABASE_OAUTH_TOKEN_FILE), getClass(DATABASE_OAUTH_TOKEN_PROVIDER_CLASS),
                    originalsWithPrefix(DATABASE_OAUTH_TOKEN_PROVIDER_PREFIX));
        }
        return oauthSource;
    }

    /** {@return the primary's URL (with database.password when it names no password of its own), or null} */
    public String primaryUrl() {
        Password p = getPassword(DATABASE_PRIMARY_URL);
        return p == null || p.value() == null || p.value().isBlank() ? null : p.value();
    }

    public boolean primaryLogStandbySnapshot() { return getBoolean(DATABASE_PRIMARY_LOG_STANDBY_SNAPSHOT); }

    public int slotGuardIntervalMs() { return getInt(SLOT_GUARD_INTERVAL_MS); }

    /** {@return the guard's thresholds in bytes: safe_wal_size warn, snapshot, fail, then retained WAL warn, snapshot, fail} */
    public long[] slotGuardThresholds() {
        return new long[] {getLong(SLOT_GUARD_SAFE_WAL_SIZE_WARN), getLong(SLOT_GUARD_SAFE_WAL_SIZE_SNAPSHOT),
                getLong(SLOT_GUARD_SAFE_WAL_SIZE_FAIL), getLong(SLOT_GUARD_RETAINED_WAL_WARN),
                getLong(SLOT_GUARD_RETAINED_WAL_SNAPSHOT), getLong(SLOT_GUARD_RETAINED_WAL_FAIL)};
    }

    public boolean slotGuardAbortsSnapshot() { return "abort".equalsIgnoreCase(getString(SLOT_GUARD_SNAPSHOT_ACTION)); }

    /**
     * @throws ConfigException for a value the definitions refuse, and for a Debezium setting pgrepl
     *         does not honour or an unknown key that looks like a setting (see {@link SettingsCheck})
     */
    public PgreplConnectorConfig(Map<?, ?> props) {
        super(CONFIG_DEF, props, false);
        @SuppressWarnings("unchecked")
        Map<String, ?> keyed = (Map<String, ?>) props;
        SettingsCheck.requireClean(keyed, CONFIG_DEF);
    }

    /** {@return database.url, or null when the connection is given by database.hostname and the other parts} */
    public String url() {
        Password p = getPassword(DATABASE_URL);
        return p == null || p.value() == null || p.value().isBlank() ? null : p.value();
    }

    /**
     * The replication connection's settings: the URL (or Debezium's database.hostname, port, user,
     * dbname and ssl* settings), replication=database, the password key on top.
     */
    public ConnectionConfig connectionConfig() {
        String url = url();
        ConnectionConfig.Builder b = (url != null ? ConnectionConfig.parse(url).toBuilder() : DatabaseSettings.fromParts(this::get))
                .replication(ReplicationMode.DATABASE);
        Password p = getPassword(DATABASE_PASSWORD);
        if (p != null && p.value() != null && !p.value().isEmpty()) b.password(p.value());
        DriverSettings.apply(originals(), b);
        if (b.build().applicationName() == null) b.applicationName("pgrepl-kafka-connect");
        b.oauthTokenSource(oauthTokenSource()); // null unless a token setting is given
        return b.build();
    }

    /**
     * The settings of a connection that reads table rows (the snapshot's COPY workers, incremental
     * snapshot chunks, reselect queries): the replication connection's without replication, with
     * database.initial.statements' session parameters.
     */
    public ConnectionConfig dataConnectionConfig() {
        ConnectionConfig.Builder b = connectionConfig().toBuilder().replication(ReplicationMode.NONE);
        InitialStatements.parameters(getString(DatabaseSettings.INITIAL_STATEMENTS)).forEach(b::startupParameter);
        return b.build();
    }

    public String slotName() { return getString(SLOT_NAME); }
    public boolean slotCreate() { return getBoolean(SLOT_CREATE); }
    public boolean slotFailover() { return getBoolean(SLOT_FAILOVER); }
    public boolean slotDropOnStop() { return getBoolean(SLOT_DROP_ON_STOP); }
    public String publicationName() { return getString(PUBLICATION_NAME); }
    public AutocreateMode autocreateMode() { return mode(AutocreateMode.class, PUBLICATION_AUTOCREATE_MODE); }
    public TableFilter tableFilter() {
        return new TableFilter(getList(TABLE_INCLUDE_LIST), getList(TABLE_EXCLUDE_LIST), getList(CaptureSettings.SCHEMA_INCLUDE),
                getList(CaptureSettings.SCHEMA_EXCLUDE));
    }

    /** {@return the column settings (lists, masks, hashes, truncation, message.key.columns)} */
    public ColumnRules columnRules() {
        return ColumnRules.from(originals());
    }

    public SkippedOperations skippedOperations() { return SkippedOperations.parse(getString(CaptureSettings.SKIPPED_OPERATIONS)); }
    public SnapshotMode snapshotMode() { return mode(SnapshotMode.class, SNAPSHOT_MODE); }
    public SlotLostHandling slotLostHandling() { return mode(SlotLostHandling.class, SLOT_LOST_HANDLING); }
    public int snapshotMaxThreads() { return getInt(SNAPSHOT_MAX_THREADS); }
    public String topicPrefix() { return getString(TOPIC_PREFIX); }
    public int heartbeatIntervalMs() { return getInt(HEARTBEAT_INTERVAL_MS); }
    public DecimalMode decimalMode() { return mode(DecimalMode.class, DECIMAL_HANDLING_MODE); }
    public BinaryMode binaryMode() { return mode(BinaryMode.class, BINARY_HANDLING_MODE); }
    public TimePrecisionMode timePrecisionMode() { return mode(TimePrecisionMode.class, TIME_PRECISION_MODE); }
    public IntervalMode intervalMode() { return mode(IntervalMode.class, INTERVAL_HANDLING_MODE); }
    public HstoreMode hstoreMode() { return mode(HstoreMode.class, HSTORE_HANDLING_MODE); }
    public boolean includeUnknownDatatypes() { return getBoolean(INCLUDE_UNKNOWN_DATATYPES); }
    public int moneyFractionDigits() { return getInt(MONEY_FRACTION_DIGITS); }
    public int maxBatchSize() { return getInt(MAX_BATCH_SIZE); }
    public int pollIntervalMs() { return getInt(POLL_INTERVAL_MS); }
    public int maxUnacknowledgedRecords() { return getInt(MAX_UNACKNOWLEDGED_RECORDS); }
    public int maxUnacknowledgedMs() { return getInt(MAX_UNACKNOWLEDGED_MS); }
    public String unavailablePlaceholder() { return getString(UNAVAILABLE_VALUE_PLACEHOLDER); }
    public boolean reselectUnavailableValues() { return getBoolean(RESELECT_UNAVAILABLE_VALUES); }
    public boolean tombstonesOnDelete() { return getBoolean(TOMBSTONES_ON_DELETE); }
    /** messages.topic, else Debezium's {@code <topic.prefix>.message}. */
    public String messagesTopic() {
        String t = getString(MESSAGES_TOPIC);
        return t == null || t.isBlank() ? topicPrefix() + ".message" : t;
    }
    public boolean provideTransactionMetadata() { return getBoolean(PROVIDE_TRANSACTION_METADATA); }
    public String schemaChangesTopic() { return getString(SCHEMA_CHANGES_TOPIC); }
    public int statusUpdateIntervalMs() { return getInt(STATUS_UPDATE_INTERVAL_MS); }

    public int slotMetricsIntervalMs() { return getInt(SLOT_METRICS_INTERVAL_MS); }

    public StreamingMode streaming() {
        return StreamingMode.valueOf(getString(STREAMING).toUpperCase(Locale.ROOT));
    }

    private <E extends Enum<E>> E mode(Class<E> type, String key) {
        // Debezium spells some values with dashes (base64-url-safe)
        return Enum.valueOf(type, getString(key).trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    }
}
