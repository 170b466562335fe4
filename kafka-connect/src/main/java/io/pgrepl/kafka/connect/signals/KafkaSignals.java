package io.pgrepl.kafka.connect.signals;

import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.MalformedSignalException;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.offsets.SignalOffsets;
import io.pgrepl.kafka.connect.snapshot.IncrementalSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's kafka signal channel: a consumer thread in the task reads signal.kafka.topic; a record
 * whose key is this connector's topic.prefix carries a signal as its value, the same JSON as a
 * Debezium signal ({@code {"type":"execute-snapshot","data":{"data-collections":[...],"type":"incremental"}}}),
 * and goes to the engine. Records keyed for other connectors are skipped; a malformed one is logged
 * and skipped, and the channel goes on. The position read is kept in the source offsets (see
 * {@link SignalOffsets}), as Debezium keeps it: the consumer is assigned partition 0 and seeks to the
 * stored position, so a restarted task neither replays nor misses a signal. Without one (a first
 * start, or offsets never flushed) it starts at the group's committed offset, else at the earliest.
 * The group is committed only up to a position the committed source offsets hold ({@link
 * SignalCommits}, from the task's offset commits): committed as soon as read, a task that died
 * before its records were flushed would start past the signal and never act on it.
 */
public final class KafkaSignals implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaSignals.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final IncrementalSnapshots engine;
    private final String key;
    private final String topic;
    private final Thread thread;
    private final AtomicLong next;
    private final long stored;
    /** The position the group may be committed to (-1: none yet), set by the task's offset commits. */
    private volatile long commitWanted = -1;
    /** The consumer's own thread: the position last committed to the group. */
    private long committed = -1;
    private volatile boolean closed;

    private KafkaSignals(KafkaConsumer<byte[], byte[]> consumer, IncrementalSnapshots engine, String key, String topic, AtomicLong next,
                         long stored) {
        this.consumer = consumer;
        this.engine = engine;
        this.key = key;
        this.topic = topic;
        this.next = next;
        this.stored = stored;
        this.thread = new Thread(this::run, "pgrepl-kafka-signals-" + key);
        thread.setDaemon(true);
    }

    /**
     * Starts the channel at {@code stored} (the next offset the source offsets record, or -1), moving
     * {@code next} as the engine applies what it reads.
     */
    public static KafkaSignals start(PgreplConnectorConfig config, IncrementalSnapshots engine, AtomicLong next, long stored) {
        String topic = IncrementalSettings.kafkaTopic(config);
        String servers = IncrementalSettings.kafkaServers(config);
        if (topic.isEmpty() || servers.isEmpty()) {
            throw new ConnectException(IncrementalSettings.SIGNAL_CHANNELS + " includes kafka, so "
                    + IncrementalSettings.SIGNAL_KAFKA_TOPIC + " and " + IncrementalSettings.SIGNAL_KAFKA_SERVERS + " must be set");
        }
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, IncrementalSettings.kafkaGroup(config));
        // Signals sent while the connector was down still count; once read they are committed.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "pgrepl-signals-" + config.topicPrefix());
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaSignals s = new KafkaSignals(c, engine, config.topicPrefix(), topic, next, stored);
        s.thread.start();
        log.info("kafka signal channel: reading topic {} for records keyed {}{}", topic, config.topicPrefix(),
                stored < 0 ? "" : ", from offset " + stored + " (source offsets)");
        return s;
    }

    /** Partition 0, at the stored position, else the group's, else the earliest (the consumer's own thread). */
    private void assign() {
        TopicPartition tp = new TopicPartition(topic, 0);
        consumer.assign(List.of(tp));
        if (stored >= 0) consumer.seek(tp, stored);
        else {
            OffsetAndMetadata committed = consumer.committed(Set.of(tp)).get(tp);
            if (committed != null) consumer.seek(tp, committed.offset());
            else consumer.seekToBeginning(List.of(tp));
        }
    }

    private void run() {
        try {
            assign();
            while (!closed) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) accept(r);
                commitGroup();
            }
        } catch (WakeupException stopping) {
            // close()
        } catch (RuntimeException e) {
            if (!closed) log.error("kafka signal channel on topic {} failed; signals from it are no longer read: {}", topic, e.toString());
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void accept(ConsumerRecord<byte[], byte[]> r) {
        String k = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
        if (!key.equals(k)) {
            consumed(r.offset() + 1); // another connector's signal
            return;
        }
        String where = "kafka signal " + r.topic() + "-" + r.partition() + "@" + r.offset();
        try {
            String json = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
            engine.signal(SnapshotSignals.parseMessage(json), where);
        } catch (MalformedSignalException e) {
            log.error("malformed snapshot signal ({}): {}; ignored, the channel goes on", where, e.getMessage());
        } finally {
            consumed(r.offset() + 1);
        }
    }

    /**
     * Moves the stored position past a record once the engine applied it: progress() is queued on the
     * event loop behind the signal (it runs tasks in order), so the position never counts a signal
     * before the state holds it; a restart between the two acts on the signal again, never loses it.
     */
    private void consumed(long after) {
        engine.progress().thenRun(() -> next.accumulateAndGet(after, Math::max));
    }

    /**
     * The committed source offsets hold the channel's position {@code next} (or a later one): the
     * group may be committed up to it. Any thread; the consumer commits on its own within a poll.
     */
    public void offsetsCommitted(long next) {
        if (next > commitWanted) commitWanted = next;
    }

    private void commitGroup() {
        long want = commitWanted;
        if (want <= committed) return;
        consumer.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(want)));
        committed = want;
    }

    /** Stops the consumer (it leaves its group from its own thread). */
    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
    }
}
