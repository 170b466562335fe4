package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.Row;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The kafka signal channel's consumer group is committed only past signals whose effect is in the
 * committed source offsets: a task that dies after reading a signal, before Connect flushed the
 * records it caused, acts on the signal again when it starts over (here with no stored offsets at
 * all, the case where the group's position is all there is). The task is driven directly, against
 * a real PostgreSQL 18 and a real in-process Kafka broker, acknowledging and committing as a worker
 * would, or not at all, as a worker that died would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaSignalCommitTest {
    private PgServer pg;
    private EmbeddedKafkaCluster kafka;

    @BeforeAll
    void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
        kafka = new EmbeddedKafkaCluster(1, new Properties());
        kafka.start();
    }

    @AfterAll
    void stop() {
        if (kafka != null) kafka.stop();
        if (pg != null) pg.close();
    }

    private static PgreplSourceTask task(Map<String, String> cfg) {
        PgreplSourceTask t = new PgreplSourceTask();
        t.initialize(new InMemoryTaskContext(cfg)); // no stored offsets: a first start, or offsets never flushed
        t.start(cfg);
        return t;
    }

    /** Polls until {@code reads} rows of {@code topic} were read; acknowledges each record as Kafka would when {@code ack}. */
    private static List<SourceRecord> pollReads(PgreplSourceTask t, String topic, int reads, boolean ack) throws Exception {
        List<SourceRecord> all = new ArrayList<>();
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        long n = 0;
        while (n < reads) {
            assertTrue(System.nanoTime() < end, "timed out after " + n + " reads of " + topic + " (" + all.size() + " records)");
            List<SourceRecord> r = t.poll();
            if (r == null) continue;
            all.addAll(r);
            n += r.stream().filter(x -> x.topic().equals(topic) && x.value() instanceof Struct s && "r".equals(s.getString("op"))).count();
            if (ack) for (SourceRecord x : r) t.commitRecord(x, null);
        }
        return all;
    }

    private OffsetAndMetadata groupOffset(String group, TopicPartition tp) throws Exception {
        try (Admin admin = kafka.createAdminClient()) {
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS).get(tp);
        }
    }

    private void awaitSlotIdle(String slot) throws Exception {
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (System.nanoTime() < end) {
            List<Row> r = EndToEndTest.query(pg, "SELECT active::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
            if (r.isEmpty() || "false".equals(r.get(0).get(0))) return;
            Thread.sleep(50);
        }
        throw new AssertionError("slot " + slot + " stayed active");
    }

    @Test
    void theGroupIsCommittedOnlyPastSignalsWhoseRecordsWereFlushed() throws Exception {
        String p = "ksc";
        IncrementalSnapshotTest.createTables(pg, p, 60, 5);
        String topic = p + ".signals";
        String group = p + "-signals";
        TopicPartition tp = new TopicPartition(topic, 0);
        kafka.createTopic(topic, 1);
        Map<String, String> cfg = IncrementalSnapshotTest.config(pg, p, 25);
        cfg.put("signal.enabled.channels", "source,kafka");
        cfg.put("signal.kafka.topic", topic);
        cfg.put("signal.kafka.bootstrap.servers", kafka.bootstrapServers());
        cfg.put("signal.kafka.groupId", group);
        String big = p + ".public." + p + "_big";
        kafka.produce(topic, p, "{\"type\": \"execute-snapshot\", \"data\": {\"data-collections\": [\"public." + p
                + "_big\"], \"type\": \"INCREMENTAL\"}}");

        // The signal is read and acted on; the records it caused never reach Kafka (the worker dies).
        PgreplSourceTask first = task(cfg);
        try {
            pollReads(first, big, 25, false); // the first chunk: the records wait for acknowledgements that never come
            Thread.sleep(1500); // three polls of the signal consumer: time for a commit it should not make
            assertNull(groupOffset(group, tp), "the group was committed past a signal whose records were never flushed");
        } finally {
            first.stop();
        }
        awaitSlotIdle(p + "_slot");

        // Started over with nothing stored: the group's position is all there is, and the signal is read again.
        PgreplSourceTask second = task(cfg);
        try {
            pollReads(second, big, 60, true);
            second.commit(); // the offsets of what was acknowledged so far are committed
            assertNull(groupOffset(group, tp), "committed one offset flush early");
            second.commit(); // everything acknowledged before the previous commit is in the committed offsets now
            long end = System.nanoTime() + Waits.CEILING.toNanos();
            OffsetAndMetadata o;
            while ((o = groupOffset(group, tp)) == null && System.nanoTime() < end) Thread.sleep(100);
            assertTrue(o != null, "the group was never committed");
            assertEquals(1, o.offset(), "past the one signal, once its records were flushed");
        } finally {
            second.stop();
        }
        awaitSlotIdle(p + "_slot");
    }
}
