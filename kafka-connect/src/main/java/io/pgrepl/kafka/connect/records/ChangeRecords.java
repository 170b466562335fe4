package io.pgrepl.kafka.connect.records;

import io.pgrepl.codec.PgTime;
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
import io.pgrepl.kafka.connect.settings.SkippedOperations;
import io.pgrepl.kafka.connect.settings.UnavailableValue;
import io.pgrepl.kafka.connect.settings.TopicNaming;
import io.pgrepl.kafka.connect.snapshot.IncrementalSettings;
import io.pgrepl.kafka.connect.snapshot.IncrementalSetup;
import io.pgrepl.kafka.connect.snapshot.IncrementalStream;
import io.pgrepl.kafka.connect.values.CatalogTypes;
import io.pgrepl.kafka.connect.values.TypeNames;
import io.pgrepl.kafka.connect.values.ValueConverters;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns the changes of one transaction into Debezium-enveloped records, in server order, keeping
 * the schema of each relation from its latest Relation message. Each record's offset is its
 * transaction's end LSN and its place in the transaction, which is what a restart skips by: the
 * ordinal of the row change it came from and its part of that change, neither depending on the
 * configuration (see {@link Position}). The tables' schemas are kept by {@link RelationSchemas},
 * a row's values built by {@link RelationTable}, and the snapshots' reads by {@link ReadRecords}.
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
    /** reselect.unavailable.values: rows with unchanged TOAST values remember what {@link Reselect} needs. */
    private final boolean reselect;
    private final TableFilter filter;
    private final SkippedOperations skipping;
    /** topic.naming.strategy and topic.delimiter: the heartbeat topic made valid as Debezium makes it. */
    private final TopicNaming naming;
    /** message.prefix.include.list / exclude.list. */
    private final java.util.function.Predicate<String> messagePrefixes;
    /** The captured tables as their Relation messages and the catalog make them. */
    private final RelationSchemas relations;
    /** The snapshots' read records, against the same tables. */
    private final ReadRecords reads;
    private final Map<String, ?> partition;
    private final String db;

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
        String signal = IncrementalSettings.signalTable(config);
        String[] st = signal == null ? null : IncrementalSetup.split(signal);
        this.filter = st == null ? config.tableFilter() : config.tableFilter().hiding(st[0], st[1]);
        this.skipping = config.skippedOperations();
        this.naming = TopicNaming.of(config);
        this.messagePrefixes = CaptureSettings.messagePrefixes(config.getList(CaptureSettings.MESSAGE_PREFIX_INCLUDE),
                config.getList(CaptureSettings.MESSAGE_PREFIX_EXCLUDE));
        this.reselect = config.reselectUnavailableValues();
        this.relations = new RelationSchemas(config.topicPrefix(), filter, config.columnRules(),
                new TypeNames((sql, what) -> ReplicationSetup.queryOnce(config, sql, what)), naming,
                new ValueConverters(ValueConverters.Modes.of(config), types), catalog,
                UnavailableValue.of(config.unavailablePlaceholder()));
        this.partition = partition;
        this.db = db;
        this.reads = new ReadRecords(relations, reselect, config.topicPrefix(), db, partition);
        this.schemaTopic = config.schemaChangesTopic().isEmpty() ? null : new io.pgrepl.kafka.connect.schema.SchemaChangeTopic(
                config.schemaChangesTopic(), SourceInfo.SCHEMA, List.of(config.publicationName()), oid -> relations.catalogOf(oid, xid).key());
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
            relations.relation(rel, xid, true);
            if (schemaTopic != null) {
                schemaRecord(schemaTopic.accept(rel), change + 1, PART_SCHEMA + relationsSinceChange++, skipThrough, out);
            }
        } else if (r instanceof io.pgrepl.codec.pgoutput.record.Type t) {
            if (schemaTopic != null) schemaTopic.accept(t);
        } else if (r instanceof Insert ins) {
            rowChange();
            RelationTable t = relations.table(ins.relationOid());
            if (t != null && !skipping.create()) {
                emit(t, "c", null, t.row(ins.newTuple(), null, reselect), ins.newTuple(), Position.PART_MAIN, skipThrough, out);
            }
        } else if (r instanceof Update up) {
            rowChange();
            if (!skipping.update()) update(up, skipThrough, out);
        } else if (r instanceof Delete del) {
            rowChange();
            RelationTable t = relations.table(del.relationOid());
            if (t == null || skipping.delete()) return;
            emit(t, "d", t.row(del.oldTuple(), null, reselect), null, del.oldTuple(), Position.PART_MAIN, skipThrough, out);
            if (config.tombstonesOnDelete()) tombstone(t, del.oldTuple(), skipThrough, out);
        } else if (r instanceof Truncate tr) {
            rowChange();
            List<Integer> oids = tr.relationOids();
            for (int k = 0; k < oids.size(); k++) {
                RelationTable t = relations.table(oids.get(k));
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
     * Row {@code index} of an initial snapshot taken at {@code consistentPoint} (see {@link ReadRecords}).
     * Nothing when the table is filtered out.
     */
    public void read(RelationInfo rel, Insert row, long consistentPoint, int index, long snapshotMicros,
              Consumer<SourceRecord> out) {
        reads.read(rel, row, consistentPoint, index, snapshotMicros, out);
    }

    /** A row read by an incremental snapshot at {@code position} (see {@link ReadRecords}). */
    public void incrementalRead(RelationInfo rel, Insert row, long position, Map<String, ?> offset, Consumer<SourceRecord> out) {
        reads.incrementalRead(rel, row, position, offset, out);
    }

    /**
     * The columns the records of table {@code relOid} are keyed by (indexes into its relation: the
     * replica identity, the primary key under FULL, or message.key.columns), or null when the table
     * is not captured or has no key.
     */
    public int[] keyColumns(int relOid) {
        return relations.keyColumns(relOid);
    }

    private void update(Update up, Position skip, Consumer<SourceRecord> out) {
        RelationTable t = relations.table(up.relationOid());
        if (t == null) return;
        Struct before = up.oldTuple() == null ? null : t.row(up.oldTuple(), null, reselect);
        Struct after = t.row(up.newTuple(), up.oldTuple(), reselect);
        if (up.oldTuple() != null && t.schema.keySchema != null && !t.keyOf(up.oldTuple()).equals(t.keyOf(up.newTuple()))) {
            // A key change is a delete of the old key and a create of the new one, as Debezium sends it.
            emit(t, "d", before, null, up.oldTuple(), Position.PART_MAIN, skip, out);
            if (config.tombstonesOnDelete()) tombstone(t, up.oldTuple(), skip, out);
            emit(t, "c", null, after, up.newTuple(), Position.PART_CREATE, skip, out);
            return;
        }
        emit(t, "u", before, after, up.newTuple(), Position.PART_MAIN, skip, out);
    }

    /**
     * The {@code source} block: the same for every record of one table in one transaction (no
     * per-row LSN in pgoutput), so it is built once per table and transaction and shared by its
     * records (nothing in pgrepl changes it after it is handed over).
     */
    private Struct source(RelationTable t) {
        if (t.sourceTx != txSeq || t.sourceBlock == null) {
            TableSchema s = t.schema;
            t.sourceBlock = SourceInfo.of(config.topicPrefix(), db, s.relation.namespace(), s.relation.name(), commitMicros,
                    xid, commitLsn, previousCommit, "false");
            if (origin != null) t.sourceBlock.put(SourceInfo.ORIGIN_F, origin).put(SourceInfo.ORIGIN_LSN_F, originLsn);
            t.sourceTx = txSeq;
        }
        return t.sourceBlock;
    }

    private void emit(RelationTable t, String op, Struct before, Struct after, Tuple keyTuple, int part, Position skip,
                      Consumer<SourceRecord> out) {
        // Counted whether or not it is skipped: a restart's counters go on from the records written before it.
        Struct tx = txOpen ? txMeta.event(t.collection, commitLsn) : null;
        if (skipped(part, skip)) return;
        long now = System.currentTimeMillis();
        Struct value = new Struct(t.schema.envelopeSchema)
                .put(t.before, before).put(t.after, after).put(t.sourceField, source(t)).put(t.op, op)
                .put(t.tsMs, now).put(t.tsUs, now * 1000).put(t.tsNs, now * 1_000_000);
        if (tx != null) value.put(t.transaction, tx);
        Struct key = t.keyOf(keyTuple);
        out.accept(new SourceRecord(partition, offset(part), t.schema.topic, null,
                t.schema.keySchema, key, t.schema.envelopeSchema, value, commitMicros / 1000));
    }

    private void tombstone(RelationTable t, Tuple keyTuple, Position skip, Consumer<SourceRecord> out) {
        if (skipped(Position.PART_TOMBSTONE, skip)) return;
        out.accept(new SourceRecord(partition, offset(Position.PART_TOMBSTONE), t.schema.topic, null,
                t.schema.keySchema, t.keyOf(keyTuple), null, null, commitMicros / 1000));
    }

    private void emitTruncate(RelationTable t, int part, Position skip, Consumer<SourceRecord> out) {
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
}
