package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * KIP-618: a worker with exactly.once.source.support=enabled, the connector defining transaction
 * boundaries (one Kafka transaction per PostgreSQL transaction): a read_committed consumer sees
 * each change exactly once across a task restart that lands mid-stream (a graceful one, through
 * the REST API; WorkerKillTest and SnapshotKillTest kill workers for real), and an idle database
 * with heartbeats does not leave a Kafka transaction open past transaction.timeout.ms.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExactlyOnceTest {
    private EmbeddedConnectCluster connect;
    private PgServer pg;

    @BeforeAll
    void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
        connect = ConnectHarness.start("eos", 1, Map.of("exactly.once.source.support", "enabled"));
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        if (pg != null) pg.close();
    }

    @Test
    void readCommittedConsumerSeesEachChangeOnceAcrossATaskRestart() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE eos_rows (id int PRIMARY KEY, tx int)");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, "eos");
        cfg.put("exactly.once.support", "required");
        cfg.put("transaction.boundary", "connector");
        connect.configureConnector("eos", cfg);
        ConnectHarness.awaitRunning(connect, "eos", 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, "eos_slot");
        int txs = 60;
        int perTx = 4;
        Map<String, Object> readCommitted = Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        for (int t = 0; t < txs; t++) {
            EndToEndTest.sql(pg, "INSERT INTO eos_rows SELECT g, " + t + " FROM generate_series("
                    + (t * perTx + 1) + ", " + (t * perTx + perTx) + ") g");
            if (t == 25) {
                // Mid-stream: the first transactions are committed in Kafka, later ones are still to come.
                ConnectHarness.readUntil(connect, "\\Qeos.public.eos_rows\\E", readCommitted,
                        l -> l.size() >= 10 * perTx, Duration.ofSeconds(60), 0);
                connect.restartTask("eos", 0);
            }
        }
        int n = txs * perTx;
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qeos.public.eos_rows\\E", readCommitted,
                l -> l.size() >= n, Duration.ofSeconds(90));
        Map<Object, Integer> seen = new HashMap<>();
        for (Change c : all) seen.merge(c.value().getStruct("after").get("id"), 1, Integer::sum);
        assertEquals(n, seen.size(), "every change arrived");
        assertEquals(n, all.size(), "no change arrived twice: " + seen.entrySet().stream()
                .filter(e -> e.getValue() > 1).limit(5).toList());
        connect.deleteConnector("eos");
    }

    /**
     * Heartbeats every second, a producer transaction timeout of 10 s and a
     * database idle for longer. Each heartbeat must commit its Kafka transaction (a read_committed
     * consumer sees them), the task stays RUNNING, and the next change arrives.
     */
    @Test
    void heartbeatsOnAnIdleDatabaseCommitTheirTransactions() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE eoi_rows (id int PRIMARY KEY)");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, "eoi");
        cfg.put("exactly.once.support", "required");
        cfg.put("transaction.boundary", "connector");
        cfg.put("heartbeat.interval.ms", "1000");
        cfg.put("producer.override.transaction.timeout.ms", "10000");
        connect.configureConnector("eoi", cfg);
        ConnectHarness.awaitRunning(connect, "eoi", 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, "eoi_slot");
        Map<String, Object> readCommitted = Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        EndToEndTest.sql(pg, "INSERT INTO eoi_rows VALUES (1)");
        ConnectHarness.readUntil(connect, "\\Qeoi.public.eoi_rows\\E", readCommitted, l -> l.size() == 1,
                Duration.ofSeconds(60), 0);
        long idleFrom = System.currentTimeMillis();
        // Idle for longer than transaction.timeout.ms: wait until committed heartbeats span 14 s.
        List<Change> hb = ConnectHarness.readUntil(connect, "\\Q__debezium-heartbeat.eoi\\E", readCommitted,
                l -> l.stream().anyMatch(c -> c.value().getInt64("ts_ms") >= idleFrom + 14_000), Duration.ofSeconds(60), 0);
        assertTrue(hb.size() >= 10, "heartbeats were committed one by one: " + hb.size());
        ConnectHarness.awaitRunning(connect, "eoi", 1, "the task failed while idle");
        EndToEndTest.sql(pg, "INSERT INTO eoi_rows VALUES (2)");
        List<Change> rows = ConnectHarness.readUntil(connect, "\\Qeoi.public.eoi_rows\\E", readCommitted,
                l -> l.size() == 2, Duration.ofSeconds(60));
        assertEquals(2, rows.size());
        assertEquals("RUNNING", connect.connectorStatus("eoi").tasks().get(0).state());
        connect.deleteConnector("eoi");
    }

    /**
     * transaction.boundary=interval (3 s) with the unacknowledged limits at their defaults: 6,000 rows,
     * more than max.unacknowledged.records, arrive read_committed within a few intervals, each once.
     * A guard: were Connect to acknowledge records only at the interval's commit, as it does for a
     * transaction the connector defines, poll() would hand over one record per interval.
     */
    @Test
    void intervalBoundaryIsNotHeldByTheUnacknowledgedLimits() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE eiv_rows (id int PRIMARY KEY)");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, "eiv");
        cfg.put("exactly.once.support", "required");
        cfg.put("transaction.boundary", "interval");
        cfg.put("transaction.boundary.interval.ms", "3000");
        connect.configureConnector("eiv", cfg);
        ConnectHarness.awaitRunning(connect, "eiv", 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, "eiv_slot");
        int n = 6000;
        for (int t = 0; t < 6; t++) {
            EndToEndTest.sql(pg, "INSERT INTO eiv_rows SELECT g FROM generate_series(" + (t * 1000 + 1) + ", " + (t * 1000 + 1000) + ") g");
        }
        List<Change> rows = ConnectHarness.readUntil(connect, "\\Qeiv.public.eiv_rows\\E",
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), l -> l.size() >= n, Duration.ofSeconds(30));
        assertEquals(n, rows.stream().map(c -> c.value().getStruct("after").get("id")).distinct().count(),
                "every row arrived within the wait");
        assertEquals(n, rows.size(), "no row arrived twice");
        connect.deleteConnector("eiv");
    }

    /**
     * A logical message sent outside any transaction is a Kafka transaction of its own: a
     * read_committed consumer sees it although no PostgreSQL commit follows (heartbeats off).
     */
    @Test
    void aStandaloneMessageCommitsItsOwnTransaction() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE eom_rows (id int PRIMARY KEY)");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, "eom");
        cfg.put("exactly.once.support", "required");
        cfg.put("transaction.boundary", "connector");
        cfg.put("messages.topic", "eom.messages");
        connect.configureConnector("eom", cfg);
        ConnectHarness.awaitRunning(connect, "eom", 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, "eom_slot");
        EndToEndTest.sql(pg, "SELECT pg_logical_emit_message(false, 'eom', 'on its own')");
        List<Change> m = ConnectHarness.readUntil(connect, "\\Qeom.messages\\E",
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), l -> l.size() == 1, Duration.ofSeconds(30), 0);
        assertEquals(1, m.size());
        connect.deleteConnector("eom");
    }

    /**
     * The limit on records waiting for Kafka (max.unacknowledged.records): with
     * transaction.boundary=connector Connect acknowledges records only when their Kafka transaction
     * commits, so a PostgreSQL transaction ten times the limit, handed over in parts, must not wait
     * for acknowledgements inside itself (it did, forever; the Connect soak found it).
     */
    @Test
    void aTransactionLargerThanTheUnacknowledgedLimitArrives() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE eol_rows (id int PRIMARY KEY)");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, "eol");
        cfg.put("exactly.once.support", "required");
        cfg.put("transaction.boundary", "connector");
        cfg.put("max.unacknowledged.records", "100");
        cfg.put("max.batch.size", "50");
        connect.configureConnector("eol", cfg);
        ConnectHarness.awaitRunning(connect, "eol", 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, "eol_slot");
        EndToEndTest.sql(pg, "INSERT INTO eol_rows SELECT g FROM generate_series(1, 1000) g");
        EndToEndTest.sql(pg, "INSERT INTO eol_rows VALUES (1001)");
        List<Change> rows = ConnectHarness.readUntil(connect, "\\Qeol.public.eol_rows\\E",
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), l -> l.size() >= 1001, Duration.ofSeconds(60));
        assertEquals(1001, rows.size());
        assertEquals("RUNNING", connect.connectorStatus("eol").tasks().get(0).state());
        connect.deleteConnector("eol");
    }
}
