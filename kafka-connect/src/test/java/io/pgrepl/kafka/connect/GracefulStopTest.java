package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A task stopped during a fast initial copy commits its last offsets. Kafka is
 * made slower than the copy for real (a broker quota on the task producer's client id), so records
 * pile up between poll() and Kafka's acknowledgement, as on a busy cluster. Connect then stops the
 * task ({@code PUT /connectors/gs/stop}): its final offset commit first waits for every record handed
 * over to be acknowledged, and all of that must fit in task.shutdown.graceful.timeout.ms (5 s, the
 * default), or the stop is cancelled ("Graceful stop of task ... failed") and the commit skipped. With
 * max.unacknowledged.ms bounding what waits for Kafka by its slowest recent pace (after a start allowance of 32
 * records), the stop stays within it and the last
 * committed offset covers every read the topic holds (reads are written in order by one producer, so
 * read i is the topic's record i).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GracefulStopTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> GROUP = ChildWorker.group("gs");
    private static final int ROWS = 150_000;
    /** Bytes per second the broker accepts from the task's producer: well below the copy's pace. */
    private static final double QUOTA = 600_000;

    private EmbeddedConnectCluster connect;
    private PgServer pg;

    @BeforeAll
    void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
        connect = ConnectHarness.start("gs", 1, GROUP);
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        if (pg != null) pg.close();
    }

    /*
     * Why the stop outlasted 5 s (samples every 250 ms of the task thread, the producer's metrics and
     * the connector's own count; figures in benchmarks/RESULTS.md, "Kafka Connect: stopping under a
     * broker quota"): under the quota the
     * producer alternates seconds of about 1,800 acknowledgements with a payback of one throttled
     * request (24 records) a second. With max.unacknowledged.records alone, 119 records outlasted 5 s
     * in such a payback. With the pace of the last second (the pacing of df5f15e), the throttled
     * seconds were never remembered (the records allowed went out and came back together, so none
     * waited throughout them), and a stop that came right after a fast spell found up to 1,900 records
     * waiting and took 4.5 s and more. Now the pace of the throttled seconds is remembered for 16 s and
     * until 12 s are known only 32 records wait: the stop waits for about 32.
     */
    @Test
    void stopDuringAFastCopyCommitsTheLastOffsets() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE gs_rows (id int PRIMARY KEY, v text);"
                + "INSERT INTO gs_rows SELECT g, repeat(md5(g::text), 5) FROM generate_series(1, " + ROWS + ") g");
        try (Admin admin = connect.kafka().createAdminClient()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "gs-producer")),
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", QUOTA))))).all().get(30, TimeUnit.SECONDS);
        }
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, "gs");
        cfg.put("snapshot.mode", "initial");
        cfg.put("producer.override.client.id", "gs-producer");
        // The limits' defaults (4096 records, 1000 ms at Kafka's pace); chunks of 100 reads.
        cfg.put("max.batch.size", "100");
        // Small records (about 730 bytes each), so that the copy outruns the quota by far.
        cfg.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        cfg.put("key.converter.schemas.enable", "false");
        cfg.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        cfg.put("value.converter.schemas.enable", "false");
        connect.configureConnector("gs", cfg);

        String topic = "gs.public.gs_rows";
        awaitRecords(topic, 20_000, Duration.ofSeconds(180));
        boolean atASpellsEnd = awaitTheEndOfAFastSpell(topic, Duration.ofSeconds(60));
        // Connect logs the stop that outlasted task.shutdown.graceful.timeout.ms (ERROR, so on stderr through
        // slf4j-simple, which looks System.err up on every line).
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(new TeeStream(err, seen), true));
        long stopAsked = System.nanoTime();
        try {
            connect.stopConnector("gs");
            awaitNoTasks(Duration.ofSeconds(60));
        } finally {
            System.setErr(err);
        }
        // Reported, not asserted (the assertion is Connect's own timeout): RESULTS.md collects these.
        System.out.printf("GracefulStopTest: the task was gone %d ms after the stop request (%s)%n",
                (System.nanoTime() - stopAsked) / 1_000_000, atASpellsEnd ? "at a fast spell's end" : "no fast spell seen");
        String log = seen.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertFalse(log.contains("Graceful stop of task gs-0 failed"), "the task stopped within Connect's graceful timeout");

        long inTopic = endOffset(topic);
        assertTrue(inTopic < ROWS, "the copy was still under way when the task stopped (" + inTopic + " reads)");
        JsonNode last = lastCommitted("gs", Duration.ofSeconds(10));
        assertNotNull(last, "an offset was committed");
        assertEquals(Position.READ, last.path(Position.SNAPSHOT).asText(), "the last offset is a snapshot read's: " + last);
        assertEquals(inTopic - 1, last.path("event").asLong(), "the last committed offset covers every read in the topic"
                + " (the final commit ran within the graceful timeout): " + last);
        connect.deleteConnector("gs");
    }

    private void awaitRecords(String topic, long n, Duration timeout) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (endOffset(topic) >= n) return;
            Thread.sleep(200);
        }
        throw new AssertionError(topic + " did not reach " + n + " records: " + endOffset(topic));
    }

    /*
     * The worst moment for a stop: right after a spell at full speed, when the quota's payback begins
     * (one request a second) and everything let through during the spell still waits. The stop of
     * the pacing of df5f15e failed there (1 run in 9, with 1,344 records waiting). Aiming at it
     * is not shown to force that failure: the one run of the pacing of df5f15e with this stop
     * passed. With no spell seen within the timeout the stop comes anyway.
     */
    private boolean awaitTheEndOfAFastSpell(String topic, Duration timeout) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        Map<String, Object> props = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = connect.kafka().createConsumer(props)) {
            long end = System.nanoTime() + timeout.toNanos();
            long before = c.endOffsets(List.of(tp)).get(tp);
            boolean fast = false;
            while (System.nanoTime() < end) {
                Thread.sleep(100);
                long now = c.endOffsets(List.of(tp)).get(tp);
                // A spell: 60 records or more in a tenth of a second; a payback: 24 a second.
                if (now - before >= 60) fast = true;
                else if (fast && now - before < 30) return true;
                before = now;
            }
            return false;
        }
    }

    private void awaitNoTasks(Duration timeout) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            var s = connect.connectorStatus("gs");
            if ("STOPPED".equals(s.connector().state()) && s.tasks().isEmpty()) return;
            Thread.sleep(100);
        }
        throw new AssertionError("the connector did not stop: " + connect.connectorStatus("gs"));
    }

    private long endOffset(String topic) {
        try {
            return connect.kafka().endOffset(new TopicPartition(topic, 0));
        } catch (Exception notYet) {
            return 0;
        }
    }

    /** The last offset the worker committed for {@code connector}, read from its offsets topic. */
    private JsonNode lastCommitted(String connector, Duration timeout) throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        String offsets = GROUP.get("offset.storage.topic");
        JsonNode last = null;
        try (KafkaConsumer<byte[], byte[]> c = connect.kafka().createConsumer(props)) {
            List<TopicPartition> parts = c.partitionsFor(offsets).stream()
                    .map(p -> new TopicPartition(offsets, p.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (parts.stream().anyMatch(p -> c.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.value() == null) continue;
                    if (JSON.readTree(r.key()).get(0).asText().equals(connector)) last = JSON.readTree(r.value());
                }
            }
        }
        return last;
    }

    /** Writes to both streams: the test's own stderr stays as it was. */
    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.ByteArrayOutputStream b;

        TeeStream(java.io.OutputStream a, java.io.ByteArrayOutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws java.io.IOException {
            a.write(c);
            synchronized (b) {
                b.write(c);
            }
        }

        @Override
        public void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            synchronized (b) {
                b.write(buf, off, len);
            }
        }
    }
}
