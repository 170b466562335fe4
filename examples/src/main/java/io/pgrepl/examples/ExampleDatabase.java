package io.pgrepl.examples;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.testkit.PgServer;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What every example needs: a server (embedded PostgreSQL 18 from the test kit, or {@code --url
 * URL}), two published tables, a temporary slot on a replication connection, and a workload
 * running on a second connection. Closing drops the slot and tables and stops the server.
 */
final class ExampleDatabase implements AutoCloseable {
    static final String PUBLICATION = "examples_pub";

    private final PgServer server;
    final PgConnection sql;
    final PgConnection replication;
    final String slot = "examples_" + ProcessHandle.current().pid();

    private ExampleDatabase(PgServer server, String url) throws Exception {
        this.server = server;
        ConnectionConfig base = ConnectionConfig.parse(url);
        sql = await(PgConnection.connect(base.toBuilder().replication(ReplicationMode.NONE).build()));
        replication = await(PgConnection.connect(base.toBuilder().replication(ReplicationMode.DATABASE).build()));
        await(sql.simpleQuery("DROP TABLE IF EXISTS ex_orders, ex_customers; DROP PUBLICATION IF EXISTS " + PUBLICATION));
        await(sql.simpleQuery("CREATE TABLE ex_customers (id int PRIMARY KEY, name text);"
                + " CREATE TABLE ex_orders (id int PRIMARY KEY, customer int, amount numeric, note text)"));
        await(sql.simpleQuery("CREATE PUBLICATION " + PUBLICATION + " FOR TABLE ex_customers, ex_orders"));
        if (sql.serverMajor() >= 13) await(replication.simpleQuery("SET logical_decoding_work_mem = '64kB'"));
        await(replication.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withTemporary(true)
                .withSnapshot(SnapshotMode.NOTHING)));
    }

    /** {@code --url URL} connects to an existing server; otherwise an embedded one is started. */
    static ExampleDatabase open(String[] args) throws Exception {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--url")) return new ExampleDatabase(null, args[i + 1]);
        }
        PgServer server = PgServer.builder().version(18).start();
        try {
            return new ExampleDatabase(server, server.url(server.superuser(), "postgres"));
        } catch (Exception e) {
            server.close();
            throw e;
        }
    }

    LogicalReplicationOptions.Builder options() {
        return LogicalReplicationOptions.builder(slot).publications(PUBLICATION).statusInterval(Duration.ofSeconds(1));
    }

    /** {@code transactions} transactions of {@code ordersPerTx} orders each (plus a customer), then returns. */
    void workload(int transactions, int ordersPerTx) throws Exception {
        for (int t = 0; t < transactions; t++) {
            int base = t * ordersPerTx;
            await(sql.simpleQuery("BEGIN; INSERT INTO ex_customers VALUES (" + t + ", 'customer " + t + "');"
                    + " INSERT INTO ex_orders SELECT g, " + t + ", g * 1.5, repeat('n', 50) FROM generate_series("
                    + base + ", " + (base + ordersPerTx - 1) + ") g; COMMIT"));
        }
    }

    /** Runs {@link #workload} on another thread. */
    Thread workloadInBackground(int transactions, int ordersPerTx) {
        Thread t = new Thread(() -> {
            try {
                workload(transactions, ordersPerTx);
            } catch (Exception e) {
                System.err.println("workload failed: " + e.getMessage());
            }
        }, "workload");
        t.start();
        return t;
    }

    @Override
    public void close() {
        try {
            // a temporary slot goes with its connection; the tables are ours to drop
            await(sql.simpleQuery("DROP PUBLICATION IF EXISTS " + PUBLICATION + "; DROP TABLE IF EXISTS ex_orders, ex_customers"));
        } catch (Exception e) {
            System.err.println("cleanup: " + e.getMessage());
        } finally {
            replication.close();
            sql.close();
            if (server != null) server.close();
        }
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }
}
