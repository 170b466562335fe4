package io.pgrepl.kafka.connect.records;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * provide.transaction.metadata: the BEGIN and END records of Debezium's transaction topic and the
 * {@code transaction} block of each change, with Debezium's schemas (its SchemaFactory's names and
 * versions).
 *
 * <p>The counters follow the records the transaction became, skipped ones included: a restart in
 * the middle of a transaction streams it again from its start and skips what was written before,
 * so counting the skipped records continues the counters where they were, without keeping them
 * in the offsets (see {@link #OFFSET_TRANSACTION_ID} for what is kept there).
 *
 * <p>An id is {@code <xid>:<lsn>}, as Debezium's PostgreSQL connector writes it, where the LSN is
 * the one the record's {@code source.lsn} carries: the transaction's commit LSN for its BEGIN and
 * its changes (pgoutput names no per-change LSN), a logical message's own LSN, and the end of the
 * commit record for the END, as Debezium's.
 */
public final class TransactionMetadata {
    /** Debezium's TransactionContext key for the transaction in progress (the xid alone). */
    public static final String OFFSET_TRANSACTION_ID = "transaction_id";
    /** What a logical decoding message counts under (Debezium's LogicalDecodingMessageId identifier). */
    public static final String MESSAGE_COLLECTION = "LOGICAL_DECODING_MESSAGE";

    public static final Schema KEY = SchemaBuilder.struct().name("io.debezium.connector.common.TransactionMetadataKey")
            .version(1).field("id", Schema.STRING_SCHEMA).build();
    public static final Schema COLLECTION_COUNT = SchemaBuilder.struct().optional().name("event.collection").version(1)
            .field("data_collection", Schema.STRING_SCHEMA).field("event_count", Schema.INT64_SCHEMA).build();
    public static final Schema VALUE = SchemaBuilder.struct().name("io.debezium.connector.common.TransactionMetadataValue")
            .version(1)
            .field("status", Schema.STRING_SCHEMA)
            .field("id", Schema.STRING_SCHEMA)
            .field("event_count", Schema.OPTIONAL_INT64_SCHEMA)
            .field("data_collections", SchemaBuilder.array(COLLECTION_COUNT).optional().build())
            .field("ts_ms", Schema.INT64_SCHEMA)
            .build();

    private final String topic;
    private String xid;
    private long total;
    /** In the order the collections first appeared, as the END lists them. */
    private final Map<String, long[]> perCollection = new LinkedHashMap<>();

    public TransactionMetadata(String topic) {
        this.topic = topic;
    }

    /** {@code <topic.prefix><topic.delimiter><topic.transaction>}, as Debezium's topic naming strategies name it. */
    public static String topic(String prefix, String delimiter, String transaction) {
        return prefix + delimiter + transaction;
    }

    public String topic() {
        return topic;
    }

    public void begin(long xid) {
        this.xid = Long.toString(xid);
        total = 0;
        perCollection.clear();
    }

    /** The xid of the transaction in progress, as Debezium's offsets keep it. */
    public String xid() {
        return xid;
    }

    public static String id(String xid, long lsn) {
        return xid + ":" + Long.toUnsignedString(lsn);
    }

    /** Counts one event of {@code collection} and returns its {@code transaction} block. */
    public Struct event(String collection, long lsn) {
        total++;
        long[] n = perCollection.computeIfAbsent(collection, k -> new long[1]);
        n[0]++;
        return new Struct(SourceInfo.TRANSACTION_SCHEMA).put("id", id(xid, lsn)).put("total_order", total)
                .put("data_collection_order", n[0]);
    }

    public Struct key(long lsn) {
        return new Struct(KEY).put("id", id(xid, lsn));
    }

    public Struct beginValue(long lsn, long tsMs) {
        return new Struct(VALUE).put("status", "BEGIN").put("id", id(xid, lsn)).put("ts_ms", tsMs);
    }

    public Struct endValue(long lsn, long tsMs) {
        List<Struct> counts = new ArrayList<>(perCollection.size());
        for (Map.Entry<String, long[]> e : perCollection.entrySet()) {
            counts.add(new Struct(COLLECTION_COUNT).put("data_collection", e.getKey()).put("event_count", e.getValue()[0]));
        }
        return new Struct(VALUE).put("status", "END").put("id", id(xid, lsn)).put("event_count", total)
                .put("data_collections", counts).put("ts_ms", tsMs);
    }
}
