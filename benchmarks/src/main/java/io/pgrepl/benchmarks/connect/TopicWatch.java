package io.pgrepl.benchmarks.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Watches single-partition topics from outside the worker: their end offsets (what the broker holds,
 * polled through an Admin client) and, to check a count, their records read back.
 */
final class TopicWatch implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String bootstrap;
    private final Admin admin;
    private final java.util.Set<String> existing = new java.util.HashSet<>();

    TopicWatch(String bootstrap) {
        this.bootstrap = bootstrap;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /** Partition 0's end offset, 0 while the topic does not exist. */
    long endOffset(String topic) throws Exception {
        // Asking for offsets of a topic not yet created makes the Admin client log a stack trace per poll.
        if (!existing.contains(topic)) {
            if (!admin.listTopics().names().get().contains(topic)) return 0;
            existing.add(topic);
        }
        TopicPartition tp = new TopicPartition(topic, 0);
        try {
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) return 0;
            throw e;
        }
    }

    /**
     * The bytes partition 0 of {@code topic} holds on the brokers' disks (record batches with their
     * headers, uncompressed here): divided by the record count, what one change costs the producer.
     */
    long logBytes(String topic) throws Exception {
        List<Integer> brokers = admin.describeCluster().nodes().get().stream().map(n -> n.id()).toList();
        long bytes = 0;
        for (var dirs : admin.describeLogDirs(brokers).allDescriptions().get().values()) {
            for (var dir : dirs.values()) {
                var replica = dir.replicaInfos().get(new TopicPartition(topic, 0));
                if (replica != null) bytes += replica.size();
            }
        }
        return bytes;
    }

    /** When the topic first held a record and when it held {@code n}, in ns since {@code start}. */
    record Arrival(long firstNanos, long allNanos, long records) {}

    /**
     * Polls every {@code everyMs} until the topic holds {@code n} records, then waits {@code settleMs}
     * and reads the end offset again: a connector that sent more than {@code n} records (duplicates)
     * shows as {@code records > n}.
     */
    Arrival await(String topic, long n, long start, Duration timeout, long everyMs, long settleMs) throws Exception {
        long first = -1;
        long deadline = start + timeout.toNanos();
        while (true) {
            long end = endOffset(topic);
            long now = System.nanoTime();
            if (end > 0 && first < 0) first = now - start;
            if (end >= n) {
                long all = now - start;
                if (settleMs > 0) Thread.sleep(settleMs);
                return new Arrival(first, all, endOffset(topic));
            }
            if (now > deadline) throw new IllegalStateException(topic + " holds " + end + " of " + n + " records after " + timeout);
            Thread.sleep(everyMs);
        }
    }

    /**
     * Reads the whole topic and returns how many distinct {@code after.id} values in 1..n it holds and
     * how many records it holds; the JSON (schemas enabled) is parsed with a real parser.
     */
    long[] distinctIds(String topic, long n) {
        BitSet seen = new BitSet();
        long records = 0;
        for (JsonNode v : values(topic)) {
            records++;
            JsonNode envelope = v.has("schema") && v.has("payload") ? v.get("payload") : v; // schemas.enable or not
            JsonNode id = envelope.path("after").path("id");
            if (id.isInt() && id.asInt() >= 1 && id.asInt() <= n) seen.set(id.asInt());
        }
        return new long[] {seen.cardinality(), records};
    }

    /** Every record's value of a single-partition topic, parsed (null values as JSON null), in offset order. */
    List<JsonNode> values(String topic) {
        return read(topic, (key, value) -> value);
    }

    /**
     * Every record of a single-partition topic, in offset order, as {@code as} makes it of the raw key
     * and the parsed value (null values as JSON null); {@link #json} parses a key where it is wanted.
     */
    <T> List<T> read(String topic, BiFunction<byte[], JsonNode, T> as) {
        List<T> out = new ArrayList<>();
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            while (c.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    out.add(as.apply(r.key(), json(r.value())));
                }
            }
        }
        return out;
    }

    /** {@code bytes} parsed as JSON (null as JSON null). */
    static JsonNode json(byte[] bytes) {
        if (bytes == null) return JSON.nullNode();
        try {
            return JSON.readTree(bytes);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("a record is not JSON", e);
        }
    }

    @Override
    public void close() {
        admin.close();
    }
}
