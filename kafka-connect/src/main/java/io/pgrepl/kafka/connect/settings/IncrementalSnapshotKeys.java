package io.pgrepl.kafka.connect.settings;

import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The keys and definitions of incremental snapshots, signals and notifications (Debezium's keys
 * where Debezium has one). They live here, beside the other settings, so that the connector's
 * ConfigDef does not depend on the snapshot package, whose {@code IncrementalSettings} reads these
 * keys back from the connector's config.
 */
public final class IncrementalSnapshotKeys {
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

    private IncrementalSnapshotKeys() {}

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
}
