package io.pgrepl.it.snapshot;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static io.pgrepl.it.snapshot.SnapshotSupport.hex;
import static io.pgrepl.it.snapshot.SnapshotSupport.scalar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.it.values.ValueCases;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The exactness test of the initial snapshot: while a workload inserts, updates (keys included) and deletes, a
 * snapshot is taken and the stream follows; the target rebuilt from reads, then changes in order,
 * must equal every source table at the end, row for row and value for value, the expected values
 * being what the server returns for the final tables (text output, or the send functions' bytes).
 * Tables: a large one split into ctid ranges (14+), a partitioned one, one with TOASTed values,
 * one with a column per type of the typed-values suite.
 */
@PgTest
class SnapshotExactnessTest {

    @Test
    void binaryOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, true);
    }

    @Test
    void textOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, false);
    }

    private static void setup(PgServer s, int major) throws Exception {
        StringBuilder typed = new StringBuilder("CREATE TABLE typed AS SELECT 1 AS id");
        int n = 0;
        for (ValueCases.Case c : ValueCases.all()) {
            if (c.minMajor() > major || !c.setup().isEmpty()) continue;
            typed.append(", (").append(c.sql()).append(") AS c").append(n++);
        }
        String part = "CREATE TABLE part (id int, v text, PRIMARY KEY (id)) PARTITION BY RANGE (id);"
                + " CREATE TABLE part_1 PARTITION OF part FOR VALUES FROM (MINVALUE) TO (50000);"
                + " CREATE TABLE part_2 PARTITION OF part FOR VALUES FROM (50000) TO (MAXVALUE);";
        if (major < 11) {
            // 10: no primary keys on partitioned tables; the leaves carry them.
            part = "CREATE TABLE part (id int, v text) PARTITION BY RANGE (id);"
                    + " CREATE TABLE part_1 PARTITION OF part (PRIMARY KEY (id)) FOR VALUES FROM (MINVALUE) TO (50000);"
                    + " CREATE TABLE part_2 PARTITION OF part (PRIMARY KEY (id)) FOR VALUES FROM (50000) TO (MAXVALUE);";
        }
        String pub = major >= 13 ? "CREATE PUBLICATION snap_pub FOR TABLE big, part, toasty, typed WITH (publish_via_partition_root = true)"
                : "CREATE PUBLICATION snap_pub FOR TABLE big, part_1, part_2, toasty, typed";
        s.sql("postgres", "DROP PUBLICATION IF EXISTS snap_pub; DROP TABLE IF EXISTS big, part, toasty, typed;"
                + " CREATE TABLE big (id int PRIMARY KEY, v text, n int);"
                + " INSERT INTO big SELECT g, md5(g::text), g FROM generate_series(1, 30000) g;"
                + part + " INSERT INTO part SELECT g * 10, md5(g::text) FROM generate_series(1, 9000) g;"
                + " CREATE TABLE toasty (id int PRIMARY KEY, n int, payload text);"
                + " INSERT INTO toasty SELECT g, 0, (SELECT string_agg(md5(random()::text || g || i), '') FROM generate_series(1, 400) i)"
                + " FROM generate_series(1, 40) g;"
                + typed + "; ALTER TABLE typed ADD PRIMARY KEY (id);"
                + " INSERT INTO typed SELECT g, " + cols(n) + " FROM typed CROSS JOIN generate_series(2, 100) g;"
                + pub);
    }

    private static String cols(int n) {
        List<String> c = new ArrayList<>();
        for (int i = 0; i < n; i++) c.add("c" + i);
        return String.join(", ", c);
    }

    /** Random DML on every table until stopped; returns the statements run. */
    private static Thread workload(PgConnection c, AtomicBoolean stop, AtomicLong statements, int typedCols) {
        Thread t = new Thread(() -> {
            Random r = new Random(42);
            int next = 1_000_000;
            try {
                while (!stop.get()) {
                    StringBuilder tx = new StringBuilder("BEGIN;");
                    for (int k = 0; k < 1 + r.nextInt(4); k++) {
                        int id = 1 + r.nextInt(30000);
                        switch (r.nextInt(12)) {
                            case 0 -> tx.append("INSERT INTO big VALUES (").append(next++).append(", md5(random()::text), 0);");
                            case 1 -> tx.append("UPDATE big SET v = md5(random()::text), n = n + 1 WHERE id = ").append(id).append(';');
                            case 2 -> tx.append("UPDATE big SET id = ").append(next++).append(" WHERE id = ").append(id).append(';');
                            case 3 -> tx.append("DELETE FROM big WHERE id = ").append(id).append(';');
                            case 4 -> tx.append("INSERT INTO part VALUES (").append(next++).append(", 'new');");
                            // 13+ through the root: moving a row across partitions (id 10..90000) is a key change
                            case 5 -> tx.append("UPDATE part SET v = md5(random()::text) WHERE id = ").append(10 * (1 + r.nextInt(9000))).append(';');
                            case 6 -> tx.append("DELETE FROM part WHERE id = ").append(10 * (1 + r.nextInt(9000))).append(';');
                            case 7 -> tx.append("UPDATE toasty SET n = n + 1 WHERE id = ").append(1 + r.nextInt(40)).append(';');
                            case 8 -> tx.append("UPDATE toasty SET payload = md5(random()::text) || payload WHERE id = ")
                                    .append(1 + r.nextInt(40)).append(';');
                            case 9 -> tx.append("DELETE FROM typed WHERE id = ").append(2 + r.nextInt(99)).append(';');
                            case 10 -> tx.append("INSERT INTO typed SELECT ").append(next++).append(", ").append(cols(typedCols))
                                    .append(" FROM typed WHERE id = 1;");
                            default -> tx.append("UPDATE big SET id = id + 0, n = n - 1 WHERE id = ").append(id).append(';');
                        }
                    }
                    await(c.simpleQuery(tx.append("COMMIT").toString()));
                    statements.incrementAndGet();
                }
            } catch (Exception e) {
                if (!stop.get()) throw new RuntimeException(e);
            }
        }, "snapshot-workload");
        t.start();
        return t;
    }

    private static void run(PgServer s, boolean binary) throws Exception {
        int major = s.majorVersion();
        setup(s, major);
        int typedCols = 0;
        for (ValueCases.Case c : ValueCases.all()) if (c.minMajor() <= major && c.setup().isEmpty()) typedCols++;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong txs = new AtomicLong();
        long[] txsAt = new long[2];
        Replica replica = new Replica() {
            @Override
            public void onStart(long consistentPoint, List<io.pgrepl.client.snapshot.SnapshotTable> list) {
                txsAt[0] = txs.get();
                super.onStart(consistentPoint, list);
            }

            @Override
            public void onEnd(io.pgrepl.client.snapshot.SnapshotResult result) {
                txsAt[1] = txs.get();
                super.onEnd(result);
            }
        };
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection work = connect(s, ReplicationMode.NONE);
             PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            Thread w = workload(work, stop, txs, typedCols);
            SnapshotSupport.waitUntil(() -> txs.get() > 20, Duration.ofSeconds(30), "workload");
            LogicalReplicationOptions stream = LogicalReplicationOptions.builder("snap_exact").publications("snap_pub")
                    .binary(binary ? Boolean.TRUE : null).statusInterval(Duration.ofMillis(500)).build();
            // Small ranges so the large table is split among the workers (14+).
            SnapshotOptions o = SnapshotOptions.of(stream).withUnitPages(16).withWorkers(4)
                    .withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
            InitialSnapshot.Started started = await(InitialSnapshot.start(repl, InitialSnapshotMode.INITIAL, o, replica, replica));
            long during = txs.get();
            Thread.sleep(500);
            stop.set(true);
            w.join(30_000);
            assertTrue(txs.get() > during && txsAt[1] > txsAt[0], "the workload committed while the tables were copied: "
                    + (txsAt[1] - txsAt[0]) + " transactions");
            // A last committed insert: once it has streamed, every change before it has too.
            replica.sentinel = hex(binary ? java.nio.ByteBuffer.allocate(4).putInt(-999999).array() : "-999999".getBytes());
            await(sql.simpleQuery("INSERT INTO big VALUES (-999999, 'sentinel', 0)"));
            SnapshotSupport.waitUntil(() -> replica.sentinelSeen, Duration.ofSeconds(60), "the sentinel change");
            started.stream().stop();
            assertEquals(started.snapshot().consistentPoint(), replica.readLsn, "reads carry the consistent point");
            assertFalse(replica.changeBeforeSnapshotEnd, "no change before the last read");
            assertTrue(replica.changes.get() > 0 && replica.reads.get() > 30000, "reads and changes both arrived");
            assertEquals(replica.reads.get(), started.snapshot().rows());
            List<String> published = await(sql.query("SELECT schemaname || '.' || tablename FROM pg_publication_tables"
                    + " WHERE pubname = 'snap_pub' ORDER BY 1")).rows().stream().map(r -> r.get(0)).toList();
            assertEquals(published.stream().sorted().toList(), replica.tables.keySet().stream().sorted().toList());
            for (String table : published) {
                Map<String, List<String>> expected = expected(sql, table, replica.columns.get(table), binary);
                Map<String, List<String>> got = replica.tables.get(table);
                assertEquals(expected.size(), got.size(), table + ": row count");
                for (Map.Entry<String, List<String>> e : expected.entrySet()) {
                    assertEquals(e.getValue(), got.get(e.getKey()), table + " row " + e.getKey());
                }
            }
        } finally {
            stop.set(true);
        }
    }

    /** The table as the server returns it now: text output, or the send function's bytes, in hex. */
    private static Map<String, List<String>> expected(PgConnection sql, String table, List<String> columns, boolean binary)
            throws Exception {
        String[] parts = table.split("\\.");
        String rel = "\"" + parts[0] + "\".\"" + parts[1] + "\"";
        List<String> exprs = new ArrayList<>();
        if (binary) {
            Map<String, String> send = new HashMap<>();
            for (Row r : await(sql.query("SELECT a.attname, t.typsend::regproc::text FROM pg_attribute a JOIN pg_type t"
                    + " ON t.oid = a.atttypid WHERE a.attrelid = '" + rel + "'::regclass AND a.attnum > 0")).rows()) {
                send.put(r.get(0), r.get(1));
            }
            for (String c : columns) exprs.add("encode(" + send.get(c) + "(\"" + c + "\"), 'hex')");
        } else {
            for (String c : columns) exprs.add("\"" + c + "\"");
        }
        QueryResult q = await(sql.query("SELECT " + String.join(", ", exprs) + " FROM " + rel));
        int key = columns.indexOf("id");
        Map<String, List<String>> out = new HashMap<>();
        for (Row r : q.rows()) {
            List<String> v = new ArrayList<>();
            for (int i = 0; i < columns.size(); i++) v.add(binary ? r.get(i) : hex(r.bytes(i)));
            out.put(v.get(key), v);
        }
        return out;
    }
}
