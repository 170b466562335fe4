package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.confirmedFlush;
import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Resumption: the application acknowledges every commit and stores the engine's state with it.
 * Mid-snapshot the walsender and the chunk connections are terminated (the stream and a chunk die
 * with them); a new stream from the stored LSN and a new engine from the stored state go on from
 * the last emitted chunk, not from the start, and the rebuilt table is exact. Meanwhile the slot's
 * confirmed_flush_lsn moves forward while the table is being read.
 */
@PgTest
class IncrementalResumeTest {

    @Test
    void resumesAtTheLastChunkAndConfirmsTheSlotMeanwhile(@PgServerConfig(version = 18) PgServer s) throws Exception {
        String table = "inc_resume";
        String slot = "inc_resume";
        int rows = 30_000;
        IncrementalExactnessTest.setup(s, table, rows);
        Rebuild rebuild = new Rebuild(table);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong txs = new AtomicLong();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection work = connect(s, ReplicationMode.NONE);
             PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, slot);
            LogicalReplicationOptions.Builder o = LogicalReplicationOptions.builder(slot).publications(IncrementalExactnessTest.PUB)
                    .messages(true).statusInterval(Duration.ofMillis(100));
            IncrementalOptions io = IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(200);
            IncrementalSnapshots first = IncrementalSnapshots.create(io, rebuild);
            rebuild.checkpointing = first;
            LogicalReplicationStream stream = repl.startLogical(o.build(), first);
            await(stream.started());
            Thread w = IncrementalExactnessTest.workload(work, table, rebuild, stop, txs, new AtomicBoolean(), rows);
            first.execute(table);
            String t = "public." + table;
            waitUntil("10 chunks", Duration.ofSeconds(60), () -> chunks(rebuild, t) >= 10);
            long flushedEarly = confirmedFlush(sql, slot);
            waitUntil("60 chunks", Duration.ofSeconds(60), () -> chunks(rebuild, t) >= 60);
            long flushedLater = confirmedFlush(sql, slot);
            assertTrue(rebuild.status(t, TableProgress.Status.RUNNING), "still snapshotting");
            assertTrue(Lsn.compare(flushedLater, flushedEarly) > 0, "confirmed_flush_lsn moved during the snapshot: "
                    + Lsn.format(flushedEarly) + " -> " + Lsn.format(flushedLater));

            // Kill the walsender and the chunk connections; keep what the application stored.
            rebuild.checkpointing = null;
            Rebuild.Checkpoint cp = rebuild.checkpoint;
            assertNotNull(cp);
            await(sql.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pgrepl-incremental'"
                    + " OR pid = (SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "')"));
            waitUntil("the stream's end", Duration.ofSeconds(30), () -> stream.completion().toCompletableFuture().isDone());
            first.close();
            long readsBefore = rebuild.reads();
            rebuild.progress.clear();
            rebuild.firstReadKey = -1;

            try (PgConnection repl2 = connect(s, ReplicationMode.DATABASE)) {
                waitUntil("the slot released", Duration.ofSeconds(30), () -> {
                    try {
                        return "f".equals(await(sql.query("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                                .singleRow().get(0));
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                IncrementalSnapshots second = IncrementalSnapshots.create(io.withResumeState(cp.state()), rebuild);
                LogicalReplicationStream stream2 = repl2.startLogical(o.startLsn(cp.lsn()).autoAcknowledge(true).build(), second);
                await(stream2.started());
                waitUntil("the resumed snapshot's end", Duration.ofSeconds(90), () -> rebuild.status(t, TableProgress.Status.COMPLETED)
                        || rebuild.status(t, TableProgress.Status.FAILED));
                assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get(t).status(), String.valueOf(rebuild.progress.get(t)));
                stop.set(true);
                w.join(30_000);
                await(sql.query("INSERT INTO " + table + " VALUES (-1, 'sentinel', 0)"));
                waitUntil("the sentinel", Duration.ofSeconds(60), () -> rebuild.sentinelSeen);
                await(stream2.stop());
                second.close();
            }
            // The stored state named the last emitted key: the second engine started after it, far from the start.
            assertTrue(rebuild.firstReadKey > 2 * 200 * 8, "resumed past the chunks emitted before: first read " + rebuild.firstReadKey);
            assertTrue(rebuild.reads() - readsBefore < rows - 8 * 200, "not read again from the start: " + (rebuild.reads() - readsBefore));
            Map<String, String> expected = IncSupport.source(sql, table);
            Map<String, String> got = rebuild.rowsCopy();
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their key: " + rebuild.violations);
            }
            assertEquals(expected, got);
        } finally {
            stop.set(true);
        }
    }

    private static long chunks(Rebuild r, String t) {
        TableProgress p = r.progress.get(t);
        return p == null ? 0 : p.chunks();
    }
}
