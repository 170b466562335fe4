package io.pgrepl.it.stream;

import static io.pgrepl.it.stream.StreamSupport.await;
import static io.pgrepl.it.stream.StreamSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.IdentifySystem;
import io.pgrepl.client.replication.TimelineHistory;
import io.pgrepl.client.stream.PhysicalReplicationOptions;
import io.pgrepl.client.stream.PhysicalReplicationStream;
import io.pgrepl.client.stream.PhysicalStreamHandler;
import io.pgrepl.client.stream.TimelineSwitch;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.replication.XLogData;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgMatrixTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The physical end-of-timeline handshake on one real server: it is restarted as a standby with
 * no primary and promoted, so timeline 1 ends. Streaming timeline 1 from before the switch must
 * give every WAL byte up to the switch point, then the server's CopyDone, our CopyDone, the
 * (next timeline, switch LSN) row, CommandComplete and ReadyForQuery: a normal completion with
 * {@link PhysicalReplicationStream#timelineSwitch()} matching TIMELINE_HISTORY 2.
 * Each major's server is promoted once, so this class keeps its own servers.
 */
class TimelineSwitchTest {
    private static final Logger log = LoggerFactory.getLogger(TimelineSwitchTest.class);

    @PgMatrixTest
    void endOfTimelineHandshake(PgServer s) throws Exception {
        long start;
        try (PgConnection phys = connect(s, ReplicationMode.PHYSICAL)) {
            IdentifySystem before = await(phys.identifySystem());
            assertEquals(1, before.timeline());
            // The slot keeps timeline 1's WAL from the start position through the restart and promotion.
            await(phys.createReplicationSlot(CreateSlotOptions.physical("it_tli").withReserveWal(true)));
            start = before.xlogPos() & ~0xFFFFFFL;
        }
        s.sql("postgres", "CREATE TABLE it_tli_t (id int); INSERT INTO it_tli_t SELECT generate_series(1, 100)");
        s.restartAsStandby();
        s.promote();

        try (PgConnection phys = connect(s, ReplicationMode.PHYSICAL)) {
            assertEquals(2, await(phys.identifySystem()).timeline());
            TimelineHistory history = await(phys.timelineHistory(2));
            // "1<TAB>X/X<TAB>reason": the parent timeline and where it ended.
            String[] line = new String(history.content(), StandardCharsets.UTF_8).strip().split("\n")[0].split("\t");
            assertEquals("1", line[0].trim());
            long historySwitch = Lsn.parse(line[1].trim());

            AtomicLong highest = new AtomicLong();
            AtomicLong messages = new AtomicLong();
            PhysicalReplicationStream st = phys.startPhysical(new PhysicalReplicationOptions("it_tli", start, 1,
                    Duration.ofMillis(200), Duration.ofSeconds(30)), new PhysicalStreamHandler() {
                @Override
                public void onWal(XLogData wal) {
                    messages.incrementAndGet();
                    highest.accumulateAndGet(wal.walStart() + wal.dataLength(), Math::max);
                }
            });
            await(st.completion()); // normal completion: no stop() was called, the timeline ended
            TimelineSwitch sw = st.timelineSwitch().orElseThrow(() -> new AssertionError("no timeline switch row"));
            assertEquals(2, sw.nextTimeline());
            assertEquals(historySwitch, sw.switchLsn(), "switch LSN = TIMELINE_HISTORY 2's");
            assertEquals(historySwitch, highest.get(), "timeline 1's WAL streamed exactly up to the switch point");
            assertTrue(messages.get() > 0);
            assertTrue(phys.isOpen(), "ReadyForQuery after the handshake: the connection is reusable");
            // ... for instance to continue on the next timeline from the switch point.
            assertEquals(2, await(phys.identifySystem()).timeline());
            log.info("PG{}: timeline 1 ended at {}, {} XLogData messages from {}", s.majorVersion(),
                    Lsn.format(sw.switchLsn()), messages.get(), Lsn.format(start));
            await(phys.dropReplicationSlot("it_tli", false));
        }
    }
}
