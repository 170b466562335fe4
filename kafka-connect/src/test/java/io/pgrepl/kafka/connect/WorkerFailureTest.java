package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Failures of the Connect side while changes stream: a worker running a task is stopped (two
 * workers, two connectors, the task moves), and the broker is slow to acknowledge (a real
 * broker-side produce quota). Offsets are read from the worker's offsets topic itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WorkerFailureTest {
    private static final String OFFSETS = "wf-offsets";
    private EmbeddedConnectCluster connect;
    private PgServer pg;

    @BeforeAll
    void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
        // A departed worker's tasks are reassigned after this delay (the default waits 5 minutes for it to return).
        connect = ConnectHarness.start("wf", 2, Map.of("scheduled.rebalance.max.delay.ms", "1000",
                "offset.storage.topic", OFFSETS, "offset.storage.partitions", "1"));
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        if (pg != null) pg.close();
    }

    /** Transactions of {@code perTx} rows into each table, one table after the other, until {@code txs} each. */
    private CompletableFuture<Void> workload(List<String> tables, int txs, int perTx, AtomicInteger done) {
        return CompletableFuture.runAsync(() -> {
            // One session for the whole workload: a connection per statement costs more than the statement.
            try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS)) {
                for (int t = 0; t < txs; t++) {
                    for (String table : tables) {
                        c.query("INSERT INTO " + table + " SELECT g, " + t + " FROM generate_series("
                                + (t * perTx + 1) + ", " + (t * perTx + perTx) + ") g").toCompletableFuture()
                                .get(30, TimeUnit.SECONDS);
                    }
                    done.set(t + 1);
                    Thread.sleep(10);
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    private static void awaitCount(AtomicInteger n, int atLeast) throws InterruptedException {
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (n.get() < atLeast && System.nanoTime() < end) Thread.sleep(20);
        assertTrue(n.get() >= atLeast, "the workload reached " + atLeast);
    }

    private static int port(String workerId) {
        return Integer.parseInt(workerId.substring(workerId.lastIndexOf(':') + 1));
    }

    @Test
    @Order(1)
    void stoppedWorkersTaskMovesAndLosesNothing() throws Exception {
        List<String> names = List.of("wfa", "wfb");
        for (String n : names) {
            EndToEndTest.sql(pg, "CREATE TABLE " + n + "_rows (id int PRIMARY KEY, tx int)");
            connect.configureConnector(n, EndToEndTest.connectorConfig(pg, n));
        }
        for (String n : names) {
            ConnectHarness.awaitRunning(connect, n, 1, "connector " + n + " did not start");
            EndToEndTest.awaitSlotActive(pg, n + "_slot");
        }
        int txs = 100;
        int perTx = 2;
        AtomicInteger done = new AtomicInteger();
        CompletableFuture<Void> writer = workload(List.of("wfa_rows", "wfb_rows"), txs, perTx, done);
        awaitCount(done, txs / 3);

        // The worker running wfa's task, found through the REST status API, is stopped (gracefully).
        String victimId = connect.connectorStatus("wfa").tasks().get(0).workerId();
        WorkerHandle victim = connect.workers().stream().filter(w -> w.url().getPort() == port(victimId))
                .findFirst().orElseThrow(() -> new AssertionError("no worker serves " + victimId));
        Map<String, String> ranOnVictim = new HashMap<>();
        for (String n : names) ranOnVictim.put(n, connect.connectorStatus(n).tasks().get(0).workerId());
        connect.removeWorker(victim);
        long stoppedAt = System.currentTimeMillis();
        assertEquals(1, connect.workers().size());

        // The task moves to the other worker and runs there.
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        String movedTo = null;
        while (System.nanoTime() < end) {
            var t = connect.connectorStatus("wfa").tasks().get(0);
            if ("RUNNING".equals(t.state()) && !victimId.equals(t.workerId())) {
                movedTo = t.workerId();
                break;
            }
            Thread.sleep(100);
        }
        assertNotNull(movedTo, "wfa's task did not move off " + victimId);
        assertNotEquals(victimId, movedTo);
        writer.get(120, TimeUnit.SECONDS);

        int rows = txs * perTx;
        try (OffsetsTopic offsets = new OffsetsTopic(connect, OFFSETS)) {
            for (String n : names) {
                List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + n + ".public." + n + "_rows\\E", Map.of(),
                        l -> l.stream().map(c -> c.value().getStruct("after").get("id")).distinct().count() == rows,
                        Duration.ofSeconds(90));
                // Nothing missing: the table rebuilt from its topic is the source table.
                assertEquals(source(n + "_rows"), EndToEndTest.rebuilt(all, n + ".public." + n + "_rows"));
                // Duplicates only beyond the offset committed before the stop: every record sent twice
                // belongs to a transaction that commits at or after that offset's end LSN.
                OffsetsTopic.Committed atStop = offsets.lastBefore(n, stoppedAt);
                assertNotNull(atStop, n + ": an offset was committed before the stop");
                Map<Object, Integer> seen = new HashMap<>();
                int duplicates = 0;
                for (Change c : all) {
                    Object id = c.value().getStruct("after").get("id");
                    if (seen.merge(id, 1, Integer::sum) > 1) {
                        duplicates++;
                        long lsn = c.value().getStruct("source").getInt64("lsn");
                        assertTrue(Long.compareUnsigned(lsn, atStop.lsnCommit()) >= 0, n + ": row " + id
                                + " sent again although the offset committed before the stop covers it");
                    }
                }
                System.out.printf("worker stop: %s ran on %s (victim %s), %d records, %d duplicates%n", n,
                        ranOnVictim.get(n), victimId, all.size(), duplicates);
            }
        }
        for (String n : names) connect.deleteConnector(n);
    }

    private Map<Object, Map<String, Object>> source(String table) throws Exception {
        Map<Object, Map<String, Object>> out = new TreeMap<>();
        for (Row r : EndToEndTest.query(pg, "SELECT id, tx FROM " + table)) {
            int id = Integer.parseInt(r.get(0));
            out.put(id, Map.of("id", id, "tx", Integer.parseInt(r.get(1))));
        }
        assertTrue(out.size() > 0);
        return out;
    }

    /** A valid sample: the last committed offset, unchanged while the slot's confirmed position was read. */
    record Sample(long committedEnd, int committedEvent, long confirmed) {}

    /**
     * The broker throttles the task's producer (a produce quota: its acknowledgements are delayed)
     * while transactions stream. The slot's confirmed_flush_lsn, sampled throughout, never covers a
     * transaction whose records are not all covered by the committed offset at that moment; and
     * nothing is lost.
     */
    @Test
    @Order(2)
    void slowBrokerNeverLetsTheSlotPassTheCommittedOffsets() throws Exception {
        String n = "slow";
        String clientId = "connector-producer-" + n + "-0"; // Connect's producer for task 0
        try (Admin admin = connect.kafka().createAdminClient()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId)),
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 20_000.0))))).all().get(30, TimeUnit.SECONDS);
        }
        EndToEndTest.sql(pg, "CREATE TABLE slow_rows (id int PRIMARY KEY, tx int)");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, n);
        cfg.put("status.update.interval.ms", "100"); // the slot's position follows the confirmations closely
        connect.configureConnector(n, cfg);
        ConnectHarness.awaitRunning(connect, n, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, n + "_slot");

        int txs = 60;
        int perTx = 3;
        AtomicInteger done = new AtomicInteger();
        CompletableFuture<Void> writer = workload(List.of("slow_rows"), txs, perTx, done);
        List<Sample> samples = new ArrayList<>();
        int discarded = 0;
        int rows = txs * perTx;
        try (OffsetsTopic offsets = new OffsetsTopic(connect, OFFSETS)) {
            long end = System.nanoTime() + Waits.CEILING.toNanos();
            while (System.nanoTime() < end) {
                long before = offsets.end();
                OffsetsTopic.Committed c = offsets.last(n);
                long confirmed = Long.parseLong(EndToEndTest.query(pg, "SELECT (confirmed_flush_lsn - '0/0')::text"
                        + " FROM pg_replication_slots WHERE slot_name = 'slow_slot'").get(0).get(0));
                if (offsets.end() != before) {
                    discarded++; // an offset commit happened between the two reads
                } else {
                    samples.add(new Sample(c == null ? 0 : c.lsnCommit(), c == null ? -1 : c.event(), confirmed));
                }
                OffsetsTopic.Committed last = offsets.last(n);
                if (writer.isDone() && last != null && samples.size() > 10
                        && samples.get(samples.size() - 1).confirmed() >= last.lsnCommit()) break;
                Thread.sleep(50);
            }
        }
        writer.get(60, TimeUnit.SECONDS);
        double throttle = (double) ManagementFactory.getPlatformMBeanServer().getAttribute(
                new ObjectName("kafka.producer:type=producer-metrics,client-id=" + clientId), "produce-throttle-time-max");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qslow.public.slow_rows\\E", Map.of(),
                l -> l.stream().map(c -> c.value().getStruct("after").get("id")).distinct().count() == rows,
                Duration.ofSeconds(120));
        connect.deleteConnector(n);
        assertTrue(throttle > 0, "the broker throttled the task's producer");
        assertEquals(source("slow_rows"), EndToEndTest.rebuilt(all, "slow.public.slow_rows"));

        // Each transaction's commit LSN and record count, from what reached Kafka.
        TreeMap<Long, Integer> txRecords = new TreeMap<>(Long::compareUnsigned);
        Map<Object, Boolean> firstCopy = new HashMap<>();
        for (Change c : all) {
            if (firstCopy.put(c.value().getStruct("after").get("id"), true) != null) continue;
            txRecords.merge(c.value().getStruct("source").getInt64("lsn"), 1, Integer::sum);
        }
        assertEquals(txs, txRecords.size(), "one commit LSN per transaction");
        int lagging = 0;
        for (Sample s : samples) {
            // A transaction committing in [committed end, confirmed) is confirmed but not covered by the offsets.
            var uncovered = Long.compareUnsigned(s.confirmed(), s.committedEnd()) <= 0 ? Map.of()
                    : txRecords.subMap(s.committedEnd(), true, s.confirmed(), false);
            assertTrue(uncovered.isEmpty(), "confirmed_flush_lsn " + s.confirmed() + " passed the committed offset "
                    + s.committedEnd() + ": transactions " + uncovered + " were not committed");
            // The transaction ending at the committed offset, if only partly covered, is not confirmed either.
            var atEnd = txRecords.lowerEntry(s.committedEnd());
            if (atEnd != null && s.committedEvent() < atEnd.getValue() - 1) {
                assertTrue(Long.compareUnsigned(s.confirmed(), s.committedEnd()) < 0, "the slot was confirmed through"
                        + " a transaction whose records are only partly committed (" + s + ")");
            }
            if (!txRecords.tailMap(s.committedEnd(), true).isEmpty()) lagging++;
        }
        System.out.printf("slow broker: %d samples (%d discarded), %d while records were still to commit, "
                + "throttle max %.0f ms%n", samples.size(), discarded, lagging, throttle);
        assertTrue(samples.size() >= 10, "enough samples: " + samples.size());
        assertTrue(lagging > 0, "some samples were taken while records were in flight");
    }
}
