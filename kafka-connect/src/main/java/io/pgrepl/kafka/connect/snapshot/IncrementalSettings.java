package io.pgrepl.kafka.connect.snapshot;

import io.pgrepl.client.snapshot.incremental.CaptureScope;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.TableFilter;
import io.pgrepl.kafka.connect.settings.ColumnRules;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Incremental snapshots, signals and notifications: Debezium's keys where Debezium has one, so a
 * Debezium configuration and its signalling tooling move over unchanged.
 */
public final class IncrementalSettings {
    public static final String CHUNK_SIZE = "incremental.snapshot.chunk.size";
    public static final String INITIAL_METHOD = "snapshot.initial.method";
    /** pgrepl's own: Debezium 3.6.1 reads an incremental snapshot's chunks one after another. */
    public static final String WORKERS_PER_TABLE = "incremental.snapshot.workers.per.table";
    public static final String PARALLEL_TABLES = "incremental.snapshot.parallel.tables";
    public static final String SIGNAL_CHANNELS = "signal.enabled.channels";
    public static final String SIGNAL_DATA_COLLECTION = "signal.data.collection";
    public static final String SIGNAL_KAFKA_TOPIC = "signal.kafka.topic";
    public static final String SIGNAL_KAFKA_SERVERS = "signal.kafka.bootstrap.servers";
    public static final String SIGNAL_KAFKA_GROUP = "signal.kafka.groupId";
    public static final String SIGNAL_FILE = "signal.file";
    public static final String SIGNAL_POLL_INTERVAL = "signal.poll.interval.ms";
    public static final String NOTIFICATION_CHANNELS = "notification.enabled.channels";
    public static final String NOTIFICATION_TOPIC = "notification.sink.topic.name";
    /** pgrepl's own: what a table whose incremental snapshot failed does to the task. */
    public static final String FAILURE_HANDLING = "incremental.snapshot.failure.handling.mode";

    /** What a table whose incremental snapshot ended FAILED does to the task. */
    public enum FailureHandling {
        /** A WARN and the notification; the task streams on. */
        WARN,
        /** The task fails (not retriable) naming the table and the reason, after the records before it. */
        FAIL
    }

    /** How the initial load of snapshot.mode initial / when_needed is taken. */
    public enum InitialMethod { COPY, INCREMENTAL }

    private IncrementalSettings() {}

    public static ConfigDef define(ConfigDef d) {
        return d
                .define(CHUNK_SIZE, Type.INT, IncrementalOptions.DEFAULT_CHUNK_SIZE, ConfigDef.Range.between(1, 1_000_000),
                        Importance.MEDIUM, "Rows per chunk of an incremental snapshot (Debezium's default, 1024). Larger"
                                + " chunks read faster; each is one short REPEATABLE READ transaction and is held in memory once.")
                .define(WORKERS_PER_TABLE, Type.INT, 1, ConfigDef.Range.between(1, 64), Importance.LOW,
                        "Key ranges of one table read at once by an incremental snapshot, each on a connection of its"
                                + " own (split at the key's histogram bounds, no scan). The resume state keeps every"
                                + " range's last key, so a restart resumes each range. Debezium has no equivalent.")
                .define(PARALLEL_TABLES, Type.INT, 1, ConfigDef.Range.between(1, 64), Importance.LOW,
                        "Tables an incremental snapshot reads at once (each with " + WORKERS_PER_TABLE + " connections)."
                                + " Debezium reads its tables one after another; its snapshot.max.threads is for the"
                                + " initial snapshot only.")
                .define(INITIAL_METHOD, Type.STRING, "copy", ConfigDef.CaseInsensitiveValidString.in("copy", "incremental"),
                        Importance.MEDIUM, "How snapshot.mode initial/when_needed loads the tables: copy (one exported"
                                + " snapshot while the slot is created; WAL and vacuum's horizon are held until it ends) or"
                                + " incremental (stream at once and read every published table in chunks beside the stream:"
                                + " nothing is held beyond one chunk, and a restart resumes at the last chunk in Kafka).")
                .define(SIGNAL_CHANNELS, Type.LIST, "source", Importance.LOW,
                        "Where snapshot signals come from: source (rows of signal.data.collection), kafka (signal.kafka.topic),"
                                + " jmx (the signal operation of debezium.postgres:type=management,context=signals,"
                                + "server=<topic.prefix>) and/or file (lines of signal.file).")
                .define(SIGNAL_FILE, Type.STRING, "file-signals.txt", Importance.LOW,
                        "The file channel's file on the worker (Debezium's default, relative to the worker's working"
                                + " directory): read every signal.poll.interval.ms and emptied, one signal per line.")
                .define(SIGNAL_POLL_INTERVAL, Type.LONG, 5000L, ConfigDef.Range.between(10, 3_600_000), Importance.LOW,
                        "How often the file channel reads signal.file (Debezium's default, 5000 ms). The other channels"
                                + " read signals as they arrive.")
                .define(SIGNAL_DATA_COLLECTION, Type.STRING, "", Importance.MEDIUM,
                        "schema.table of a Debezium-shaped signal table (id varchar(42) PRIMARY KEY, type varchar(32) NOT"
                                + " NULL, data varchar(2048)) in the publication. Its rows are not sent as change records"
                                + " unless table.include.list names it. Also the watermark table on PostgreSQL 10-13.")
                .define(SIGNAL_KAFKA_TOPIC, Type.STRING, "", Importance.LOW,
                        "Topic of the kafka signal channel (one partition; record key = topic.prefix).")
                .define(SIGNAL_KAFKA_SERVERS, Type.STRING, "", Importance.LOW, "bootstrap.servers of the kafka signal channel.")
                .define(SIGNAL_KAFKA_GROUP, Type.STRING, "kafka-signal", Importance.LOW, "Consumer group of the kafka signal channel.")
                .define(NOTIFICATION_CHANNELS, Type.LIST, "", Importance.LOW,
                        "Where incremental snapshot notifications (Debezium's shape) go: sink (records to"
                                + " notification.sink.topic.name), jmx (the bean debezium.postgres:type=management,"
                                + "context=notifications,server=<topic.prefix>) and/or log (an INFO line each).")
                .define(NOTIFICATION_TOPIC, Type.STRING, "", Importance.LOW, "Topic of the sink notification channel.")
                .define(FAILURE_HANDLING, Type.STRING, "warn", ConfigDef.CaseInsensitiveValidString.in("warn", "fail"),
                        Importance.LOW, "When a table's incremental snapshot fails (a deterministic error such as a"
                                + " dropped table, no usable key or a missing privilege, or a transient one that outlasted"
                                + " its retries): warn (a WARN naming the table and the reason, the TABLE_SCAN_COMPLETED"
                                + " notification with status SQL_EXCEPTION, and the task streams on; the table is not"
                                + " read until requested again) or fail (the task fails, not retriable, with an error"
                                + " naming the table and the reason). The failed table is never retried by itself.");
    }

    public static int chunkSize(PgreplConnectorConfig c) {
        return c.getInt(CHUNK_SIZE);
    }

    public static FailureHandling failureHandling(PgreplConnectorConfig c) {
        return FailureHandling.valueOf(c.getString(FAILURE_HANDLING).trim().toUpperCase(Locale.ROOT));
    }

    public static InitialMethod initialMethod(PgreplConnectorConfig c) {
        return InitialMethod.valueOf(c.getString(INITIAL_METHOD).trim().toUpperCase(Locale.ROOT));
    }

    private static boolean listed(PgreplConnectorConfig c, String key, String value) {
        List<String> l = c.getList(key);
        return l.stream().anyMatch(s -> s.trim().equalsIgnoreCase(value));
    }

    /** The signal table when the source channel is on, else null. */
    public static String signalTable(PgreplConnectorConfig c) {
        String t = c.getString(SIGNAL_DATA_COLLECTION).trim();
        return t.isEmpty() || !listed(c, SIGNAL_CHANNELS, "source") ? null : t;
    }

    /** Whether the jmx signal channel is on. */
    public static boolean jmxChannel(PgreplConnectorConfig c) {
        return listed(c, SIGNAL_CHANNELS, "jmx");
    }

    /** Whether the file signal channel is on. */
    public static boolean fileChannel(PgreplConnectorConfig c) {
        return listed(c, SIGNAL_CHANNELS, "file");
    }

    /** Whether the jmx notification channel is on. */
    public static boolean jmxNotifications(PgreplConnectorConfig c) {
        return listed(c, NOTIFICATION_CHANNELS, "jmx");
    }

    /** Whether the log notification channel is on. */
    public static boolean logNotifications(PgreplConnectorConfig c) {
        return listed(c, NOTIFICATION_CHANNELS, "log");
    }

    public static boolean kafkaChannel(PgreplConnectorConfig c) {
        return listed(c, SIGNAL_CHANNELS, "kafka");
    }

    public static String kafkaTopic(PgreplConnectorConfig c) {
        return c.getString(SIGNAL_KAFKA_TOPIC).trim();
    }

    public static String kafkaServers(PgreplConnectorConfig c) {
        return c.getString(SIGNAL_KAFKA_SERVERS).trim();
    }

    public static String kafkaGroup(PgreplConnectorConfig c) {
        return c.getString(SIGNAL_KAFKA_GROUP).trim();
    }

    /** The notification topic when the sink channel is on, else null. */
    public static String notificationTopic(PgreplConnectorConfig c) {
        String t = c.getString(NOTIFICATION_TOPIC).trim();
        return listed(c, NOTIFICATION_CHANNELS, "sink") && !t.isEmpty() ? t : null;
    }

    /**
     * True when the stream runs under the incremental snapshot engine: a signal can reach it, or the
     * initial load is incremental. Otherwise the stream is exactly what it was without this feature.
     */
    public static boolean enabled(PgreplConnectorConfig c) {
        return signalTable(c) != null || kafkaChannel(c) || jmxChannel(c) || fileChannel(c) || initialMethod(c) == InitialMethod.INCREMENTAL;
    }

    /** The engine's options for this connector, resuming from {@code resumeState} (or null). */
    public static IncrementalOptions options(PgreplConnectorConfig c, String resumeState) {
        IncrementalOptions o = IncrementalOptions.of(c.dataConnectionConfig()).withChunkSize(chunkSize(c))
                .withSignalTable(signalTable(c)).withWorkersPerTable(c.getInt(WORKERS_PER_TABLE))
                .withParallelTables(c.getInt(PARALLEL_TABLES)).withCapture(capture(c));
        return resumeState == null ? o : o.withResumeState(resumeState);
    }

    /**
     * What the connector captures, for the engine to refuse the rest unread, whichever channel asks:
     * the table and schema lists (and the signal table, as the records leave it out), and a key
     * column the column lists leave out (the chunks are bounded by its values).
     */
    static CaptureScope capture(PgreplConnectorConfig c) {
        String signal = signalTable(c);
        String[] st = signal == null ? null : IncrementalSetup.split(signal);
        TableFilter filter = st == null ? c.tableFilter() : c.tableFilter().hiding(st[0], st[1]);
        ColumnRules columns = c.columnRules();
        return new CaptureScope() {
            @Override
            public String excludes(String schema, String table) {
                String setting = filter.excludedBy(schema, table);
                return setting == null ? null : schema + "." + table + " is not captured: " + setting
                        + (setting.endsWith(".include.list") ? " does not list it" : setting.endsWith(".exclude.list") ? " excludes it"
                        : " (the signal table is captured only when table.include.list names it)");
            }

            @Override
            public String excludesColumn(String schema, String table, String column) {
                String setting = columns.excludedBy(schema, table, column);
                return setting == null ? null : "key column " + schema + "." + table + "." + column + " is not captured ("
                        + setting + (setting.equals(ColumnRules.EXCLUDE) ? " excludes it" : " does not list it")
                        + "): its values would bound the snapshot's chunks";
            }
        };
    }
}
