package io.pgrepl.it.faces;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.pgrepl.it.faces.FacesSupport.await;
import static io.pgrepl.it.faces.FacesSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The blocking iterator on a plain thread: in order, poll timeout, acknowledgement reaches the slot, clean close. */
class BlockingIteratorTest {
    @PgMatrixTest(newestAndOldest = true) // a face over the same stream: the major does not change it
    void iteratesAcknowledgesAndCloses(PgServer s) throws Exception {
        FacesSupport.setup(s, "fblk");
        s.sql("postgres", "INSERT INTO fblk SELECT g, 'v' || g FROM generate_series(1, 50) g");
        s.sql("postgres", "INSERT INTO fblk VALUES (51, 'last')");
        List<Integer> ids = new ArrayList<>();
        long lastCommitEnd = 0;
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            try (BlockingChanges<ChangeEvent> it = BlockingChanges.open(repl, FacesSupport.options("fblk").build(),
                    FlowOptions.defaults(), 8)) {
                while (ids.size() < 51 && it.hasNext()) {
                    ChangeEvent e = it.next();
                    if (e.record() instanceof Insert i) ids.add(Integer.parseInt(i.newTuple().get("id").text()));
                    if (e.record() instanceof Commit c) lastCommitEnd = c.endLsn();
                    e.acknowledge();
                }
                ChangeEvent commit = it.poll(Duration.ofSeconds(30));
                assertTrue(commit.record() instanceof Commit, String.valueOf(commit));
                lastCommitEnd = ((Commit) commit.record()).endLsn();
                commit.acknowledge();
                assertNull(it.poll(Duration.ofMillis(300)), "nothing more");
            } // close: CopyDone, waits for the server's end of copy
            // the connection is usable again after a clean stop
            assertEquals(1, await(repl.simpleQuery("IDENTIFY_SYSTEM")).get(0).rows().size());
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 1; i <= 51; i++) expected.add(i);
        assertEquals(expected, ids);
        try (PgConnection sql = connect(s, ReplicationMode.NONE)) {
            long confirmed = Lsn.parse(await(sql.query("SELECT confirmed_flush_lsn FROM pg_replication_slots"
                    + " WHERE slot_name = 'fblk'")).singleRow().get(0));
            assertTrue(Long.compareUnsigned(confirmed, lastCommitEnd) >= 0,
                    "slot confirmed " + Lsn.format(confirmed) + " >= " + Lsn.format(lastCommitEnd));
        }
        FacesSupport.dropSlot(s, "fblk");
    }
}
