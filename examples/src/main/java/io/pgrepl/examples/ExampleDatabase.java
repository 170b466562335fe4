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
 * The tables: {@code ex_customers}, {@code ex_orders} (the workload) and {@code ex_types} (one
 * column per common type, for {@link TypedValues}).
 */
final class ExampleDatabase implements AutoCloseable {
    static final String PUBLICATION = "examples_pub";
    private static final String TABLES = "ex_customers, ex_orders, ex_types";

    private final PgServer server;
    final PgConnection sql;
    final PgConnection replication;
    final String slot = "examples_" + ProcessHandle.current().pid();

    private ExampleDatabase(PgServer server, String url) throws Exception {
        this.server = server;
        ConnectionConfig base = ConnectionConfig.parse(url);
        sql = await(PgConnection.connect(base.toBuilder().replication(ReplicationMode.NONE).build()));
        replication = await(PgConnection.connect(base.toBuilder().replication(ReplicationMode.DATABASE).build()));
        // Leftovers of an interrupted run on a --url server go first; IF EXISTS would otherwise make
        // the server send "does not exist, skipping" notices on every clean run.
        await(sql.simpleQuery("SET client_min_messages = warning"));
        await(sql.simpleQuery("DROP TABLE IF EXISTS " + TABLES + "; DROP PUBLICATION IF EXISTS " + PUBLICATION));
        await(sql.simpleQuery("RESET client_min_messages"));
        await(sql.simpleQuery("CREATE TABLE ex_customers (id int PRIMARY KEY, name text);"
                + " CREATE TABLE ex_orders (id int PRIMARY KEY, customer int, amount numeric, note text);"
                + " CREATE TABLE ex_types (id int PRIMARY KEY, small smallint, big bigint, ratio float8, price numeric,"
                + " flag bool, label varchar(20), blob bytea, uid uuid, day date, at_time time, local_ts timestamp,"
                + " ts timestamptz, span interval, doc jsonb, counts int[], grid text[], pos pg_lsn)"));
        await(sql.simpleQuery("CREATE PUBLICATION " + PUBLICATION + " FOR TABLE " + TABLES));
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
            await(sql.simpleQuery("DROP PUBLICATION " + PUBLICATION + "; DROP TABLE " + TABLES));
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
