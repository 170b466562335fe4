package io.pgrepl.kafka.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.kafka.connect.offsets.Position;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * Reads the worker's offsets topic directly (not through the worker): every offset Connect
 * committed for a connector, in commit order, with the broker's append time bound.
 */
final class OffsetsTopic implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One committed offset: the position it stores and the record's timestamp (the producer's clock, ms). */
    record Committed(long offsetInTopic, long timestamp, String connector, long lsnCommit, int event) {}

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<TopicPartition> partitions;
    private final java.util.ArrayList<Committed> read = new java.util.ArrayList<>();

    OffsetsTopic(EmbeddedConnectCluster c, String topic) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumer = c.kafka().createConsumer(props);
        partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Total records in the topic now (a change means a commit happened). */
    long end() {
        return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
    }

    /** Reads up to the current end; returns everything read so far. */
    List<Committed> readToEnd() {
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                if (r.value() == null) continue;
                try {
                    JsonNode key = JSON.readTree(r.key());
                    JsonNode value = JSON.readTree(r.value());
                    if (!value.has(Position.TX_END)) continue; // snapshot reads
                    read.add(new Committed(r.offset(), r.timestamp(), key.get(0).asText(),
                            value.get(Position.TX_END).asLong(), value.get(Position.EVENT).asInt()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return List.copyOf(read);
    }

    /** The last offset committed for {@code connector} with a timestamp at or before {@code atMillis}; null if none. */
    Committed lastBefore(String connector, long atMillis) {
        Committed last = null;
        for (Committed c : readToEnd()) {
            if (c.connector().equals(connector) && c.timestamp() <= atMillis) last = c;
        }
        return last;
    }

    /** The last offset committed for {@code connector}; null if none. */
    Committed last(String connector) {
        return lastBefore(connector, Long.MAX_VALUE);
    }

    @Override
    public void close() {
        consumer.close();
    }
}
