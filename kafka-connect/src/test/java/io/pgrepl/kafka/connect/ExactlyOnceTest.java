package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * each change exactly once although the task is killed mid-stream.
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
    void readCommittedConsumerSeesEachChangeOnceAcrossATaskKill() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE eos_rows (id int PRIMARY KEY, tx int)");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, "eos");
        cfg.put("exactly.once.support", "required");
        cfg.put("transaction.boundary", "connector");
        connect.configureConnector("eos", cfg);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("eos", 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, "eos_slot");
        int txs = 60;
        int perTx = 4;
        for (int t = 0; t < txs; t++) {
            EndToEndTest.sql(pg, "INSERT INTO eos_rows SELECT g, " + t + " FROM generate_series("
                    + (t * perTx + 1) + ", " + (t * perTx + perTx) + ") g");
            if (t == 25) connect.restartTask("eos", 0);
        }
        int n = txs * perTx;
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qeos.public.eos_rows\\E",
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                l -> l.size() >= n, Duration.ofSeconds(90));
        Map<Object, Integer> seen = new HashMap<>();
        for (Change c : all) seen.merge(c.value().getStruct("after").get("id"), 1, Integer::sum);
        assertEquals(n, seen.size(), "every change arrived");
        assertEquals(n, all.size(), "no change arrived twice: " + seen.entrySet().stream()
                .filter(e -> e.getValue() > 1).limit(5).toList());
    }
}
