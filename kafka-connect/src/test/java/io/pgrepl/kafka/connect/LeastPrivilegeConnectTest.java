package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.DocumentedServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The connector as docs/operations.md's least-privilege role, on a server set up with only the
 * page's blocks ({@link DocumentedServer}), 18 and 10: the initial copy (exported snapshot), the
 * stream, and a signalled incremental snapshot (message watermarks on 14+, the signal table's
 * before), with the publication made by its owner ({@code publication.autocreate.mode=disabled}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeastPrivilegeConnectTest {
    private EmbeddedConnectCluster connect;
    private final Map<Integer, DocumentedServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("least-privilege", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(DocumentedServer::close);
    }

    static java.util.stream.Stream<Integer> majors() {
        return ConnectHarness.newestAndOldest();
    }

    private static long count(List<Change> all, String topic, String op, String snapshot) {
        return all.stream().filter(c -> c.topic().equals(topic) && c.value() != null && op.equals(c.op())
                && (snapshot == null || snapshot.equals(c.value().getStruct("source").getString("snapshot")))).count();
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void copiesStreamsAndSnapshotsAsThePagesRole(int major) throws Exception {
        DocumentedServer s = DocumentedServer.start(major);
        servers.put(major, s);
        String p = "lp" + major;
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", PgreplSourceConnector.class.getName());
        c.put("tasks.max", "1");
        c.put("database.url", "postgresql://" + DocumentedServer.ROLE + "@127.0.0.1:" + s.server().port() + "/" + DocumentedServer.DB);
        c.put("database.password", DocumentedServer.PASSWORD);
        c.put("slot.name", p + "_slot");
        c.put("publication.name", "app_pub");
        c.put("publication.autocreate.mode", "disabled");
        c.put("snapshot.mode", "initial");
        c.put("signal.data.collection", "shop.pgrepl_signal");
        c.put("topic.prefix", p);
        c.put("poll.interval.ms", "100");
        c.put("topic.creation.default.replication.factor", "1");
        c.put("topic.creation.default.partitions", "1");
        connect.configureConnector(p, c);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");

        String orders = p + ".shop.orders";
        String customers = p + ".shop.customers";
        List<Change> copied = ConnectHarness.readUntil(connect, "\\Q" + p + ".shop.\\E.*", Map.of(),
                l -> count(l, orders, "r", null) >= DocumentedServer.ORDERS && count(l, customers, "r", null) >= DocumentedServer.CUSTOMERS,
                Duration.ofSeconds(120));
        assertEquals(DocumentedServer.ORDERS, count(copied, orders, "r", null), "every order copied once");
        assertEquals(DocumentedServer.CUSTOMERS, count(copied, customers, "r", null), "every customer copied once");

        s.sql("INSERT INTO shop.orders (id, amount, code) VALUES (5001, 12.50, 'streamed')");
        // The signaller's own privilege (here the superuser's): the row reaches the task through the publication.
        s.sql("INSERT INTO shop.pgrepl_signal VALUES ('lp-1', 'execute-snapshot',"
                + " '{\"data-collections\": [\"shop.customers\"], \"type\": \"incremental\"}')");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".shop.\\E.*", Map.of(),
                l -> count(l, orders, "c", null) >= 1 && count(l, customers, "r", "incremental") >= DocumentedServer.CUSTOMERS,
                Duration.ofSeconds(120));
        assertEquals(1, count(all, orders, "c", null), "the insert streamed");
        assertEquals(DocumentedServer.CUSTOMERS, count(all, customers, "r", "incremental"), "every customer read again, incrementally");
        connect.deleteConnector(p);
    }
}
