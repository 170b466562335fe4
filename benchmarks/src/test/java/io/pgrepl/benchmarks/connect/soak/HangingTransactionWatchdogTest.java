package io.pgrepl.benchmarks.connect.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The soak's hanging-transaction watchdog against a real broker: a transaction the coordinator never
 * knew of, and one whose transactional id it knows but whose transaction lacks the partition, are
 * found once seen open past the threshold and aborted (the partition's last stable offset reaches its
 * end); a live transaction the coordinator tracks, open just as long, is left alone and commits. The
 * hanging ones are forged ({@link FakeTransactionalWriter}): no real client leaves one on demand. The
 * watchdog's clock is the test's, so no test waits out a timeout.
 */
class HangingTransactionWatchdogTest {
    private static EmbeddedKafkaCluster kafka;

    @BeforeAll
    static void startKafka() {
        Properties broker = new Properties();
        broker.put("transaction.state.log.replication.factor", "1");
        broker.put("transaction.state.log.min.isr", "1");
        // What let hanging transactions arise before Kafka 3.6: writes not checked against the coordinator.
        broker.put("transaction.partition.verification.enable", "false");
        kafka = new EmbeddedKafkaCluster(1, broker);
        kafka.start();
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) kafka.stop();
    }

    @Test
    void abortsWhatTheCoordinatorForgotAndLeavesWhatItTracks() throws Exception {
        TopicPartition hang = new TopicPartition("hang", 0);
        TopicPartition live = new TopicPartition("live", 0);
        kafka.createTopic(hang.topic(), 1);
        kafka.createTopic(live.topic(), 1);
        List<String> log = new CopyOnWriteArrayList<>();
        AtomicLong clock = new AtomicLong(1_000_000);
        try (Admin admin = kafka.createAdminClient();
                KafkaProducer<byte[], byte[]> producer = kafka.createProducer(Map.of(
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG, "live", ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(live.topic(), new byte[] {1})).get(30, TimeUnit.SECONDS);
            FakeTransactionalWriter.write(kafka.bootstrapServers(), hang, 424_242L, (short) 0, 0);

            HangingTransactionWatchdog w = new HangingTransactionWatchdog(admin, Duration.ofSeconds(10), Duration.ofSeconds(5),
                    log::add, clock::get);
            assertEquals(List.of(), w.find(), "first seen now: nothing has been open for 15 s yet");
            clock.addAndGet(14_000);
            assertEquals(List.of(), w.find(), "seen open for 14 s, under transaction.timeout.ms plus the margin");
            clock.addAndGet(2_000);

            List<HangingTransactionWatchdog.Hanging> found = w.sweep();
            assertEquals(1, found.size(), "only the forged transaction hangs: " + found);
            HangingTransactionWatchdog.Hanging h = found.get(0);
            assertEquals(hang, h.partition());
            assertEquals(424_242L, h.producerId());
            assertEquals(0, h.startOffset());
            assertEquals(16_000, h.ageMs());
            assertTrue(h.coordinatorView().contains("no transactional id"), h.coordinatorView());
            assertEquals(1, w.found());
            assertEquals(1, w.aborted());
            assertTrue(log.stream().anyMatch(l -> l.startsWith("HANGING TRANSACTION hang-0: producer id 424242, epoch 0")
                    && l.endsWith("-> ABORTED")), "logged: " + log);
            // One forged record and the abort marker: read_committed readers get past both.
            assertEquals(2, offset(admin, hang, IsolationLevel.READ_COMMITTED));
            assertEquals(2, offset(admin, hang, IsolationLevel.READ_UNCOMMITTED));

            // The live transaction, open "16 s" by the watchdog's clock, is still open and commits.
            assertTrue(openFrom(admin, live, 0), "the live transaction was left open");
            assertEquals(0, offset(admin, live, IsolationLevel.READ_COMMITTED));
            producer.commitTransaction();
            // The coordinator writes the commit marker after commitTransaction returns.
            assertEquals(2, awaitStable(admin, live, 2), "its record and commit marker");

            // A write in the name of a producer the coordinator knows, outside its (now ended) transaction.
            TransactionDescription d = admin.describeTransactions(List.of("live")).description("live").get(30, TimeUnit.SECONDS);
            FakeTransactionalWriter.write(kafka.bootstrapServers(), hang, d.producerId(), (short) d.producerEpoch(), 0);
            assertEquals(List.of(), w.sweep());
            clock.addAndGet(16_000);
            List<HangingTransactionWatchdog.Hanging> second = w.sweep();
            assertEquals(1, second.size(), "the write outside the known transaction hangs: " + second);
            assertEquals(2, second.get(0).startOffset());
            assertTrue(second.get(0).coordinatorView().contains("coordinator: live"), second.get(0).coordinatorView());
            assertEquals(4, offset(admin, hang, IsolationLevel.READ_COMMITTED));
            assertEquals(2, w.found());
            assertEquals(2, w.aborted());
        }
    }

    private static long offset(Admin admin, TopicPartition tp, IsolationLevel isolation) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(isolation)).all()
                .get(30, TimeUnit.SECONDS).get(tp).offset();
    }

    /** The last stable offset once it reaches {@code expected}, or as it stands after 30 s. */
    private static long awaitStable(Admin admin, TopicPartition tp, long expected) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long stable;
        while ((stable = offset(admin, tp, IsolationLevel.READ_COMMITTED)) != expected && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        return stable;
    }

    private static boolean openFrom(Admin admin, TopicPartition tp, long start) throws Exception {
        for (ProducerState p : admin.describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS)
                .activeProducers()) {
            if (p.currentTransactionStartOffset().orElse(-1) == start) return true;
        }
        return false;
    }
}
