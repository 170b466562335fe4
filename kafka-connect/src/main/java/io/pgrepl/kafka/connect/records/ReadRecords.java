package io.pgrepl.kafka.connect.records;

import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.kafka.connect.offsets.Position;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's read records ({@code op=r}) of the initial snapshot and of incremental snapshots.
 * Apart from {@link ChangeRecords} because a read belongs to no transaction: its source block and
 * offset come from the snapshot, and only the tables ({@link RelationSchemas}) are shared with the
 * stream's records.
 */
public final class ReadRecords {
    private final RelationSchemas relations;
    /** reselect.unavailable.values: rows remember what {@link Reselect} needs. */
    private final boolean reselect;
    private final String topicPrefix;
    private final String db;
    private final Map<String, ?> partition;
    /** The relation {@link #read} last saw, by identity: its schema is current without comparing columns. */
    private RelationInfo lastRead;

    ReadRecords(RelationSchemas relations, boolean reselect, String topicPrefix, String db, Map<String, ?> partition) {
        this.relations = relations;
        this.reselect = reselect;
        this.topicPrefix = topicPrefix;
        this.db = db;
        this.partition = partition;
    }

    /**
     * Row {@code index} of an initial snapshot taken at {@code consistentPoint}: Debezium's read
     * ({@code op=r}, {@code before} null, {@code source.snapshot="true"}), with the topic, key and
     * {@code after} of an insert into the same table. Nothing when the table is filtered out.
     */
    void read(RelationInfo rel, Insert row, long consistentPoint, int index, long snapshotMicros,
              Consumer<SourceRecord> out) {
        read(rel, row, consistentPoint, "true", Position.snapshotRead(consistentPoint, index), snapshotMicros, out);
    }

    /**
     * A row read by an incremental snapshot at {@code position} (its chunk's high watermark), as
     * Debezium sends one: {@code op=r}, {@code source.snapshot="incremental"}, {@code source.lsn} the
     * position. Nothing when the table is filtered out.
     */
    void incrementalRead(RelationInfo rel, Insert row, long position, Map<String, ?> offset, Consumer<SourceRecord> out) {
        read(rel, row, position, Position.INCREMENTAL, offset, System.currentTimeMillis() * 1000, out);
    }

    private void read(RelationInfo rel, Insert row, long consistentPoint, String mark, Map<String, ?> offset, long snapshotMicros,
                      Consumer<SourceRecord> out) {
        if (rel != lastRead) {
            // A read is of the table as it is now: its primary key is the catalog's current one.
            relations.relation(new Relation(0, rel.oid(), rel.namespace(), rel.name(), rel.replicaIdentity(), rel.columns()), 0, false);
            lastRead = rel;
        }
        RelationTable t = relations.table(rel.oid());
        if (t == null) return;
        long kind = mark.equals("true") ? -1 : -2;
        if (t.sourceTx != kind || t.sourceBlock == null || t.sourceLsn != consistentPoint) {
            // One source block per table for the whole copy (lastRead copies it before marking the last
            // read), or per chunk of an incremental snapshot.
            t.sourceBlock = SourceInfo.of(topicPrefix, db, rel.namespace(), rel.name(), snapshotMicros, 0,
                    consistentPoint, 0, mark).put(SourceInfo.TX_ID_F, null);
            t.sourceTx = kind;
            t.sourceLsn = consistentPoint;
        }
        long now = System.currentTimeMillis();
        Struct value = new Struct(t.schema.envelopeSchema).put(t.before, null).put(t.after, t.row(row.newTuple(), null, reselect))
                .put(t.sourceField, t.sourceBlock).put(t.op, "r").put(t.tsMs, now).put(t.tsUs, now * 1000).put(t.tsNs, now * 1_000_000);
        out.accept(new SourceRecord(partition, offset, t.schema.topic, null,
                t.schema.keySchema, t.keyOf(row.newTuple()), t.schema.envelopeSchema, value, snapshotMicros / 1000));
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
}
