package io.pgrepl.benchmarks.connect.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Every soak topic read from the start with {@code isolation.level=read_committed} (what a consumer of
 * an exactly-once connector sees) and parsed with Jackson, then replayed into tables as a sink
 * would: create, read and update put {@code after} (an unchanged TOASTed value, the placeholder,
 * keeps the value before it; in the create of a key change, the value of the row its delete just
 * removed), delete removes the key, a tombstone changes nothing. A record seen a
 * second time is a duplicate: every change of the workload carries a {@code ver} of its own, so a
 * create, read or update is identified by its operation and {@code ver}, a delete and a tombstone by
 * their key (ids are never reused). Anomalies: a create of a key present, an update or delete of a
 * key absent.
 */
final class TopicRebuild {
    static final String PLACEHOLDER = "__debezium_unavailable_value";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One rebuilt soak_items row; {@code bigMd5} as PostgreSQL's md5(big) (null for NULL). */
    record Item(long ver, int qty, String note, String bigMd5) {}

    /** One rebuilt soak_accounts row. */
    record Account(long ver, long n) {}

    final Map<Long, Item> items = new HashMap<>();
    final Map<Integer, Account> accounts = new HashMap<>();
    final Map<String, Long> recordsPerTopic = new HashMap<>();
    final Map<String, Long> opCounts = new HashMap<>();
    boolean endMarker;
    long records;
    /** Creates of a key change whose unchanged TOASTed value came from the old key's row (see {@link #apply}). */
    long keyChangeCarries;
    /** The soak_items row the last delete removed, and its transaction (source.txId, source.lsn). */
    private Item lastDeleted;
    private String lastDeletedTx;
    long duplicates;
    long anomalies;
    final List<String> examples = new ArrayList<>();
    private final Map<Character, BitSet> versSeen = new HashMap<>();
    private final Map<String, BitSet> keysSeen = new HashMap<>();

    /** Reads {@code topics} (one partition each) up to their last stable offsets and replays them. */
    static TopicRebuild read(String bootstrap, List<String> topics) {
        TopicRebuild r = new TopicRebuild();
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = topics.stream().map(t -> new TopicPartition(t, 0)).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts); // read_committed: the last stable offsets
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> rec : c.poll(Duration.ofMillis(500))) r.apply(rec.topic(), rec.key(), rec.value());
            }
        }
        return r;
    }

    void apply(String topic, byte[] keyBytes, byte[] valueBytes) {
        records++;
        recordsPerTopic.merge(topic, 1L, Long::sum);
        String table = topic.substring(topic.lastIndexOf('.') + 1);
        JsonNode key = payload(parse(keyBytes));
        if (valueBytes == null) {
            opCounts.merge("tombstone", 1L, Long::sum);
            seenKey(table + "/t", key, topic);
            return;
        }
        JsonNode v = payload(parse(valueBytes));
        String op = v.path("op").asText();
        opCounts.merge(op, 1L, Long::sum);
        if (table.equals("soak_end")) {
            endMarker = true;
            return;
        }
        String tx = v.path("source").path("txId").asText() + "/" + v.path("source").path("lsn").asText();
        if (op.equals("d")) {
            seenKey(table + "/d", key, topic);
            Object removed = table.equals("soak_items") ? items.remove(key.get("id").asLong())
                    : accounts.remove(key.get("k").asInt());
            if (removed == null) anomaly("delete of absent key " + key + " in " + topic);
            lastDeleted = removed instanceof Item i ? i : null;
            lastDeletedTx = tx;
            return;
        }
        JsonNode after = v.get("after");
        long ver = after.get("ver").asLong();
        BitSet vs = versSeen.computeIfAbsent(op.charAt(0), o -> new BitSet());
        if (vs.get((int) ver)) {
            duplicate(topic + " op " + op + " ver " + ver);
        }
        vs.set((int) ver);
        if (table.equals("soak_items")) {
            long id = after.get("id").asLong();
            Item before = items.get(id);
            check(op, before != null, topic, key);
            JsonNode big = after.get("big");
            String bigMd5;
            if (big != null && big.isTextual() && big.asText().equals(PLACEHOLDER)) {
                bigMd5 = before == null ? PLACEHOLDER : before.bigMd5();
                // A key change is a delete of the old key, its tombstone, then the create of the new key;
                // with the default replica identity the old tuple holds only the key, so an unchanged
                // TOASTed value is in no record: a sink can only carry it over from the row it deletes.
                if (op.equals("c") && before == null && lastDeleted != null && tx.equals(lastDeletedTx)) {
                    bigMd5 = lastDeleted.bigMd5();
                    keyChangeCarries++;
                }
            } else {
                bigMd5 = big == null || big.isNull() ? null : md5(big.asText());
            }
            items.put(id, new Item(ver, after.get("qty").asInt(), after.get("note").isNull() ? null : after.get("note").asText(),
                    bigMd5));
        } else {
            int k = after.get("k").asInt();
            check(op, accounts.containsKey(k), topic, key);
            accounts.put(k, new Account(ver, after.get("n").asLong()));
        }
    }

    private void check(String op, boolean present, String topic, JsonNode key) {
        if (op.equals("c") && present) anomaly("create of present key " + key + " in " + topic);
        if (op.equals("u") && !present) anomaly("update of absent key " + key + " in " + topic);
    }

    private void seenKey(String kind, JsonNode key, String topic) {
        long id = key.has("id") ? key.get("id").asLong() : key.get("k").asLong();
        BitSet b = keysSeen.computeIfAbsent(kind, x -> new BitSet());
        if (b.get((int) id)) duplicate(topic + " " + kind + " " + key);
        b.set((int) id);
    }

    private void duplicate(String what) {
        duplicates++;
        if (examples.size() < 10) examples.add("duplicate: " + what);
    }

    private void anomaly(String what) {
        anomalies++;
        if (examples.size() < 10) examples.add("anomaly: " + what);
    }

    /** The payload of a JsonConverter envelope with schemas ({schema, payload}), or the node itself. */
    private static JsonNode payload(JsonNode n) {
        return n != null && n.has("schema") && n.has("payload") ? n.get("payload") : n;
    }

    private static JsonNode parse(byte[] b) {
        if (b == null) return null;
        try {
            return JSON.readTree(b);
        } catch (IOException e) {
            throw new IllegalStateException("a record is not JSON", e);
        }
    }

    static String md5(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Differences between the source's rows and the rebuilt ones (at most {@code max} described in {@code out}); returns their number. */
    static <K, V> long compare(Map<K, V> source, Map<K, V> rebuilt, String table, List<String> out, int max) {
        long diffs = 0;
        for (var e : source.entrySet()) {
            V got = rebuilt.get(e.getKey());
            if (!Objects.equals(e.getValue(), got) && diffs++ < max) {
                out.add(table + " key " + e.getKey() + ": source " + e.getValue() + ", topic " + got);
            }
        }
        for (var e : rebuilt.entrySet()) {
            if (!source.containsKey(e.getKey()) && diffs++ < max) out.add(table + " key " + e.getKey() + ": in the topic only " + e.getValue());
        }
        return diffs;
    }
}
