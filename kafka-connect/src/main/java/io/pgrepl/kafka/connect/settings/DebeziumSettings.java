package io.pgrepl.kafka.connect.settings;

import static io.pgrepl.kafka.connect.settings.DebeziumSetting.oneOf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Every setting of Debezium's PostgreSQL connector 3.x (its {@code PostgresConnectorConfig} field
 * set, the common and relational ones, the topic naming, signal and notification channels', a few
 * removed names) and what pgrepl does with it. A Debezium configuration either works with the same
 * meaning, works with a difference stated here (and in docs/migrating-from-debezium.md, generated
 * from this list), or is refused at validation with what to do instead: nothing is ignored.
 */
public final class DebeziumSettings {
    private DebeziumSettings() {}

    private static final Predicate<String> ZERO = v -> v.matches("0+");
    private static final Predicate<String> FALSE = oneOf("false");
    private static final Predicate<String> TRUE = oneOf("true");

    /** Debezium's snapshot.mode values pgrepl refuses, each with what to use instead. */
    private static final Map<String, String> SNAPSHOT_MODES = snapshotModes();

    private static final List<DebeziumSetting> ALL = Collections.unmodifiableList(build());

    private static Map<String, String> snapshotModes() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("configuration_based", "use the mode its snapshot.mode.configuration.based.* flags describe: initial (data"
                + " and stream), initial_only (data without stream), no_data (stream only) or always, with"
                + " slot.lost.handling=snapshot for snapshot.on.data.error");
        m.put("custom", "pgrepl cannot run a Debezium Snapshotter: use the built-in mode it implements (initial,"
                + " initial_only, when_needed, no_data or always), or signal incremental snapshots of the tables it would read");
        m.put("recovery", "a mode for Debezium connectors with a schema history, which the PostgreSQL connector has not:"
                + " use when_needed (a copy when the offsets cannot be served) or initial");
        return Collections.unmodifiableMap(m);
    }

    /** {@return the values of {@code key} pgrepl refuses on their own, lower case, each with what to do instead} */
    public static Map<String, String> refusedValues(String key) {
        return key.equals("snapshot.mode") ? SNAPSHOT_MODES : Map.of();
    }

    /** {@return every classified setting, in the order of the migration guide's table} */
    public static List<DebeziumSetting> all() {
        return ALL;
    }

    /** {@return the setting covering {@code key}, if Debezium has one} */
    public static Optional<DebeziumSetting> find(String key) {
        for (DebeziumSetting s : ALL) if (s.covers(key)) return Optional.of(s);
        return Optional.empty();
    }

    private static List<DebeziumSetting> build() {
        List<DebeziumSetting> l = new ArrayList<>();
        // --- Connection
        l.add(same("database.password"));
        l.add(same("database.hostname"));
        l.add(same("database.port"));
        l.add(same("database.user"));
        l.add(same("database.dbname"));
        l.add(same("database.sslmode"));
        l.add(same("database.sslrootcert"));
        l.add(same("database.sslcert"));
        l.add(same("database.sslkey"));
        l.add(same("database.sslpassword"));
        l.add(refused("database.sslfactory", "pgrepl speaks TLS itself, without pgJDBC's socket factories: use sslmode, sslrootcert, sslcert and sslkey"));
        l.add(differs("database.tcpKeepAlive", "no effect: pgrepl's connections always use TCP keepalive"));
        l.add(differs("database.initial.statements", "only SET statements (SET name = value, SET ROLE, SET TIME ZONE) are"
                + " taken, as session parameters of every connection that reads table rows; any other statement is refused"));
        l.add(differs("database.query.timeout.ms", "no effect: pgrepl sets no client-side query timeout (a server"
                + " statement_timeout applies as set for the role or database)"));
        l.add(differs("connection.validation.timeout.ms", "no effect: validation connects with database.url's connect_timeout"));
        // --- Replication slot and publication
        l.add(same("slot.name"));
        l.add(same("slot.failover"));
        l.add(only("plugin.name", Treatment.SAME, "", oneOf("pgoutput"), "pgoutput",
                "pgrepl decodes pgoutput only: set plugin.name=pgoutput (a slot of another plugin cannot be read)"));
        l.add(same("slot.drop.on.stop"));
        l.add(refused("slot.stream.params", "pgrepl sets pgoutput's options itself (proto_version, publication_names, messages,"
                + " streaming); use the streaming setting for large transactions"));
        l.add(differs("slot.max.retries", "no effect: a slot held by another connection is waited for (up to wal_sender_timeout),"
                + " other failures are retried by the task's reconnect budget"));
        l.add(differs("slot.retry.delay.ms", "no effect: see slot.max.retries"));
        l.add(same("publication.name"));
        l.add(same("publication.autocreate.mode"));
        l.add(only("publish.via.partition.root", Treatment.SAME, "", FALSE, "false",
                "pgrepl does not set publish_via_partition_root: create the publication yourself with it and set"
                        + " publication.autocreate.mode=disabled"));
        l.add(refused("replica.identity.autoset.values", "set each table's replica identity with ALTER TABLE ... REPLICA IDENTITY"));
        l.add(refused("offset.mismatch.strategy", "use slot.lost.handling (fail or snapshot) for offsets the slot cannot serve"));
        l.add(only("lsn.flush.mode", Treatment.DIFFERENT, "connector_and_driver is read as connector: the slot is confirmed"
                + " only to offsets Kafka Connect committed, never by idle keepalives", oneOf("connector", "connector_and_driver"),
                "connector or connector_and_driver", "remove it (or set connector): pgrepl confirms the slot to the offsets"
                        + " Kafka Connect committed and has no mode that leaves the slot to another process"));
        l.add(only("flush.lsn.source", Treatment.SAME, "", TRUE, "true",
                "remove it (or set true): pgrepl confirms the slot to the offsets Kafka Connect committed and has no mode"
                        + " that leaves the slot to another process"));
        l.add(differs("lsn.flush.timeout.ms", "no effect: pgrepl confirms the slot with standby status updates that wait for no answer"));
        l.add(differs("lsn.flush.timeout.action", "no effect: see lsn.flush.timeout.ms"));
        l.add(same("status.update.interval.ms"));
        l.add(only("xmin.fetch.interval.ms", Treatment.SAME, "", ZERO, "0",
                "remove it (or set 0): pgrepl does not read the slot's xmin, so source.xmin is always null"));
        // --- What is captured
        l.add(same("table.include.list"));
        l.add(same("table.exclude.list"));
        l.add(same("schema.include.list"));
        l.add(same("schema.exclude.list"));
        l.add(same("column.include.list"));
        l.add(same("column.exclude.list"));
        l.add(differs("table.ignore.builtin", "no effect: a publication never holds system tables"));
        l.add(refused("database.include.list", "a PostgreSQL connector reads one database: name it in database.url"));
        l.add(refused("database.exclude.list", "a PostgreSQL connector reads one database: name it in database.url"));
        l.add(same("skipped.operations"));
        l.add(same("message.prefix.include.list"));
        l.add(same("message.prefix.exclude.list"));
        // --- Data shaping
        l.add(pattern("column.mask.with.N.chars", "column\\.mask\\.with\\.(\\d+)\\.chars", "column.mask.with.(d+).chars",
                Treatment.DIFFERENT, "a matched column that is not char, varchar or text fails the task (Debezium sends it"
                        + " unmasked), NULL stays NULL (Debezium sends the mask), every matching rule applies (Debezium applies"
                        + " the first), and a column named in message.key.columns is masked in the key too (Debezium sends it in"
                        + " clear there); an unchanged TOASTed value is masked, as Debezium masks its placeholder"));
        l.add(pattern("column.mask.hash.ALGORITHM.with.salt.SALT", "column\\.mask\\.hash\\.(?!v2\\.)([^.]+)\\.with\\.salt\\.(.+)",
                "column.mask.hash.([^.]+).with.salt.(.+)", Treatment.DIFFERENT, "the same hashes as Debezium's, an unchanged"
                        + " TOASTed value's being the hash of unavailable.value.placeholder as in Debezium; a matched column"
                        + " that is not char, varchar or text fails the task (Debezium sends it unhashed); a column named in"
                        + " message.key.columns is hashed in the key too (Debezium sends it in clear there)"));
        l.add(pattern("column.mask.hash.v2.ALGORITHM.with.salt.SALT", "column\\.mask\\.hash\\.v2\\.([^.]+)\\.with\\.salt\\.(.+)",
                null, Treatment.DIFFERENT, "as column.mask.hash.ALGORITHM.with.salt.SALT; the text is hashed as UTF-8 (Debezium"
                        + " hashes it in the JVM's default charset: UTF-8 from Java 18, the locale's before)"));
        l.add(pattern("column.truncate.to.N.chars", "column\\.truncate\\.to\\.(\\d+)\\.chars", "column.truncate.to.(d+).chars",
                Treatment.DIFFERENT, "cut to N UTF-16 units as Debezium cuts it, except that a character outside the BMP the"
                        + " cut would split is left out whole (Debezium keeps its high surrogate alone, which is not valid UTF-8):"
                        + " never longer than Debezium's; a masked or hashed column is not truncated; an unchanged TOASTed"
                        + " value's text placeholder is cut and a bytea's sent whole, as Debezium does"));
        l.add(differs("column.propagate.source.type", "the type is pg_type.typname in upper case (as Debezium's), the"
                + " length and scale are given where the column declares them (char, varchar and bit lengths, numeric precision"
                + " and scale), not the display sizes pgJDBC gives Debezium for other types"));
        l.add(differs("datatype.propagate.source.type", "matched against schema.table.typename, as Debezium matches it; the"
                + " parameters as column.propagate.source.type's"));
        l.add(differs("message.key.columns", "the key's fields follow the table's column order; a key field is required"
                + " when its column belongs to the replica identity (under FULL, the primary key) and optional otherwise,"
                + " where Debezium makes every NOT NULL column required (pgoutput does not say which are, and a delete's old"
                + " row has only the replica identity unless it is FULL); the row's fields keep their optionality; a masked or"
                + " hashed column is masked or hashed in the key too (Debezium sends it in clear in the key)"));
        l.add(same("include.unknown.datatypes"));
        l.add(same("decimal.handling.mode"));
        l.add(same("binary.handling.mode"));
        l.add(differs("time.precision.mode", "pgrepl's default is adaptive_time_microseconds (Debezium's is adaptive), and"
                + " connect is taken as adaptive_time_microseconds is for TIME columns"));
        l.add(same("hstore.handling.mode"));
        l.add(same("interval.handling.mode"));
        l.add(same("money.fraction.digits"));
        l.add(same("unavailable.value.placeholder"));
        l.add(same("tombstones.on.delete"));
        l.add(only("include.schema.comments", Treatment.SAME, "", FALSE, "false",
                "remove it (or set false): pgrepl does not read column comments into the schemas"));
        l.add(only("schema.name.adjustment.mode", Treatment.SAME, "", oneOf("none"), "none",
                "pgrepl names schemas after the topic as given: rename them with a SetSchemaMetadata transform"));
        l.add(only("field.name.adjustment.mode", Treatment.SAME, "", oneOf("none"), "none",
                "pgrepl names fields after the columns as they are: rename them with a ReplaceField transform"));
        l.add(refused("converters", "Debezium's CustomConverter classes cannot run in pgrepl: use a Single Message Transform"));
        l.add(refused("post.processors", "use reselect.unavailable.values for ReselectColumnsPostProcessor, a Single Message Transform otherwise"));
        l.add(only("event.processing.failure.handling.mode", Treatment.SAME, "", oneOf("fail"), "fail",
                "remove it (or set fail): pgrepl never skips a change it cannot process (the task fails and names it)"));
        l.add(only("event.converting.failure.handling.mode", Treatment.SAME, "", oneOf("fail"), "fail",
                "remove it (or set fail): pgrepl never sends a value it could not convert (the task fails and names it)"));
        l.add(only("skip.messages.without.change", Treatment.SAME, "", FALSE, "false",
                "pgrepl sends every change: drop unchanged updates with a transform"));
        l.add(only("schema.refresh.mode", Treatment.SAME, "", oneOf("columns_diff"), "columns_diff",
                "remove it (or set columns_diff): pgrepl takes each Relation message's columns as they come"));
        l.add(only("sourceinfo.struct.maker", Treatment.SAME, "", oneOf("io.debezium.connector.postgresql.postgressourceinfostructmaker"),
                "io.debezium.connector.postgresql.PostgresSourceInfoStructMaker", "remove it: pgrepl writes Debezium's PostgreSQL"
                + " source block only"));
        l.add(differs("extended.headers.enabled", "no effect: pgrepl adds no __debezium.context.* headers (Debezium adds them"
                + " by default)"));
        l.add(only("include.schema.changes", Treatment.SAME, "", FALSE, "false",
                "remove it (Debezium's PostgreSQL connector writes no schema change topic either); set schema.changes.topic"
                        + " for pgrepl's schema change records"));
        // --- Topics
        l.add(same("topic.prefix"));
        l.add(only("topic.naming.strategy", Treatment.SAME, "", v -> v.equals(TopicNaming.SCHEMA) || v.equals(TopicNaming.SCHEMA_UNICODE),
                "io.debezium.schema.SchemaTopicNamingStrategy and io.debezium.schema.SchemaUnicodeTopicNamingStrategy",
                "rename topics with a RegexRouter transform (Debezium's Default* strategies drop the schema from PostgreSQL topics)"));
        l.add(same("topic.delimiter"));
        l.add(differs("topic.cache.size", "no effect: pgrepl keeps one topic name per table it has seen"));
        l.add(only("topic.heartbeat.prefix", Treatment.SAME, "", oneOf("__debezium-heartbeat"), "__debezium-heartbeat",
                "heartbeats go to __debezium-heartbeat.<topic.prefix>; rename them with a RegexRouter transform"));
        l.add(only("heartbeat.topics.prefix", Treatment.SAME, "", oneOf("__debezium-heartbeat"), "__debezium-heartbeat",
                "heartbeats go to __debezium-heartbeat.<topic.prefix>; rename them with a RegexRouter transform"));
        l.add(refused("topic.heartbeat.name", "heartbeats go to __debezium-heartbeat.<topic.prefix>; rename them with a RegexRouter transform"));
        l.add(same("topic.transaction"));
        l.add(differs("provide.transaction.metadata", "BEGIN and END records and the transaction block as Debezium's; the"
                + " LSN in a change's transaction id is its transaction's commit LSN, as in its source.lsn (pgoutput names no"
                + " per-change LSN); a logical message counts under LOGICAL_DECODING_MESSAGE (Debezium: a name of its own"
                + " per message); the offsets keep transaction_id but not the per-table counters, which a restart counts"
                + " again while it skips what it sent"));
        l.add(only("transaction.metadata.factory", Treatment.SAME, "",
                oneOf("io.debezium.pipeline.txmetadata.defaulttransactionmetadatafactory"),
                "io.debezium.pipeline.txmetadata.DefaultTransactionMetadataFactory", "remove it: pgrepl writes Debezium's"
                + " default transaction metadata only"));
        l.add(same("heartbeat.interval.ms"));
        l.add(refused("heartbeat.action.query", "pgrepl moves the slot on an idle database with heartbeat.interval.ms alone; run"
                + " a periodic write yourself if the publication's tables never change"));
        // --- Snapshots
        StringBuilder modes = new StringBuilder("initial, initial_only, when_needed, never, no_data (as never) and always"
                + " are read; refused:");
        SNAPSHOT_MODES.forEach((v, advice) -> modes.append(" ").append(v).append(" (").append(advice).append(");"));
        l.add(differs("snapshot.mode", modes.substring(0, modes.length() - 1)));
        l.add(differs("snapshot.max.threads", "COPY connections over all tables, and tables above 32 MiB are split into page"
                + " ranges (PostgreSQL 14+)"));
        l.add(differs("snapshot.max.threads.multiplier", "no effect: large tables are split by page ranges on their own"));
        l.add(only("legacy.snapshot.max.threads", Treatment.SAME, "", FALSE, "false", "remove it"));
        l.add(only("snapshot.locking.mode", Treatment.SAME, "", oneOf("none"), "none",
                "remove it (or set none): pgrepl's copy takes no table locks beyond COPY's own ACCESS SHARE"));
        l.add(refused("snapshot.locking.mode.custom.name", "remove it: pgrepl takes no table locks (snapshot.locking.mode=none)"));
        l.add(differs("snapshot.lock.timeout.ms", "no effect: pgrepl takes no explicit table locks"));
        l.add(differs("snapshot.isolation.mode", "no effect: the copy always reads under the slot's exported snapshot"
                + " (REPEATABLE READ), consistent with where the stream starts"));
        l.add(only("snapshot.query.mode", Treatment.SAME, "", oneOf("select_all"), "select_all",
                "remove it (or set select_all): pgrepl copies every published column; leave columns out with column.exclude.list"));
        l.add(refused("snapshot.query.mode.custom.name", "remove it: pgrepl copies every published column"
                + " (snapshot.query.mode=select_all); leave columns out with column.exclude.list"));
        l.add(differs("snapshot.mode.custom.name", "no effect unless snapshot.mode=custom (as in Debezium), which is refused"));
        for (String s : List.of("snapshot.data", "snapshot.schema", "start.stream", "snapshot.on.schema.error",
                "snapshot.on.data.error")) {
            l.add(only("snapshot.mode.configuration.based." + s, Treatment.SAME, "", FALSE,
                    "false", "remove it: snapshot.mode=configuration_based is refused (use the mode its flags describe)"));
        }
        l.add(refused("snapshot.select.statement.overrides", "pgrepl's copies and keyed incremental chunks read whole"
                + " published rows and cannot run a query of yours; a publication row filter (CREATE PUBLICATION ... WHERE,"
                + " PostgreSQL 15+, with publication.autocreate.mode=disabled) restricts the rows of the copy, the incremental"
                + " reads and the stream alike, or use column.exclude.list for columns"));
        l.add(refused("snapshot.include.collection.list", "pgrepl copies every table the connector captures: narrow"
                + " table.include.list, or take snapshot.mode=never and signal incremental snapshots of the tables you want"));
        l.add(only("snapshot.tables.order.by.row.count", Treatment.SAME, "", oneOf("disabled"), "disabled",
                "remove it (or set disabled): pgrepl orders the copy by size itself"));
        l.add(only("snapshot.delay.ms", Treatment.SAME, "", ZERO, "0", "remove it (or set 0): pgrepl starts the snapshot at once"));
        l.add(only("streaming.delay.ms", Treatment.SAME, "", ZERO, "0", "remove it (or set 0): pgrepl starts streaming at once"));
        l.add(differs("snapshot.fetch.size", "no effect: COPY streams rows with flow control, not in fetches"));
        l.add(differs("query.fetch.size", "no effect: COPY streams rows with flow control, not in fetches"));
        l.add(same("incremental.snapshot.chunk.size"));
        l.add(differs("incremental.snapshot.watermarking.strategy", "no effect: on PostgreSQL 14+ watermarks are logical"
                + " decoding messages (nothing is written to the signal table), before 14 rows of the signal table"));
        l.add(only("incremental.snapshot.allow.schema.changes", Treatment.SAME, "", FALSE, "false",
                "pgrepl reads each chunk with the columns of the moment; remove it"));
        l.add(only("read.only", Treatment.SAME, "", FALSE, "false",
                "remove it (or set false): pgrepl's incremental snapshots write watermarks (logical decoding messages on 14+)"));
        // --- Signals and notifications
        l.add(only("signal.enabled.channels", Treatment.SAME, "", listOf("source", "kafka", "jmx", "file"), "source, kafka, jmx and file",
                "use jmx instead of in-process, invoking the signal bean's operation on the platform MBean server from the"
                        + " same JVM: Debezium's engine reaches in-process only on a task of Debezium's own classes, which"
                        + " pgrepl's is not"));
        l.add(same("signal.data.collection"));
        l.add(same("signal.kafka.topic"));
        l.add(same("signal.kafka.bootstrap.servers"));
        l.add(same("signal.kafka.groupId"));
        l.add(differs("signal.kafka.poll.timeout.ms", "no effect: the kafka channel is polled as pgrepl's task polls"));
        l.add(differs("signal.poll.interval.ms", "the file channel's interval only: the others read signals as they arrive"
                + " (source from the stream, kafka as its consumer polls, jmx when called)"));
        l.add(same("signal.file"));
        l.add(only("notification.enabled.channels", Treatment.SAME, "", listOf("sink", "jmx", "log"), "sink, jmx and log",
                "use sink, jmx or log"));
        l.add(same("notification.sink.topic.name"));
        // --- Runtime
        l.add(same("max.batch.size"));
        l.add(same("poll.interval.ms"));
        l.add(differs("max.queue.size", "no effect: pgrepl's queues are bounded by max.unacknowledged.records and"
                + " max.unacknowledged.ms"));
        l.add(differs("max.queue.size.in.bytes", "no effect: see max.queue.size"));
        l.add(differs("errors.max.retries", "no effect: the task reconnects up to 10 failures in a row, then fails for Connect"
                + " to restart"));
        l.add(differs("retriable.restart.connector.wait.ms", "no effect: see errors.max.retries"));
        l.add(differs("executor.shutdown.timeout.ms", "no effect: stopping is bounded by Connect's task.shutdown.graceful.timeout.ms"));
        l.add(differs("statistics.metrics.enabled", "no effect: the streaming bean's MilliSecondsBehindSourceP50, P95 and P99"
                + " are always kept (as by Debezium's default, true), over the latest 4096 events"));
        l.add(same("custom.metric.tags"));
        l.add(differs("custom.sanitize.pattern", "no effect: pgrepl logs no setting values, and PASSWORD settings show as [hidden]"));
        l.add(only("guardrail.collections.max", Treatment.SAME, "", ZERO, "0",
                "pgrepl has no table-count guardrail: narrow table.include.list"));
        l.add(differs("guardrail.collections.limit.action", "no effect: guardrail.collections.max is always 0"));
        l.add(refused("memory.management.schemas.class", "an internal Debezium class; remove it"));
        l.add(refused("memory.management.tables.class", "an internal Debezium class; remove it"));
        l.add(refused("queue.provider.type", "an internal Debezium setting; remove it"));
        l.add(only("openlineage.integration.enabled", Treatment.SAME, "", FALSE, "false", "remove it (or set false): pgrepl emits no OpenLineage events"));
        for (String s : List.of("config.file.path", "dataset.kafka.bootstrap.servers", "job.description", "job.namespace",
                "job.owners", "job.tags")) {
            l.add(differs("openlineage.integration." + s, "no effect: openlineage.integration.enabled=true is refused"));
        }
        l.add(pattern("internal.*", "internal\\..*", null, Treatment.REFUSED, "an internal Debezium setting; remove it"));
        // --- Names Debezium itself removed
        l.add(refused("database.server.name", "removed in Debezium 2.0: use topic.prefix"));
        for (String[] old : new String[][] {{"table.whitelist", "table.include.list"}, {"table.blacklist", "table.exclude.list"},
                {"schema.whitelist", "schema.include.list"}, {"schema.blacklist", "schema.exclude.list"},
                {"column.whitelist", "column.include.list"}, {"column.blacklist", "column.exclude.list"}}) {
            l.add(refused(old[0], "removed in Debezium 2.0: use " + old[1]));
        }
        return l;
    }

    /** A comma-separated list whose every element is one of {@code values}. */
    private static Predicate<String> listOf(String... values) {
        Predicate<String> one = oneOf(values);
        return v -> java.util.Arrays.stream(v.split(",")).map(String::trim).filter(e -> !e.isEmpty()).allMatch(one);
    }

    private static DebeziumSetting same(String name) {
        return new DebeziumSetting(name, exactly(name), Treatment.SAME, "", null, "", "");
    }

    private static DebeziumSetting differs(String name, String note) {
        return new DebeziumSetting(name, exactly(name), Treatment.DIFFERENT, note, null, "", "");
    }

    private static DebeziumSetting refused(String name, String advice) {
        return new DebeziumSetting(name, exactly(name), Treatment.REFUSED, advice, null, "", "");
    }

    private static DebeziumSetting only(String name, Treatment t, String note, Predicate<String> honoured, String values,
                                        String otherwise) {
        return new DebeziumSetting(name, exactly(name), t, note, honoured, values, otherwise);
    }

    /**
     * A family of keys ({@code column.mask.with.5.chars}); {@code debeziumName} is how Debezium's
     * field set spells it, so that the contract test finds it.
     */
    private static DebeziumSetting pattern(String name, String regex, String debeziumName, Treatment t, String note) {
        String keys = regex + (debeziumName == null ? "" : "|" + Pattern.quote(debeziumName));
        return new DebeziumSetting(name, Pattern.compile(keys), t, note, null, "", "");
    }

    private static Pattern exactly(String name) {
        return Pattern.compile(Pattern.quote(name));
    }
}
