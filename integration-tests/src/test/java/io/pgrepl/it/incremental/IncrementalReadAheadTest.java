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
 * A worker reads its next chunk while the stream has not passed the previous chunk's high mark
 * (read-ahead). The workload here changes only keys of that next chunk (ids 400 to 1,200 past the
 * last key emitted, with chunks of 200 rows over even ids): each change lands between the
 * read-ahead chunk's own watermarks or just before them. Rebuilt from changes and reads in arrival
 * order, the table must equal the source, and no read may follow a newer change of its key: the
 * read-ahead chunk keeps its own window and touch log.
 */
@PgTest
class IncrementalReadAheadTest {
    private static final String TABLE = "inc_ra";

    @Test
    void readAheadChunkIsExactUnderChangesToItsKeysOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        int rows = 12_000;
        IncrementalExactnessTest.setup(s, TABLE, rows);
        Rebuild rebuild = new Rebuild(TABLE);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong txs = new AtomicLong();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection work = connect(s, ReplicationMode.NONE);
             PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, "inc_ra18");
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("inc_ra18").publications(IncrementalExactnessTest.PUB)
                    .messages(true).autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withChunkSize(200), rebuild);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());
            Thread w = new Thread(() -> {
                Random rnd = new Random(18);
                try {
                    while (!stop.get()) {
                        StringBuilder tx = new StringBuilder("BEGIN;");
                        for (int k = 0; k < 1 + rnd.nextInt(3); k++) {
                            int id = (rebuild.lastReadKey + 400 + rnd.nextInt(800)) & ~1;
                            switch (rnd.nextInt(4)) {
                                case 0 -> tx.append("DELETE FROM ").append(TABLE).append(" WHERE id = ").append(id).append(';');
                                case 1 -> tx.append("INSERT INTO ").append(TABLE).append(" VALUES (").append(id | 1)
                                        .append(", 'ins', 0) ON CONFLICT (id) DO UPDATE SET n = ").append(TABLE).append(".n + 1;");
                                default -> tx.append("UPDATE ").append(TABLE).append(" SET v = md5(random()::text), n = n + 1 WHERE id = ")
                                        .append(id).append(';');
                            }
                        }
                        await(work.simpleQuery(tx.append("COMMIT").toString()));
                        txs.incrementAndGet();
                    }
                } catch (Exception e) {
                    if (!stop.get()) throw new RuntimeException(e);
                }
            }, "inc-ra-workload");
            w.setDaemon(true);
            w.start();
            waitUntil("the workload", Duration.ofSeconds(30), () -> txs.get() > 10);
            long before = txs.get();
            snaps.execute("public." + TABLE);
            waitUntil("the snapshot's end", Duration.ofSeconds(120), () -> rebuild.status("public." + TABLE, TableProgress.Status.COMPLETED)
                    || rebuild.status("public." + TABLE, TableProgress.Status.FAILED));
            long during = txs.get() - before;
            stop.set(true);
            w.join(30_000);
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get("public." + TABLE).status());
            await(sql.query("INSERT INTO " + TABLE + " VALUES (-1, 'sentinel', 0)"));
            waitUntil("the sentinel", Duration.ofSeconds(60), () -> rebuild.sentinelSeen);
            await(stream.stop());
            snaps.close();
            assertTrue(during > 50, "the workload ran during the snapshot: " + during + " transactions");
            Map<String, String> expected = IncSupport.source(sql, TABLE);
            Map<String, String> got = rebuild.rowsCopy();
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their key: " + rebuild.violations);
                assertTrue(rebuild.changes > 50, "changes streamed: " + rebuild.changes);
            }
            int diff = 0;
            StringBuilder sample = new StringBuilder();
            for (Map.Entry<String, String> e : expected.entrySet()) {
                if (!e.getValue().equals(got.get(e.getKey())) && diff++ < 10) {
                    sample.append(e.getKey()).append(": ").append(e.getValue()).append(" vs ").append(got.get(e.getKey())).append("; ");
                }
            }
            assertEquals(0, diff, "rows differing from the source: " + sample);
            assertEquals(expected.size(), got.size(), "row count");
        } finally {
            stop.set(true);
        }
    }
}
