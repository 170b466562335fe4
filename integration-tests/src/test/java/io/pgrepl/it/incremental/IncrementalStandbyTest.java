package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.replication.StandbySlots;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Read-only watermarks on a real hot standby (PostgreSQL 18; decoding on a standby exists from 16):
 * the table lives on the primary, which takes a concurrent workload; the slot is on the standby
 * ({@link StandbySlots}), the stream and the chunk reads go to the standby, which cannot write
 * anything. The table rebuilt from the reads and the changes equals the primary's, and no read follows
 * a newer change of its key. (The read-only role on a primary is covered by
 * {@code IncrementalExactnessTest.exactReadOnlyOn18}.)
 */
class IncrementalStandbyTest {
    private static final String TABLE = "inc_sb";
    private static final int ROWS = 10_000;

    @Test
    void readOnlySnapshotFromAStandbyIsExact() throws Exception {
        try (PgServer primary = PgServer.builder().version(18).start()) {
            IncrementalExactnessTest.setup(primary, TABLE, ROWS);
            try (PgServer standby = primary.startStandby("inc_sb_phys")) {
                run(primary, standby);
            }
        }
    }

    private static void run(PgServer primary, PgServer standby) throws Exception {
        Rebuild rebuild = new Rebuild(TABLE);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong txs = new AtomicLong();
        String t = "public." + TABLE;
        try (PgConnection sql = connect(primary, ReplicationMode.NONE); PgConnection work = connect(primary, ReplicationMode.NONE);
             PgConnection onStandby = connect(standby, ReplicationMode.NONE); PgConnection repl = connect(standby, ReplicationMode.DATABASE)) {
            await(StandbySlots.create(repl, CreateSlotOptions.logical("inc_sb", "pgoutput").withSnapshot(SnapshotMode.NOTHING),
                    config(primary, ReplicationMode.NONE)));
            assertEquals("t", await(onStandby.query("SELECT pg_is_in_recovery()")).singleRow().get(0), "the reads go to a standby");
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("inc_sb").publications(IncrementalExactnessTest.PUB)
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(IncrementalOptions.of(config(standby, ReplicationMode.NONE))
                    .withChunkSize(200).withWatermarks(WatermarkMode.READ_ONLY), rebuild);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());
            // The workload commits synchronously, as production does by default: its WAL reaches the standby at once.
            await(work.query("SET synchronous_commit = on"));
            Thread w = IncrementalExactnessTest.workload(work, TABLE, rebuild, stop, txs, new AtomicBoolean(), ROWS);
            waitUntil("the workload", Duration.ofSeconds(30), () -> txs.get() > 20);
            long before = txs.get();
            snaps.execute(t);
            waitUntil("the snapshot's end", Duration.ofSeconds(90), () -> rebuild.status(t, TableProgress.Status.COMPLETED)
                    || rebuild.status(t, TableProgress.Status.FAILED));
            long during = txs.get() - before;
            stop.set(true);
            w.join(30_000);
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get(t).status(), "completed: " + rebuild.progress.get(t));
            await(sql.query("INSERT INTO " + TABLE + " VALUES (-1, 'sentinel', 0)"));
            waitUntil("the sentinel", Duration.ofSeconds(60), () -> rebuild.sentinelSeen);
            await(stream.stop());
            snaps.close();
            Map<String, String> expected = IncSupport.source(sql, TABLE);
            Map<String, String> got = rebuild.rowsCopy();
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their key: " + rebuild.violations);
                assertTrue(rebuild.reads > ROWS / 2, "the table was read from the standby: " + rebuild.reads);
                assertTrue(rebuild.changes > 100, "changes streamed: " + rebuild.changes);
            }
            assertTrue(during > 20, "the workload ran during the snapshot: " + during + " transactions");
            assertEquals(expected, got, "the primary's table, rebuilt from the standby's stream and reads");
        } finally {
            stop.set(true);
        }
    }
}
