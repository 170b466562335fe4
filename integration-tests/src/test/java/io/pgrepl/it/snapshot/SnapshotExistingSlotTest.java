package io.pgrepl.it.snapshot;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static io.pgrepl.it.snapshot.SnapshotSupport.failure;
import static io.pgrepl.it.snapshot.SnapshotSupport.scalar;
import static io.pgrepl.it.snapshot.SnapshotSupport.slotExists;
import static io.pgrepl.it.snapshot.SnapshotSupport.workerSessions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.SnapshotException;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.SnapshotResult;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link SnapshotOptions#withExistingSlot}: a copy under a fresh exported snapshot beside a slot
 * that is kept as it is (the Kafka connector re-copies this way after an interrupted copy): the
 * slot is neither created, moved nor dropped, on success or failure, and the copy sees the rows
 * as of now, not as of the slot's creation.
 */
@PgTest
@PgServerConfig(version = 18)
class SnapshotExistingSlotTest {
    private static SnapshotOptions options(String slot, String pub) {
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder(slot).publications(pub).build();
        return SnapshotOptions.of(stream).withWorkers(2).withUnitPages(8).withExistingSlot(true);
    }

    @Test
    void copiesTodaysRowsAndLeavesTheSlotAsItWas(PgServer s) throws Exception {
        s.sql("postgres", "CREATE TABLE ex_t (id int PRIMARY KEY, v text); CREATE PUBLICATION ex_pub FOR TABLE ex_t;"
                + " INSERT INTO ex_t SELECT g, md5(g::text) FROM generate_series(1, 100) g");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical("ex_slot", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
            String confirmed = scalar(sql, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'ex_slot'");
            s.sql("postgres", "INSERT INTO ex_t SELECT g, 'late' FROM generate_series(101, 150) g; DELETE FROM ex_t WHERE id <= 10");
            AtomicInteger reads = new AtomicInteger();
            SnapshotResult r = await(InitialSnapshot.copy(repl, options("ex_slot", "ex_pub"), (row, lsn) -> reads.incrementAndGet()));
            assertEquals(140, reads.get(), "the rows as they are now: 150 inserted, 10 deleted after the slot was created");
            assertEquals(140, r.rows());
            assertTrue(Lsn.compare(r.consistentPoint(), Lsn.parse(confirmed)) > 0, "the export's position is after the slot's");
            assertEquals(confirmed, scalar(sql, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'ex_slot'"),
                    "the slot did not move");
            // A backend leaves pg_stat_activity a moment after its client's Terminate: wait for it.
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (workerSessions(sql) != 0 && System.nanoTime() < end) Thread.sleep(50);
            assertEquals(0, workerSessions(sql), "the workers and the exporting session are gone");
            await(repl.dropReplicationSlot("ex_slot", false));
        }
    }

    @Test
    void aFailedCopyKeepsTheSlot(PgServer s) throws Exception {
        s.sql("postgres", "CREATE TABLE exf_t (id int PRIMARY KEY, v text); CREATE PUBLICATION exf_pub FOR TABLE exf_t;"
                + " INSERT INTO exf_t SELECT g, md5(g::text) FROM generate_series(1, 100) g");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical("exf_slot", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
            Throwable t = failure(InitialSnapshot.copy(repl, options("exf_slot", "exf_pub"), (row, lsn) -> {
                throw new IllegalStateException("the handler fails");
            }));
            assertEquals(SnapshotException.Kind.HANDLER_FAILED, assertInstanceOf(SnapshotException.class, t).kind());
            assertTrue(slotExists(sql, "exf_slot"), "the existing slot was kept");
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (workerSessions(sql) != 0 && System.nanoTime() < end) Thread.sleep(50);
            assertEquals(0, workerSessions(sql), "no session left behind");
            await(repl.dropReplicationSlot("exf_slot", false));
        }
    }
}
