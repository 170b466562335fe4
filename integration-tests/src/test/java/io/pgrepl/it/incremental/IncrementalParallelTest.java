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
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Two tables at once, the larger split into (up to) three key ranges each read by its own worker
 * connection, under the concurrent workload on the larger one: both rebuilt exactly, the ranges
 * really in use (the saved state lists them), the tables really overlapping, and the progress
 * listener's counts consistent with the reads.
 */
@PgTest
class IncrementalParallelTest {

    @Test
    void parallelTablesAndKeyRanges(@PgServerConfig(version = 18) PgServer s) throws Exception {
        int rows = 20_000;
        IncrementalExactnessTest.setup(s, "inc_p1", rows);
        s.sql("postgres", "DROP TABLE IF EXISTS inc_p2; CREATE TABLE inc_p2 (id int PRIMARY KEY, v text, n int);"
                + " INSERT INTO inc_p2 SELECT g, 'p2', g FROM generate_series(1, 6000) g;"
                + " ALTER PUBLICATION " + IncrementalExactnessTest.PUB + " ADD TABLE inc_p2; ANALYZE inc_p1, inc_p2");
        Rebuild rebuild = new Rebuild("inc_p1", "inc_p2");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong txs = new AtomicLong();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection work = connect(s, ReplicationMode.NONE);
             PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, "inc_par");
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("inc_par").publications(IncrementalExactnessTest.PUB)
                    .messages(true).autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withChunkSize(200).withWorkersPerTable(3).withParallelTables(2), rebuild);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());
            Thread w = IncrementalExactnessTest.workload(work, "inc_p1", rebuild, stop, txs, new AtomicBoolean(), rows);
            snaps.execute("inc_p1", "inc_p2");
            waitUntil("chunks of inc_p1", Duration.ofSeconds(60), () -> {
                TableProgress p = rebuild.progress.get("public.inc_p1");
                return p != null && p.chunks() >= 6;
            });
            String state = snaps.state();
            int ranges = 0;
            boolean inP1 = false;
            for (String line : state.split("\n")) {
                if (line.startsWith("t ")) inP1 = line.startsWith("t public.inc_p1 ");
                else if (line.startsWith("r ") && inP1) ranges++;
            }
            // The planner may cut fewer ranges than asked for (histogram bounds); at least two make it parallel.
            assertTrue(ranges >= 2 && ranges <= 3, "two or three key ranges for inc_p1 in the state:\n" + state);
            waitUntil("both completed", Duration.ofSeconds(90), () -> done(rebuild, "public.inc_p1") && done(rebuild, "public.inc_p2"));
            long during = txs.get();
            stop.set(true);
            w.join(30_000);
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get("public.inc_p1").status());
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get("public.inc_p2").status());
            // Overlap, not two tables RUNNING at one instant: on a loaded machine inc_p2's 30 chunks can all be read
            // while inc_p1 still waits out the workload's lingering commits. One table at a time would not start
            // inc_p2 before inc_p1 completed.
            int p2Started = firstEvent(rebuild, "public.inc_p2", TableProgress.Status.RUNNING);
            int p1Completed = firstEvent(rebuild, "public.inc_p1", TableProgress.Status.COMPLETED);
            assertTrue(p2Started < p1Completed, "inc_p2 started (progress event " + p2Started
                    + ") before inc_p1 completed (event " + p1Completed + ")");
            await(sql.query("INSERT INTO inc_p1 VALUES (-1, 'sentinel', 0)"));
            waitUntil("the sentinel", Duration.ofSeconds(60), () -> rebuild.sentinelSeen);
            await(stream.stop());
            snaps.close();

            TableProgress p2 = rebuild.progress.get("public.inc_p2");
            assertEquals(6000, p2.rows(), "inc_p2 had no writes: every row read once");
            assertTrue(p2.chunks() >= 30 && p2.estimatedRows() > 0, String.valueOf(p2));
            assertTrue(during > 20, "workload ran: " + during);
            Map<String, String> expected = new HashMap<>();
            for (String t : new String[] {"inc_p1", "inc_p2"}) {
                IncSupport.source(sql, t).forEach((k, v) -> expected.put(t + ":" + k, v));
            }
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their key: " + rebuild.violations);
                assertEquals(rebuild.reads, rebuild.progress.get("public.inc_p1").rows() + p2.rows(), "progress counts the reads");
            }
            assertEquals(expected, rebuild.rowsCopy());
        } finally {
            stop.set(true);
        }
    }

    private static int firstEvent(Rebuild r, String table, TableProgress.Status status) {
        synchronized (r.progressEvents) {
            for (int i = 0; i < r.progressEvents.size(); i++) {
                TableProgress p = r.progressEvents.get(i);
                if (p.table().equals(table) && p.status() == status) return i;
            }
        }
        return Integer.MAX_VALUE;
    }

    private static boolean done(Rebuild r, String t) {
        TableProgress p = r.progress.get(t);
        return p != null && (p.status() == TableProgress.Status.COMPLETED || p.status() == TableProgress.Status.FAILED);
    }
}
