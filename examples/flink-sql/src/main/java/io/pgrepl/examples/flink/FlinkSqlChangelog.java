package io.pgrepl.examples.flink;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.testkit.PgServer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * A Flink SQL job over {@code 'connector' = 'pgrepl'}: orders per region, counted and summed by
 * Flink from the table's changelog while the table is written, then compared with the same query
 * in PostgreSQL. Starts an embedded PostgreSQL 18 unless given {@code --url postgresql://...}
 * (a server with wal_level=logical and a superuser or a role with REPLICATION that may create tables).
 * Exits 0 when Flink's answer equals PostgreSQL's.
 */
public final class FlinkSqlChangelog {
    private static final String SLOT = "flink_sql_example";

    public static void main(String[] args) throws Exception {
        String url = null;
        for (int i = 0; i + 1 < args.length; i++) if (args[i].equals("--url")) url = args[i + 1];
        PgServer server = url == null ? PgServer.builder().version(18).start() : null;
        if (server != null) url = server.url(server.superuser(), "postgres");
        int exit;
        try (PgConnection sql = await(PgConnection.connect(ConnectionConfig.parse(url)))) {
            exit = run(sql, url);
        } finally {
            if (server != null) server.close();
        }
        System.exit(exit);
    }

    private static int run(PgConnection sql, String url) throws Exception {
        await(sql.simpleQuery("SET client_min_messages = warning; DROP TABLE IF EXISTS shop_orders;"
                + " DROP PUBLICATION IF EXISTS " + SLOT + "_pub;"
                + " SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'"));
        await(sql.simpleQuery("CREATE TABLE shop_orders (id int PRIMARY KEY, region text NOT NULL, amount numeric(10,2), status text);"
                + " ALTER TABLE shop_orders REPLICA IDENTITY FULL;"
                + " INSERT INTO shop_orders SELECT g, (ARRAY['north','south','east','west'])[1 + g % 4], g % 500 + 0.99, 'new'"
                + " FROM generate_series(1, 20000) g; ANALYZE shop_orders"));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1_000);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql("CREATE TABLE orders (id INT, region STRING, amount DECIMAL(10, 2), status STRING,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'pgrepl', 'url' = '" + url.replace("'", "''") + "',"
                + " 'table-name' = 'shop_orders', 'slot.name' = '" + SLOT + "', 'scan.incremental.snapshot.chunk.size' = '5000')");
        String query = "SELECT region, COUNT(*) AS orders, SUM(amount) AS total FROM orders GROUP BY region";
        System.out.println("Flink SQL> " + query);
        TableResult result = tables.executeSql(query);

        Map<String, String> flink = new TreeMap<>();
        // Writes while the snapshot splits are read and after: the stream merges them into the changelog.
        Thread writer = new Thread(() -> write(sql), "writer");
        writer.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        Map<String, String> postgres = null;
        long printed = 0;
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext() && System.nanoTime() < deadline) {
                Row r = it.next();
                if (++printed <= 12) System.out.println("  " + r.getKind().shortString() + " " + r.getField(0) + " " + r.getField(1) + " " + r.getField(2));
                switch (r.getKind()) {
                    case INSERT, UPDATE_AFTER -> flink.put(String.valueOf(r.getField(0)), r.getField(1) + " " + r.getField(2));
                    default -> flink.remove(String.valueOf(r.getField(0)));
                }
                if (!writer.isAlive()) {
                    if (postgres == null) postgres = postgres(sql);
                    if (postgres.equals(flink)) break;
                }
            }
        }
        System.out.println("  ... " + Math.max(0, printed - 12) + " more changelog rows of the aggregate");
        System.out.println("Flink:      " + flink);
        System.out.println("PostgreSQL: " + postgres);
        // The job was cancelled when the iterator closed; its stream lets go of the slot soon after.
        while (!await(sql.query("SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + SLOT + "' AND active")).rows().isEmpty()) {
            Thread.sleep(100);
        }
        await(sql.simpleQuery("SELECT pg_drop_replication_slot('" + SLOT + "')"));
        boolean same = flink.equals(postgres);
        System.out.println(same ? "The changelog aggregated by Flink equals PostgreSQL's answer." : "MISMATCH");
        return same ? 0 : 1;
    }

    /** Updates (moving orders between regions), inserts and deletes, in small transactions. */
    private static void write(PgConnection sql) {
        try {
            for (int i = 0; i < 200; i++) {
                await(sql.simpleQuery("BEGIN; UPDATE shop_orders SET region = 'west', amount = amount + 1, status = 'moved'"
                        + " WHERE id = " + (1 + i * 37) + "; INSERT INTO shop_orders VALUES (" + (100_000 + i) + ", 'north', 5.00, 'new');"
                        + " DELETE FROM shop_orders WHERE id = " + (2 + i * 41) + "; COMMIT"));
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> postgres(PgConnection sql) throws Exception {
        Map<String, String> m = new TreeMap<>();
        for (io.pgrepl.client.Row r : await(sql.query("SELECT region, count(*), sum(amount) FROM shop_orders GROUP BY region")).rows()) {
            m.put(r.get(0), r.get(1) + " " + r.get(2));
        }
        return m;
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
