package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The exactness test for incremental snapshots with message watermarks: a table of ~100
 * chunks is snapshotted while a workload inserts, updates, deletes, changes keys (mostly just
 * ahead of the chunk being read, where they race it) and, halfway, truncates and refills the table
 * in one transaction. The table rebuilt from changes and reads, in arrival order, must equal the
 * source, and no read may arrive after a change of its key that it does not reflect.
 */
@PgTest
class IncrementalExactnessTest {
    static final String PUB = "inc_pub";

    @Test
    void exactUnderConcurrentWorkloadOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, "inc_x18", Mode.MESSAGE);
    }

    @Test
    void exactUnderConcurrentWorkloadOn14(@PgServerConfig(version = 14) PgServer s) throws Exception {
        run(s, "inc_x14", Mode.MESSAGE);
    }

    /**
     * Read-only mode: the chunks are read by a role whose transactions are read-only
     * (default_transaction_read_only), so any write the engine tried would fail the table.
     */
    @Test
    void exactReadOnlyOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, "inc_ro18", Mode.READ_ONLY);
    }

    /**
     * Streamed in-progress transactions (streaming=on, logical_decoding_work_mem at its minimum):
     * bulk updates around the read position are streamed in blocks before they commit; the
     * rebuild applies them at their Stream Commit, as a consumer must.
     */
    @Test
    void exactWithStreamedTransactionsOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        try {
            run(s, "inc_st18", Mode.STREAMING);
        } finally {
            // the server is shared with other test classes
            s.sql("postgres", "ALTER SYSTEM RESET logical_decoding_work_mem");
            s.sql("postgres", "SELECT pg_reload_conf()");
        }
    }

    /** 10: no logical messages; the watermarks are signal table rows, and the snapshot is asked for by one. */
    @Test
    void exactWithSignalTableWatermarksOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, "inc_x10", Mode.SIGNAL_TABLE);
    }

    static void setup(PgServer s, String table, int rows) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS " + PUB + "; DROP TABLE IF EXISTS " + table + ";"
                + " CREATE TABLE " + table + " (id int PRIMARY KEY, v text, n int);"
                + " INSERT INTO " + table + " SELECT g * 2, md5(g::text), g FROM generate_series(1, " + rows + ") g;"
                + " CREATE PUBLICATION " + PUB + " FOR TABLE " + table);
    }

    /** Random transactions, half of their keys just ahead of the last read; one truncate-and-refill once {@code truncateNow} says so. */
    static Thread workload(PgConnection c, String table, Rebuild r, AtomicBoolean stop, AtomicLong txs, AtomicBoolean truncateNow,
                           int rows) {
        Thread t = new Thread(() -> {
            Random rnd = new Random(7);
            int next = 10 * rows;
            try {
                while (!stop.get()) {
                    if (truncateNow.compareAndSet(true, false)) {
                        await(c.simpleQuery("BEGIN; TRUNCATE " + table + "; INSERT INTO " + table + " SELECT g * 2, md5(g::text), -g"
                                + " FROM generate_series(" + rows / 2 + ", " + rows + ") g; COMMIT"));
                        txs.incrementAndGet();
                        continue;
                    }
                    StringBuilder tx = new StringBuilder("BEGIN;");
                    for (int k = 0; k < 1 + rnd.nextInt(4); k++) {
                        int base = rnd.nextBoolean() ? r.lastReadKey : 0;
                        int id = base + 1 + rnd.nextInt(base == 0 ? 2 * rows : 400);
                        switch (rnd.nextInt(6)) {
                            case 0 -> tx.append("INSERT INTO ").append(table).append(" VALUES (").append(id | 1)
                                    .append(", 'ins', 0) ON CONFLICT (id) DO UPDATE SET n = ").append(table).append(".n + 1;");
                            case 1, 2 -> tx.append("UPDATE ").append(table).append(" SET v = md5(random()::text), n = n + 1 WHERE id = ")
                                    .append(id).append(';');
                            case 3 -> tx.append("DELETE FROM ").append(table).append(" WHERE id = ").append(id).append(';');
                            case 4 -> tx.append("UPDATE ").append(table).append(" SET id = ").append(next++).append(" WHERE id = ")
                                    .append(id).append(';');
                            default -> tx.append("UPDATE ").append(table).append(" SET id = ").append(id | 1).append(" WHERE id = ")
                                    .append(id & ~1).append(" AND NOT EXISTS (SELECT 1 FROM ").append(table).append(" WHERE id = ")
                                    .append(id | 1).append(");");
                        }
                    }
                    await(c.simpleQuery(tx.append("COMMIT").toString()));
                    txs.incrementAndGet();
                }
            } catch (Exception e) {
                if (!stop.get()) throw new RuntimeException(e);
            }
        }, "inc-workload");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Large transactions just ahead of the read position, on their own connection: streamed before they commit. */
    private static Thread bulkUpdates(PgServer s, String table, Rebuild r, AtomicBoolean stop) throws Exception {
        s.sql("postgres", "ALTER SYSTEM SET logical_decoding_work_mem = '64kB'");
        s.sql("postgres", "SELECT pg_reload_conf()");
        PgConnection c = connect(s, ReplicationMode.NONE);
        Thread t = new Thread(() -> {
            try (c) {
                while (!stop.get()) {
                    int from = r.lastReadKey;
                    await(c.query("UPDATE " + table + " SET v = md5(v || random()::text), n = n + 1 WHERE id BETWEEN " + from
                            + " AND " + (from + 1500)));
                }
            } catch (Exception e) {
                if (!stop.get()) throw new RuntimeException(e);
            }
        }, "inc-bulk");
        t.setDaemon(true);
        t.start();
        return t;
    }

    enum Mode { MESSAGE, SIGNAL_TABLE, READ_ONLY, STREAMING }

    private static void run(PgServer s, String slot, Mode mode) throws Exception {
        boolean signalTable = mode == Mode.SIGNAL_TABLE;
        String table = "inc_big";
        int rows = 20_000;
        setup(s, table, rows);
        if (signalTable) {
            s.sql("postgres", "DROP TABLE IF EXISTS inc_signal; CREATE TABLE inc_signal (id varchar(42) PRIMARY KEY,"
                    + " type varchar(32) NOT NULL, data varchar(2048)); ALTER PUBLICATION " + PUB + " ADD TABLE inc_signal");
        }
        Rebuild rebuild = new Rebuild(table);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean truncateNow = new AtomicBoolean();
        AtomicLong txs = new AtomicLong();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection work = connect(s, ReplicationMode.NONE);
             PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, slot);
            LogicalReplicationOptions o = LogicalReplicationOptions.builder(slot).publications(PUB).messages(mode == Mode.MESSAGE || mode == Mode.STREAMING ? Boolean.TRUE : null)
                    .streaming(mode == Mode.STREAMING ? io.pgrepl.client.stream.StreamingMode.ON : null)
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            IncrementalOptions io = IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(200);
            if (mode == Mode.READ_ONLY) {
                s.sql("postgres", "DROP ROLE IF EXISTS inc_ro; CREATE ROLE inc_ro LOGIN PASSWORD 'inc-ro-secret';"
                        + " ALTER ROLE inc_ro SET default_transaction_read_only = on; GRANT SELECT ON " + table + " TO inc_ro");
                io = IncrementalOptions.of(config(s, ReplicationMode.NONE).toBuilder().user("inc_ro").password("inc-ro-secret").build())
                        .withChunkSize(200).withWatermarks(WatermarkMode.READ_ONLY);
            }
            IncrementalSnapshots snaps = IncrementalSnapshots.create(signalTable ? io.withSignalTable("public.inc_signal") : io, rebuild);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());
            if (mode == Mode.READ_ONLY) {
                // The read-only high mark is a WAL position the walsender sends once flushed; the test
                // servers commit asynchronously, so the workload commits as production does by default.
                await(work.query("SET synchronous_commit = on"));
            }
            Thread w = workload(work, table, rebuild, stop, txs, truncateNow, rows);
            Thread bulk = null;
            if (mode == Mode.STREAMING) bulk = bulkUpdates(s, table, rebuild, stop);
            waitUntil("the workload", Duration.ofSeconds(30), () -> txs.get() > 20);
            long before = txs.get();
            if (signalTable) {
                // Debezium's signal row, verbatim.
                await(sql.query("INSERT INTO inc_signal VALUES ('ad-hoc-1', 'execute-snapshot',"
                        + " '{\"data-collections\": [\"public." + table + "\"], \"type\": \"incremental\"}')"));
            } else {
                snaps.execute("public." + table);
            }
            waitUntil("half the chunks", Duration.ofSeconds(90), () -> {
                TableProgress p = rebuild.progress.get("public." + table);
                return p != null && p.chunks() >= 45 || rebuild.status("public." + table, TableProgress.Status.COMPLETED);
            });
            // 10's pgoutput does not decode TRUNCATE at all; the streaming run covers bulk transactions instead
            boolean truncates = s.majorVersion() >= 11 && mode != Mode.STREAMING;
            truncateNow.set(truncates);
            waitUntil("the snapshot's end", Duration.ofSeconds(90), () -> rebuild.status("public." + table, TableProgress.Status.COMPLETED)
                    || rebuild.status("public." + table, TableProgress.Status.FAILED));
            long during = txs.get() - before;
            stop.set(true);
            w.join(30_000);
            if (bulk != null) bulk.join(30_000);
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get("public." + table).status(),
                    "the snapshot completed: " + rebuild.progress.get("public." + table));
            await(sql.query("INSERT INTO " + table + " VALUES (-1, 'sentinel', 0)"));
            waitUntil("the sentinel", Duration.ofSeconds(60), () -> rebuild.sentinelSeen);
            await(stream.stop());
            snaps.close();
            Map<String, String> expected = IncSupport.source(sql, table);
            Map<String, String> got = rebuild.rowsCopy();
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their key: " + rebuild.violations);
                if (truncates) {
                    assertEquals(1, rebuild.truncates, "the truncate streamed");
                    assertTrue(rebuild.readsBeforeTruncate > 0 && rebuild.reads > rebuild.readsBeforeTruncate,
                            "reads on both sides of the truncate: " + rebuild.readsBeforeTruncate + " / " + rebuild.reads);
                }
                assertTrue(rebuild.changes > 100, "changes streamed: " + rebuild.changes);
                if (mode == Mode.STREAMING) assertTrue(rebuild.streamedCommits > 0, "transactions were streamed in progress");
            }
            assertTrue(during > 20, "the workload ran during the snapshot: " + during + " transactions");
            assertEquals(expected.size(), got.size(), "row count");
            int diff = 0;
            StringBuilder sample = new StringBuilder();
            for (Map.Entry<String, String> e : expected.entrySet()) {
                if (!e.getValue().equals(got.get(e.getKey()))) {
                    if (diff++ < 10) sample.append(e.getKey()).append(": ").append(e.getValue()).append(" vs ").append(got.get(e.getKey())).append("; ");
                }
            }
            assertEquals(0, diff, "rows differing from the source: " + sample);
        } finally {
            stop.set(true);
        }
    }
}
