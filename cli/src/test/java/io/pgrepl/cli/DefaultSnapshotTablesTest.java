package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.testkit.PgServer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code stream --snapshot=incremental} without {@code --snapshot-tables} reads every table of the
 * publications, each once and under the name the stream gives its rows: names that need quotes, and
 * a partitioned root published through itself beside one of its partitions that another publication
 * lists by name (the stream names that partition's rows by the root); and {@code --idle-exit} does not
 * end the run while a table is still being planned. PostgreSQL 18.
 */
class DefaultSnapshotTablesTest {
    private static PgServer server;

    @BeforeAll
    static void start() {
        server = PgServer.builder().version(18).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    @Test
    void everyPublishedTableIsReadOnceUnderTheStreamsName() throws Exception {
        server.sql("postgres", "CREATE SCHEMA \"Sales.Q1\";"
                + " CREATE TABLE \"Sales.Q1\".\"Order-Items\" (id int PRIMARY KEY, amount numeric(8,2));"
                + " INSERT INTO \"Sales.Q1\".\"Order-Items\" VALUES (1, 1.50), (2, NULL);"
                + " CREATE TABLE \"Root\" (id int, region text, PRIMARY KEY (id, region)) PARTITION BY LIST (region);"
                + " CREATE TABLE \"Root EU\" PARTITION OF \"Root\" FOR VALUES IN ('eu');"
                + " CREATE TABLE root_us PARTITION OF \"Root\" FOR VALUES IN ('us');"
                + " INSERT INTO \"Root\" VALUES (10, 'eu'), (11, 'us'), (12, 'eu');"
                + " CREATE PUBLICATION dt_root FOR TABLE \"Sales.Q1\".\"Order-Items\", \"Root\" WITH (publish_via_partition_root = true);"
                + " CREATE PUBLICATION dt_leaf FOR TABLE \"Root EU\"");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('dt', 'pgoutput')");
        Cli.Result r = Cli.run("stream", Cli.url(server), "-S", "dt", "-P", "dt_root", "-P", "dt_leaf",
                "--snapshot=incremental", "--idle-exit", "2");
        Map<String, Integer> reads = new TreeMap<>();
        for (JsonNode n : r.lines()) {
            if (n.get("type").asText().equals("read")) {
                reads.merge(n.get("schema").asText() + "|" + n.get("table").asText() + "/" + n.get("new").get("id").asText(), 1, Integer::sum);
            }
        }
        assertEquals(Map.of("Sales.Q1|Order-Items/1", 1, "Sales.Q1|Order-Items/2", 1,
                "public|Root/10", 1, "public|Root/11", 1, "public|Root/12", 1), reads, r.out() + r.err());
        assertEquals(0, r.rc(), r.err());
    }

    @Test
    void idleExitWaitsForATableStillBeingPlanned() throws Exception {
        server.sql("postgres", "CREATE TABLE \"Idle Items\" (id int PRIMARY KEY, price numeric(8,2), code varchar(4), at timestamp(3));"
                + " INSERT INTO \"Idle Items\" VALUES (1, 9.99, 'ab', '2026-01-02 03:04:05.678'), (2, NULL, NULL, NULL);"
                + " CREATE TABLE idle_elsewhere (id int); CREATE PUBLICATION idle_pub FOR TABLE \"Idle Items\"");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('idle', 'pgoutput')");
        PgConnection holder = PgConnection.connect(ConnectionConfig.parse(Cli.url(server))).toCompletableFuture().get(60, TimeUnit.SECONDS);
        try {
            // A transaction open when the snapshot starts: the table's plan waits for it, and nothing is sent meanwhile.
            holder.query("BEGIN; INSERT INTO idle_elsewhere VALUES (1)").toCompletableFuture().get(60, TimeUnit.SECONDS);
            CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> holder.query("COMMIT"),
                    CompletableFuture.delayedExecutor(4, TimeUnit.SECONDS));
            Cli.Result r = Cli.run("stream", Cli.url(server), "-S", "idle", "-P", "idle_pub",
                    "--snapshot=incremental", "--idle-exit", "1");
            commit.get(60, TimeUnit.SECONDS);
            Map<String, String> reads = new TreeMap<>();
            for (JsonNode n : r.lines()) {
                if (!n.get("type").asText().equals("read")) continue;
                JsonNode v = n.get("new");
                reads.put(v.get("id").asText(), v.get("price").asText() + "|" + v.get("code").asText() + "|" + v.get("at").asText());
            }
            assertEquals(Map.of("1", "9.99|ab|2026-01-02T03:04:05.678", "2", "null|null|null"), reads, r.out() + r.err());
            assertEquals(0, r.rc(), r.err());
        } finally {
            holder.close();
        }
    }
}
