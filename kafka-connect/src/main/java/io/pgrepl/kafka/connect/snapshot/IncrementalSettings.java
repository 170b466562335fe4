package io.pgrepl.kafka.connect.snapshot;

import io.pgrepl.client.snapshot.incremental.CaptureScope;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.TableFilter;
import io.pgrepl.kafka.connect.settings.ColumnRules;
import io.pgrepl.kafka.connect.settings.IncrementalSnapshotKeys;
import java.util.List;
import java.util.Locale;

/**
 * Incremental snapshots, signals and notifications as the connector's config sets them: Debezium's
 * keys where Debezium has one, so a Debezium configuration and its signalling tooling move over
 * unchanged. The keys are defined in {@link IncrementalSnapshotKeys}.
 */
public final class IncrementalSettings {
    // The keys, defined in IncrementalSnapshotKeys, under the names the snapshot and signal code uses.
    public static final String CHUNK_SIZE = IncrementalSnapshotKeys.CHUNK_SIZE;
    public static final String INITIAL_METHOD = IncrementalSnapshotKeys.INITIAL_METHOD;
    public static final String WORKERS_PER_TABLE = IncrementalSnapshotKeys.WORKERS_PER_TABLE;
    public static final String PARALLEL_TABLES = IncrementalSnapshotKeys.PARALLEL_TABLES;
    public static final String SIGNAL_CHANNELS = IncrementalSnapshotKeys.SIGNAL_CHANNELS;
    public static final String SIGNAL_DATA_COLLECTION = IncrementalSnapshotKeys.SIGNAL_DATA_COLLECTION;
    public static final String SIGNAL_KAFKA_TOPIC = IncrementalSnapshotKeys.SIGNAL_KAFKA_TOPIC;
    public static final String SIGNAL_KAFKA_SERVERS = IncrementalSnapshotKeys.SIGNAL_KAFKA_SERVERS;
    public static final String SIGNAL_KAFKA_GROUP = IncrementalSnapshotKeys.SIGNAL_KAFKA_GROUP;
    public static final String SIGNAL_FILE = IncrementalSnapshotKeys.SIGNAL_FILE;
    public static final String SIGNAL_POLL_INTERVAL = IncrementalSnapshotKeys.SIGNAL_POLL_INTERVAL;
    public static final String NOTIFICATION_CHANNELS = IncrementalSnapshotKeys.NOTIFICATION_CHANNELS;
    public static final String NOTIFICATION_TOPIC = IncrementalSnapshotKeys.NOTIFICATION_TOPIC;
    public static final String FAILURE_HANDLING = IncrementalSnapshotKeys.FAILURE_HANDLING;

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
