package io.pgrepl.kafka.connect.records;

import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.Origin;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Truncate;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Update;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.ReplicationSetup;
import io.pgrepl.kafka.connect.TableFilter;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.settings.CaptureSettings;
import io.pgrepl.kafka.connect.settings.ColumnRules;
import io.pgrepl.kafka.connect.settings.SkippedOperations;
import io.pgrepl.kafka.connect.settings.TableShape;
import io.pgrepl.kafka.connect.settings.UnavailableValue;
import io.pgrepl.kafka.connect.settings.TopicNaming;
import io.pgrepl.kafka.connect.snapshot.IncrementalSettings;
import io.pgrepl.kafka.connect.snapshot.IncrementalSetup;
import io.pgrepl.kafka.connect.snapshot.IncrementalStream;
import io.pgrepl.kafka.connect.values.CatalogTypes;
import io.pgrepl.kafka.connect.values.TypeNames;
import io.pgrepl.kafka.connect.values.ValueConverters;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns the changes of one transaction into Debezium-enveloped records, in server order, keeping
 * the schema of each relation from its latest Relation message. Each record's offset is its
 * transaction's end LSN and its place in the transaction, which is what a restart skips by: the
 * ordinal of the row change it came from and its part of that change, neither depending on the
 * configuration (see {@link Position}).
 */
public final class ChangeRecords {
    /** The incremental snapshot engine's watermark messages (its ChunkReader): never sent to the messages topic. */
    private static final String WATERMARK_PREFIX = "pgrepl-wm";
    public static final Schema HEARTBEAT_KEY = SchemaBuilder.struct().name("io.debezium.connector.common.ServerNameKey")
            .field("serverName", Schema.STRING_SCHEMA).build();
    public static final Schema HEARTBEAT_VALUE = SchemaBuilder.struct().name("io.debezium.connector.common.Heartbeat")
            .field("ts_ms", Schema.INT64_SCHEMA).build();
    public static final Schema MESSAGE_KEY = SchemaBuilder.struct().name("io.debezium.connector.postgresql.MessageKey")
            .version(1).field("prefix", Schema.OPTIONAL_STRING_SCHEMA).build();

    private final PgreplConnectorConfig config;
    /** provide.transaction.metadata: null when off. */
    private final TransactionMetadata txMeta;
    /** A transaction (not a standalone message) is being built with transaction metadata, and its BEGIN is still to come. */
    private boolean txOpen;
    private boolean beginPending;
    /** The xid of a transaction Debezium's offsets left in progress (see {@link #continuing}), else null. */
    private String continuing;
    /** Logical decoding messages: Debezium's value schema (its content as binary.handling.mode has it) and topic. */
    private final LogicalMessages messages;
    private final ValueConverters converters;
    /** reselect.unavailable.values: rows with unchanged TOAST values remember what {@link Reselect} needs. */
    private final boolean reselect;
    private final TableFilter filter;
    /** The column settings (lists, masks, hashes, truncation, message.key.columns) and skipped.operations. */
    private final ColumnRules columnRules;
    private final UnavailableValue unavailable;
    private final SkippedOperations skipping;
    /** pg_type names, for column.propagate.source.type and datatype.propagate.source.type. */
    private final TypeNames typeNames;
    /** topic.naming.strategy and topic.delimiter: table topics made valid as Debezium makes them. */
    private final TopicNaming naming;
    /** message.prefix.include.list / exclude.list. */
    private final java.util.function.Predicate<String> messagePrefixes;
    /** A table's key as Debezium chooses it and its columns' defaults (see {@link TableCatalog}). */
    private final TableCatalog.Lookup catalog;
    private final Map<String, ?> partition;
    private final String db;
    private final Map<Integer, Table> schemas = new HashMap<>();
    /** The last table looked up (rows of one table come in runs): saves the boxing and the map lookup. */
    private Table last;
    /** The relation {@link #read} last saw, by identity: its schema is current without comparing columns. */
    private RelationInfo lastRead;

    /** The transaction being converted: set by {@link #begin}. */
    private long endLsn;
    private long commitLsn;
    private long xid;
    private long commitMicros;
    private long previousCommit;
    /** The end LSN of the last transaction wholly built (0: none known yet): Debezium's lsn_commit in the offsets (see {@link Position}). */
    private long committed;
    /** Records of the transaction so far, skipped ones included (what a legacy offset counts). */
    private int index;
    /** Ordinal of the current row change in the transaction (-1: none yet), and messages since it. */
    private int change;
    private int messagesAfter;
    /** The part of {@link #change} that the last change or message processed ends at (-1: nothing yet), and the skip it was checked against. */
    private int lastPart;
    private Position lastSkip;
    /** True once a record of the transaction was not covered by the skip position. */
    private boolean passed;
    /** Counts transactions: a table's cached {@code source} block is for the one it was built in. */
    private long txSeq;
    /** The replication origin of the current transaction (an Origin message follows its Begin), else null. */
    private String origin;
    private long originLsn;
    /** Put into every offset while incremental snapshots run (see {@link IncrementalStream}). */
    private String incrementalState;
    /** schema.changes.topic: its tracker and records, or null when off. */
    private final io.pgrepl.kafka.connect.schema.SchemaChangeTopic schemaTopic;
    /**
     * A schema change record goes just before the row change that follows its Relation: at that change's
     * ordinal, in parts that sort before its own (this, plus the Relation's place among those before it).
     */
    private static final int PART_SCHEMA = Integer.MIN_VALUE / 2;
    private int relationsSinceChange;

    public ChangeRecords(PgreplConnectorConfig config, Map<String, ?> partition, String db, CatalogTypes types,
                  TableCatalog.Lookup catalog) {
        this.config = config;
        this.txMeta = config.provideTransactionMetadata() ? new TransactionMetadata(TransactionMetadata.topic(
                config.topicPrefix(), config.getString(TopicNaming.DELIMITER), config.getString(PgreplConnectorConfig.TOPIC_TRANSACTION)))
                : null;
        this.messages = new LogicalMessages(config.binaryMode(), config.messagesTopic());
        this.converters = new ValueConverters(ValueConverters.Modes.of(config), types);
        String signal = IncrementalSettings.signalTable(config);
        String[] st = signal == null ? null : IncrementalSetup.split(signal);
        this.filter = st == null ? config.tableFilter() : config.tableFilter().hiding(st[0], st[1]);
        this.columnRules = config.columnRules();
        this.skipping = config.skippedOperations();
        this.typeNames = new TypeNames((sql, what) -> ReplicationSetup.queryOnce(config, sql, what));
        this.naming = TopicNaming.of(config);
        this.messagePrefixes = CaptureSettings.messagePrefixes(config.getList(CaptureSettings.MESSAGE_PREFIX_INCLUDE),
                config.getList(CaptureSettings.MESSAGE_PREFIX_EXCLUDE));
        this.catalog = catalog;
        this.reselect = config.reselectUnavailableValues();
        this.unavailable = UnavailableValue.of(config.unavailablePlaceholder());
        this.partition = partition;
        this.db = db;
        this.schemaTopic = config.schemaChangesTopic().isEmpty() ? null : new io.pgrepl.kafka.connect.schema.SchemaChangeTopic(
                config.schemaChangesTopic(), SourceInfo.SCHEMA, List.of(config.publicationName()), oid -> catalogOf(oid, xid).key());
    }

    public void begin(long endLsn, long commitLsn, long xid, long commitPgMicros) {
        this.previousCommit = this.endLsn;
        this.endLsn = endLsn;
        this.commitLsn = commitLsn;
        this.xid = xid;
        this.commitMicros = commitPgMicros + PgTime.PG_EPOCH_UNIX_MICROS;
        this.index = 0;
        this.change = -1;
        this.messagesAfter = 0;
        this.lastPart = -1;
        this.lastSkip = null;
        this.passed = false;
        this.txSeq++;
        this.origin = null;
        this.originLsn = 0;
        this.relationsSinceChange = 0;
        if (schemaTopic != null) schemaTopic.begin();
        // A standalone message (xid 0) is in no transaction: no BEGIN, END or transaction block, as with Debezium.
        this.txOpen = txMeta != null && xid != 0;
        this.beginPending = txOpen;
        if (txOpen) {
            txMeta.begin(xid);
            if (txMeta.xid().equals(continuing)) beginPending = false;
            continuing = null;
        }
    }

    /**
     * The transaction's BEGIN, before any of its records, at a place before its first row change
     * ({@link #BEGIN_CHANGE}), so a restart that covers it does not send it again.
     */
    private void beginRecord(Position skip, Consumer<SourceRecord> out) {
        beginPending = false;
        change = BEGIN_CHANGE;
        lastPart = Position.PART_MAIN;
        if (skipped(Position.PART_MAIN, skip)) return;
        out.accept(new SourceRecord(partition, offset(Position.PART_MAIN), txMeta.topic(), null, TransactionMetadata.KEY,
                txMeta.key(commitLsn), TransactionMetadata.VALUE, txMeta.beginValue(commitLsn, commitMicros / 1000),
                commitMicros / 1000));
    }

    /**
     * With provide.transaction.metadata, the transaction's END (and its BEGIN if nothing came before),
     * after every record of it: call once it was wholly accepted, before {@link #end}.
     */
    public void endTransaction(Position skip, Consumer<SourceRecord> out) {
        if (!txOpen) return;
        lastSkip = skip;
        if (beginPending) beginRecord(skip, out);
        txOpen = false;
        change = END_CHANGE;
        messagesAfter = 0;
        lastPart = Position.PART_MAIN;
        if (skip.covers(endLsn, change, Position.PART_MAIN, index++)) return;
        passed = true;
        // The offset still names the transaction, as Debezium's END record's does.
        Map<String, Object> offset = withTransactionId(Position.record(endLsn, change, Position.PART_MAIN, committed, xid,
                commitMicros), txMeta.xid());
        if (incrementalState != null) offset = Position.withState(offset, incrementalState);
        out.accept(new SourceRecord(partition, offset, txMeta.topic(), null, TransactionMetadata.KEY, txMeta.key(endLsn),
                TransactionMetadata.VALUE, txMeta.endValue(endLsn, commitMicros / 1000), commitMicros / 1000));
    }

    /** The BEGIN's place: before the first row change (ordinal 0) and the messages before it (-1, PART_MESSAGES on). */
    private static final int BEGIN_CHANGE = -1;
    /** The END's place: after every row change and message of the transaction. */
    private static final int END_CHANGE = Integer.MAX_VALUE;

    private static Map<String, Object> withTransactionId(Map<String, Object> offset, String xid) {
        Map<String, Object> m = new HashMap<>(offset);
        m.put(TransactionMetadata.OFFSET_TRANSACTION_ID, xid);
        return m;
    }

    /** How many records of the current transaction were produced (skipped ones included). */
    public int index() {
        return index;
    }

    /**
     * The position that covers everything of the current transaction processed so far (skipped
     * records and filtered changes included), for the builder's resend check; null before
     * anything. While a legacy skip position has not been passed, that position itself: a new
     * format position cannot be compared with it.
     */
    public Position through() {
        if (lastPart < 0) return null;
        if (!passed && lastSkip != null && lastSkip.legacy() && lastSkip.endLsn() == endLsn) return lastSkip;
        return Position.of(endLsn, change, lastPart, committed);
    }

    /** Streaming resumes after {@code position}: its last whole transaction is what the first offsets name to Debezium. */
    public void resumeAfter(Position position) {
        committed = position.commit();
        continuing = null;
    }

    /**
     * Debezium's offsets name transaction {@code xid} ({@code transaction_id}) as in progress: it
     * comes again from its start, without a second BEGIN (its counters start again with it, as
     * its records are all sent again).
     */
    public void continuing(Object xid) {
        continuing = xid instanceof String s ? s : null;
    }

    /** Every change of the current transaction (or standalone message) was built: later offsets name it to Debezium. */
    public void end() {
        committed = endLsn;
    }

    /** A row change starts: the next ordinal, whatever becomes of it. */
    private void rowChange() {
        change++;
        messagesAfter = 0;
        relationsSinceChange = 0;
        // Every part of it but none of the messages after it.
        lastPart = Position.PART_MESSAGES - 1;
    }

    /** True (and counted) when the record at ({@link #change}, {@code part}) is covered by {@code skip}. */
    private boolean skipped(int part, Position skip) {
        int i = index++;
        if (skip.covers(endLsn, change, part, i)) return true;
        passed = true;
        return false;
    }

    /**
     * Adds the records for {@code r} to {@code out}; those at or below {@code skipThrough}
     * (records already written before a restart) are counted but not added.
     */
    public void accept(PgOutputRecord r, Position skipThrough, Consumer<SourceRecord> out) {
        lastSkip = skipThrough;
        if (beginPending) beginRecord(skipThrough, out);
        if (r instanceof Relation rel) {
            relation(rel, xid, true);
            if (schemaTopic != null) {
                schemaRecord(schemaTopic.accept(rel), change + 1, PART_SCHEMA + relationsSinceChange++, skipThrough, out);
            }
        } else if (r instanceof io.pgrepl.codec.pgoutput.record.Type t) {
            if (schemaTopic != null) schemaTopic.accept(t);
        } else if (r instanceof Insert ins) {
            rowChange();
            Table t = table(ins.relationOid());
            if (t != null && !skipping.create()) {
                emit(t, "c", null, row(t, ins.newTuple(), null), ins.newTuple(), Position.PART_MAIN, skipThrough, out);
            }
        } else if (r instanceof Update up) {
            rowChange();
            if (!skipping.update()) update(up, skipThrough, out);
        } else if (r instanceof Delete del) {
            rowChange();
            Table t = table(del.relationOid());
            if (t == null || skipping.delete()) return;
            emit(t, "d", row(t, del.oldTuple(), null), null, del.oldTuple(), Position.PART_MAIN, skipThrough, out);
            if (config.tombstonesOnDelete()) tombstone(t, del.oldTuple(), skipThrough, out);
        } else if (r instanceof Truncate tr) {
            rowChange();
            List<Integer> oids = tr.relationOids();
            for (int k = 0; k < oids.size(); k++) {
                Table t = table(oids.get(k));
                if (t != null && !skipping.truncate()) emitTruncate(t, k, skipThrough, out);
            }
        } else if (r instanceof Message m) {
            message(m, skipThrough, out);
        } else if (r instanceof Origin o) {
            // Sent right after Begin, before any change: every source block of the transaction carries it.
            origin = o.name();
            originLsn = o.originLsn();
        }
        // Type: nothing to send
    }

    /**
     * Row {@code index} of an initial snapshot taken at {@code consistentPoint}: Debezium's read
     * ({@code op=r}, {@code before} null, {@code source.snapshot="true"}), with the topic, key and
     * {@code after} of an insert into the same table. Nothing when the table is filtered out.
     */
    public void read(RelationInfo rel, Insert row, long consistentPoint, int index, long snapshotMicros,
              Consumer<SourceRecord> out) {
        read(rel, row, consistentPoint, "true", Position.snapshotRead(consistentPoint, index), snapshotMicros, out);
    }

    /**
     * A row read by an incremental snapshot at {@code position} (its chunk's high watermark), as
     * Debezium sends one: {@code op=r}, {@code source.snapshot="incremental"}, {@code source.lsn} the
     * position. Nothing when the table is filtered out.
     */
    public void incrementalRead(RelationInfo rel, Insert row, long position, Map<String, ?> offset, Consumer<SourceRecord> out) {
        read(rel, row, position, Position.INCREMENTAL, offset, System.currentTimeMillis() * 1000, out);
    }

    private void read(RelationInfo rel, Insert row, long consistentPoint, String mark, Map<String, ?> offset, long snapshotMicros,
                      Consumer<SourceRecord> out) {
        if (rel != lastRead) {
            // A read is of the table as it is now: its primary key is the catalog's current one.
            relation(new Relation(0, rel.oid(), rel.namespace(), rel.name(), rel.replicaIdentity(), rel.columns()), 0, false);
            lastRead = rel;
        }
        Table t = table(rel.oid());
        if (t == null) return;
        long kind = mark.equals("true") ? -1 : -2;
        if (t.sourceTx != kind || t.sourceBlock == null || t.sourceLsn != consistentPoint) {
            // One source block per table for the whole copy (lastRead copies it before marking the last
            // read), or per chunk of an incremental snapshot.
            t.sourceBlock = SourceInfo.of(config.topicPrefix(), db, rel.namespace(), rel.name(), snapshotMicros, 0,
                    consistentPoint, 0, mark).put(SourceInfo.TX_ID_F, null);
            t.sourceTx = kind;
            t.sourceLsn = consistentPoint;
        }
        long now = System.currentTimeMillis();
        Struct value = new Struct(t.schema.envelopeSchema).put(t.before, null).put(t.after, row(t, row.newTuple(), null))
                .put(t.sourceField, t.sourceBlock).put(t.op, "r").put(t.tsMs, now).put(t.tsUs, now * 1000).put(t.tsNs, now * 1_000_000);
        out.accept(new SourceRecord(partition, offset, t.schema.topic, null,
                t.schema.keySchema, keyOf(t, row.newTuple()), t.schema.envelopeSchema, value, snapshotMicros / 1000));
    }

    /** {@code read} as the snapshot's last record: {@code source.snapshot="last"}, and the offset says the copy is done. */
    public static SourceRecord lastRead(SourceRecord read, long consistentPoint) {
        return markedRead(read, "last", Position.snapshotDone(consistentPoint));
    }

    /** {@code read} with {@code source.snapshot} set to {@code mark} and the given offset. */
    public static SourceRecord markedRead(SourceRecord read, String mark, Map<String, ?> offset) {
        Struct old = (Struct) read.value();
        Struct value = new Struct(old.schema());
        for (Field f : old.schema().fields()) value.put(f, old.get(f));
        value.put("source", SourceInfo.withSnapshot(old.getStruct("source"), mark));
        return new SourceRecord(read.sourcePartition(), offset, read.topic(),
                read.kafkaPartition(), read.keySchema(), read.key(), read.valueSchema(), value, read.timestamp());
    }

    /**
     * @param keyXid the transaction the Relation came in, for a key read from the catalog (0: now)
     * @param reread a Relation message: pgoutput sends one again after the table's definition changed
     *               (ALTER ... SET DEFAULT, a new index), so the catalog is read again even when the
     *               columns are the same, as Debezium reads it at every Relation message
     */
    private void relation(Relation rel, long keyXid, boolean reread) {
        Table old = schemas.get(rel.oid());
        boolean same = old != null && old.schema.sameColumns(rel);
        if (same && !reread) return;
        last = null;
        if (!filter.test(rel.namespace(), rel.name())) {
            schemas.remove(rel.oid());
            return;
        }
        if (columnRules.needsTypeNames()) typeNames.load(rel.columns().stream().map(ColumnInfo::typeOid).toList());
        TableShape shape = columnRules.table(rel.namespace(), rel.name(), rel.columns(), typeNames::name);
        TableCatalog.Info info = catalogOf(rel.oid(), keyXid);
        // The replica identity's columns are the key when they are the primary key (DEFAULT) or the identity
        // index (USING INDEX: a delete's old row has no others). Otherwise (FULL flags every column; NOTHING and
        // a DEFAULT without a primary key flag none) the catalog's: the primary key, or the first unique index.
        boolean flagged = rel.replicaIdentity() == 'i'
                || rel.replicaIdentity() == 'd' && rel.columns().stream().anyMatch(ColumnInfo::isKey);
        Set<String> identity = flagged ? null : present(info.notNull(), rel);
        Set<String> catalogKey = flagged ? null : present(info.key(), rel);
        Set<String> key = shape.keyColumns() != null ? Set.copyOf(shape.keyColumns()) : catalogKey;
        if (same) {
            // The Relation again, columns unchanged: the defaults may be new, the key stays. A key the catalog
            // gives now may come from DDL later in the transaction than the changes this Relation precedes.
            key = old.schema.keyNames;
            identity = old.schema.identityNames;
        }
        String topic = naming.table(config.topicPrefix(), rel.namespace(), rel.name());
        TableSchema schema = new TableSchema(rel, topic, converters, key, identity, shape, info.defaults());
        if (same && java.util.Objects.equals(schema.keySchema, old.schema.keySchema) && schema.rowSchema.equals(old.schema.rowSchema)) {
            return; // nothing the records show changed: the cached table stays
        }
        schemas.put(rel.oid(), new Table(schema, shape, unavailable));
    }

    private TableCatalog.Info catalogOf(int oid, long xid) {
        TableCatalog.Info info = catalog.of(oid, xid);
        return info == null ? TableCatalog.Info.NONE : info;
    }

    /**
     * {@code names} less those the Relation does not have: the catalog is read later than the Relation
     * was sent, and may name a column added since (Debezium leaves those out too).
     */
    private static Set<String> present(Set<String> names, Relation rel) {
        Set<String> out = new java.util.HashSet<>();
        for (ColumnInfo c : rel.columns()) if (names.contains(c.name())) out.add(c.name());
        return out;
    }

    /**
     * The columns the records of table {@code relOid} are keyed by (indexes into its relation: the
     * replica identity, the primary key under FULL, or message.key.columns), or null when the table
     * is not captured or has no key.
     */
    public int[] keyColumns(int relOid) {
        Table t = schemas.get(relOid);
        return t == null || t.schema.keyColumns.length == 0 ? null : t.schema.keyColumns.clone();
    }

    /** Null when the table is filtered out. */
    private Table table(int oid) {
        Table t = last;
        if (t != null && t.oid == oid) return t;
        t = schemas.get(oid);
        if (t != null) last = t;
        return t;
    }

    private void update(Update up, Position skip, Consumer<SourceRecord> out) {
        Table t = table(up.relationOid());
        if (t == null) return;
        Struct before = up.oldTuple() == null ? null : row(t, up.oldTuple(), null);
        Struct after = row(t, up.newTuple(), up.oldTuple());
        if (up.oldTuple() != null && t.schema.keySchema != null && !keyOf(t, up.oldTuple()).equals(keyOf(t, up.newTuple()))) {
            // A key change is a delete of the old key and a create of the new one, as Debezium sends it.
            emit(t, "d", before, null, up.oldTuple(), Position.PART_MAIN, skip, out);
            if (config.tombstonesOnDelete()) tombstone(t, up.oldTuple(), skip, out);
            emit(t, "c", null, after, up.newTuple(), Position.PART_CREATE, skip, out);
            return;
        }
        emit(t, "u", before, after, up.newTuple(), Position.PART_MAIN, skip, out);
    }

    private Struct row(Table t, Tuple tuple, Tuple fallback) {
        Struct s = reselect ? Reselect.row(t.schema, tuple, fallback) : new CheckedStruct(t.schema.rowSchema);
        int n = Math.min(tuple.size(), t.columns.length);
        for (int i = 0; i < n; i++) {
            ValueConverters.Column c = t.columns[i];
            Field f = t.rowFields[i];
            if (f == null) continue; // left out by column.include.list / column.exclude.list
            Tuple from = tuple;
            if (tuple.kind(i) == ColumnKind.UNCHANGED_TOAST) {
                // REPLICA IDENTITY FULL sends the old value: use it; otherwise the placeholder.
                if (fallback != null && i < fallback.size() && fallback.hasValue(i)) from = fallback;
                else {
                    Object p = t.placeholders[i];
                    s.put(f, p instanceof ByteBuffer b ? b.duplicate() : p); // a position of its own per record
                    continue;
                }
            }
            s.put(f, convert(c, from, i));
        }
        return s;
    }

    /** Column {@code i} of {@code tuple} read in place from the tuple's array (no ColumnValue); null without a value. */
    public static Object convert(ValueConverters.Column c, Tuple tuple, int i) {
        Object decoded = tuple.decode(i);
        return decoded == null ? null : c.convert().apply(decoded);
    }

    private Struct keyOf(Table t, Tuple tuple) {
        if (t.schema.keySchema == null) return null;
        Struct k = new Struct(t.schema.keySchema);
        int[] keyColumns = t.schema.keyColumns;
        for (int j = 0; j < keyColumns.length; j++) {
            int idx = keyColumns[j];
            k.put(t.keyFields[j], idx < tuple.size() ? convert(t.columns[idx], tuple, idx) : null);
        }
        return k;
    }

    /**
     * The {@code source} block: the same for every record of one table in one transaction (no
     * per-row LSN in pgoutput), so it is built once per table and transaction and shared by its
     * records (nothing in pgrepl changes it after it is handed over).
     */
    private Struct source(Table t) {
        if (t.sourceTx != txSeq || t.sourceBlock == null) {
            TableSchema s = t.schema;
            t.sourceBlock = SourceInfo.of(config.topicPrefix(), db, s.relation.namespace(), s.relation.name(), commitMicros,
                    xid, commitLsn, previousCommit, "false");
            if (origin != null) t.sourceBlock.put(SourceInfo.ORIGIN_F, origin).put(SourceInfo.ORIGIN_LSN_F, originLsn);
            t.sourceTx = txSeq;
        }
        return t.sourceBlock;
    }

    private void emit(Table t, String op, Struct before, Struct after, Tuple keyTuple, int part, Position skip,
                      Consumer<SourceRecord> out) {
        // Counted whether or not it is skipped: a restart's counters go on from the records written before it.
        Struct tx = txOpen ? txMeta.event(t.collection, commitLsn) : null;
        if (skipped(part, skip)) return;
        long now = System.currentTimeMillis();
        Struct value = new Struct(t.schema.envelopeSchema)
                .put(t.before, before).put(t.after, after).put(t.sourceField, source(t)).put(t.op, op)
                .put(t.tsMs, now).put(t.tsUs, now * 1000).put(t.tsNs, now * 1_000_000);
        if (tx != null) value.put(t.transaction, tx);
        Struct key = keyOf(t, keyTuple);
        out.accept(new SourceRecord(partition, offset(part), t.schema.topic, null,
                t.schema.keySchema, key, t.schema.envelopeSchema, value, commitMicros / 1000));
    }

    private void tombstone(Table t, Tuple keyTuple, Position skip, Consumer<SourceRecord> out) {
        if (skipped(Position.PART_TOMBSTONE, skip)) return;
        out.accept(new SourceRecord(partition, offset(Position.PART_TOMBSTONE), t.schema.topic, null,
                t.schema.keySchema, keyOf(t, keyTuple), null, null, commitMicros / 1000));
    }

    private void emitTruncate(Table t, int part, Position skip, Consumer<SourceRecord> out) {
        Struct tx = txOpen ? txMeta.event(t.collection, commitLsn) : null;
        if (skipped(part, skip)) return;
        Struct value = new Struct(t.schema.envelopeSchema).put(t.sourceField, source(t)).put(t.op, "t")
                .put(t.tsMs, System.currentTimeMillis());
        if (tx != null) value.put(t.transaction, tx);
        out.accept(new SourceRecord(partition, offset(part), t.schema.topic, null,
                null, null, t.schema.envelopeSchema, value, commitMicros / 1000));
    }

    private void message(Message m, Position skip, Consumer<SourceRecord> out) {
        // A place after the row change before it, not an ordinal (messages were once sent only on request).
        int part = Position.PART_MESSAGES + messagesAfter++;
        lastPart = part;
        if (m.prefix().equals(io.pgrepl.client.schema.SchemaTracker.DDL_PREFIX)) {
            // DDL capture's: the schema change topic's input, at the message's own place; never on the messages topic.
            if (schemaTopic != null) schemaRecord(schemaTopic.accept(m), change, part, skip, out);
            return;
        }
        if (m.prefix().equals(WATERMARK_PREFIX) || !messagePrefixes.test(m.prefix())) return;
        // Debezium counts a transactional message as an event of the transaction.
        Struct tx = txOpen ? txMeta.event(TransactionMetadata.MESSAGE_COLLECTION, m.messageLsn()) : null;
        if (skipped(part, skip)) return;
        // Its own LSN, as Debezium's source.lsn; no table, and no xid outside a transaction.
        Struct source = SourceInfo.of(config.topicPrefix(), db, "", "", commitMicros, xid, m.messageLsn(), previousCommit, "false");
        if (xid == 0) source.put(SourceInfo.TX_ID_F, null);
        if (origin != null) source.put(SourceInfo.ORIGIN_F, origin).put(SourceInfo.ORIGIN_LSN_F, originLsn);
        out.accept(new SourceRecord(partition, offset(part), messages.topic(), null, MESSAGE_KEY,
                new Struct(MESSAGE_KEY).put("prefix", m.prefix()), messages.valueSchema(),
                messages.value(source, tx, m.prefix(), m.content(), System.currentTimeMillis())));
    }

    /** A schema change record at ({@code atChange}, {@code part}), unless filtered out or written before a restart. */
    private void schemaRecord(io.pgrepl.client.schema.SchemaChange c, int atChange, int part, Position skip,
                              Consumer<SourceRecord> out) {
        if (c == null || c.schema() == null || !filter.test(c.schema(), c.table())) return;
        if (skip.covers(endLsn, atChange, part, index++)) return;
        passed = true;
        Struct source = SourceInfo.of(config.topicPrefix(), db, c.schema(), c.table(), commitMicros, xid, commitLsn,
                previousCommit, "false");
        Map<String, Object> offset = Position.offset(endLsn, atChange, part);
        if (incrementalState != null) offset = Position.withState(offset, incrementalState);
        out.accept(new SourceRecord(partition, offset, schemaTopic.topic(), null, io.pgrepl.kafka.connect.schema.SchemaChangeTopic.KEY,
                schemaTopic.key(db, c), schemaTopic.valueSchema(), schemaTopic.value(c, source, db, System.currentTimeMillis()),
                commitMicros / 1000));
    }

    public SourceRecord heartbeat(Position at, String incrementalState) {
        Map<String, ?> offset = at == null ? null : Position.withState(at.toOffset(), incrementalState);
        return new SourceRecord(partition, offset, naming.heartbeat(config.topicPrefix()), null,
                HEARTBEAT_KEY, new Struct(HEARTBEAT_KEY).put("serverName", config.topicPrefix()),
                HEARTBEAT_VALUE, new Struct(HEARTBEAT_VALUE).put("ts_ms", System.currentTimeMillis()));
    }

    /** The offset of record {@code part} of the current row change. */
    private Map<String, Object> offset(int part) {
        Map<String, Object> o = Position.record(endLsn, change, part, committed, xid, commitMicros);
        if (txOpen) o = withTransactionId(o, txMeta.xid());
        return incrementalState == null ? o : Position.withState(o, incrementalState);
    }

    /** The incremental snapshots' state for the offsets of the records built next (null: none runs). */
    public void incrementalState(String state) {
        this.incrementalState = state;
    }

    /** Non-transactional messages: one record in a position of their own (their LSN, before any row change). */
    public void beginStandalone(long lsn) {
        begin(lsn, lsn, 0, (System.currentTimeMillis() * 1000) - PgTime.PG_EPOCH_UNIX_MICROS);
    }

    /**
     * A table's schemas with the Connect {@link Field}s resolved once: {@code Struct.put} by field
     * name looks each one up in a map, which was a quarter of its time.
     */
    private static final class Table {
        final TableSchema schema;
        final int oid;
        final ValueConverters.Column[] columns;
        final Field[] rowFields;
        /** In the order of {@link TableSchema#keyColumns}. */
        final Field[] keyFields;
        final Field before;
        final Field after;
        final Field sourceField;
        final Field op;
        final Field tsMs;
        final Field tsUs;
        final Field tsNs;
        final Field transaction;
        /** Debezium's data collection: {@code schema.table}, unquoted. */
        final String collection;
        /** The {@code source} block of transaction {@link #sourceTx} (-1: of the snapshot at {@link #sourceLsn}). */
        Struct sourceBlock;
        long sourceTx;
        long sourceLsn;

        /** By the Relation's column positions: what an unchanged TOASTed value is sent as. */
        final Object[] placeholders;

        Table(TableSchema schema, TableShape shape, UnavailableValue unavailable) {
            this.schema = schema;
            this.oid = schema.relation.oid();
            this.columns = schema.columns.toArray(new ValueConverters.Column[0]);
            this.placeholders = new Object[columns.length];
            for (int i = 0; i < columns.length; i++) {
                // A column of a type include.unknown.datatypes=false leaves out has no schema, and no placeholder.
                placeholders[i] = columns[i].omitted() ? null : unavailable.in(columns[i].schema(), shape.transform(i));
            }
            // By the Relation's column positions; null for a column the column settings leave out.
            this.rowFields = new Field[columns.length];
            for (int i = 0; i < columns.length; i++) rowFields[i] = schema.rowSchema.field(columns[i].name());
            this.keyFields = schema.keySchema == null ? new Field[0] : schema.keySchema.fields().toArray(new Field[0]);
            Schema env = schema.envelopeSchema;
            this.before = env.field("before");
            this.after = env.field("after");
            this.sourceField = env.field("source");
            this.op = env.field("op");
            this.tsMs = env.field("ts_ms");
            this.tsUs = env.field("ts_us");
            this.tsNs = env.field("ts_ns");
            this.transaction = env.field("transaction");
            this.collection = schema.relation.namespace() + "." + schema.relation.name();
        }
    }
}
