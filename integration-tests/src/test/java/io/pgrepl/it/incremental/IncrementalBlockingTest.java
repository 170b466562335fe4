package io.pgrepl.it.incremental;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalBlocking;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.record.Begin;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The blocking face: one iterator hands over the stream's changes and the incremental snapshot's
 * reads (marked {@link ChangeEvent#snapshotRead()}), reads only between transactions; a change's
 * acknowledgement confirms the slot, a read's does nothing. 18 with message watermarks, 10 with
 * the signal table.
 */
@PgTest
class IncrementalBlockingTest {
    private static final int ROWS = 1500;

    @Test
    void readsAndChangesFromOneIteratorOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, "inc_blk18", false);
    }

    @Test
    void readsAndChangesFromOneIteratorOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, "inc_blk10", true);
    }

    private static void run(PgServer s, String slot, boolean signalTable) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS inc_blk_pub; DROP TABLE IF EXISTS inc_blk, inc_blk_signal;"
                + " CREATE TABLE inc_blk (id int PRIMARY KEY, v text); INSERT INTO inc_blk SELECT g, 'b' || g FROM generate_series(1, "
                + ROWS + ") g; CREATE TABLE inc_blk_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                + " CREATE PUBLICATION inc_blk_pub FOR TABLE inc_blk" + (signalTable ? ", inc_blk_signal" : ""));
        Map<String, String> reads = new HashMap<>();
        int changesDuring = 0;
        long afterCommit = 0;
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, slot);
            LogicalReplicationOptions o = LogicalReplicationOptions.builder(slot).publications("inc_blk_pub")
                    .messages(signalTable ? null : Boolean.TRUE).statusInterval(Duration.ofMillis(100)).build();
            IncrementalOptions io = IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(100);
            if (signalTable) io = io.withSignalTable("public.inc_blk_signal");
            try (IncrementalBlocking face = IncrementalBlocking.open(repl, o, FlowOptions.defaults(), io, 64)) {
                face.snapshots().execute("inc_blk");
                boolean inTx = false;
                boolean sentAfter = false;
                boolean sawAfter = false;
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (afterCommit == 0) {
                    if (System.nanoTime() > deadline) fail("timed out: " + reads.size() + " reads");
                    ChangeEvent e = face.changes().poll(Duration.ofSeconds(1));
                    if (e == null) continue;
                    if (e.snapshotRead()) {
                        assertFalse(inTx, "a read inside a transaction");
                        Insert i = (Insert) e.record();
                        assertEquals("inc_blk", e.table());
                        assertNull(reads.put(i.newTuple().text(0), i.newTuple().text(1)), "read twice: " + i.newTuple().text(0));
                        e.acknowledge(); // a read carries no position of its own: nothing is confirmed
                        if (reads.size() == 300) {
                            // a change while the snapshot runs, to a key read already (it wins: applied after its read)
                            await(sql.query("UPDATE inc_blk SET v = 'changed' WHERE id = 5"));
                        }
                        if (reads.size() == ROWS && !sentAfter) {
                            sentAfter = true;
                            await(sql.query("INSERT INTO inc_blk VALUES (-1, 'after')"));
                        }
                        continue;
                    }
                    if (e.record() instanceof Begin) inTx = true;
                    if (e.record() instanceof Insert i && "inc_blk".equals(e.table()) && "-1".equals(i.newTuple().text(0))) sawAfter = true;
                    if (e.record() instanceof io.pgrepl.codec.pgoutput.record.Update u && "inc_blk".equals(e.table())) {
                        changesDuring++;
                        assertEquals("5", u.newTuple().text(0));
                        assertEquals("b5", reads.get("5"), "the read of key 5 came before its change");
                        reads.put("5", u.newTuple().text(1));
                    }
                    if (e.record() instanceof Commit c) {
                        inTx = false;
                        if (sawAfter) afterCommit = c.endLsn();
                    }
                    e.acknowledge();
                }
                long confirmed = afterCommit;
                IncSupport.waitUntil("the slot confirmed the acknowledged commit", Duration.ofSeconds(30),
                        () -> {
                            try {
                                return Long.compareUnsigned(IncSupport.confirmedFlush(sql, slot), confirmed) >= 0;
                            } catch (Exception x) {
                                throw new IllegalStateException(x);
                            }
                        });
                assertTrue(face.snapshots().state().length() > 0);
            }
        }
        assertEquals(ROWS, reads.size(), "every row read once");
        assertEquals(1, changesDuring, "the change made during the snapshot");
        for (int id = 1; id <= ROWS; id++) assertEquals(id == 5 ? "changed" : "b" + id, reads.get(String.valueOf(id)), "row " + id);
    }
}
