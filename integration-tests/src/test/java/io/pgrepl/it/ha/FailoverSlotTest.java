package io.pgrepl.it.ha;

import static io.pgrepl.it.ha.HaSupport.await;
import static io.pgrepl.it.ha.HaSupport.host;
import static io.pgrepl.it.ha.HaSupport.majors;
import static io.pgrepl.it.ha.HaSupport.scalar;
import static io.pgrepl.it.ha.HaSupport.waitStreaming;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.TargetSessionAttrs;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.StopMode;
import io.pgrepl.it.ha.HaSupport.Recorder;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failover, on PostgreSQL 17 and 18: a logical stream from a failover slot on a primary
 * with a physical standby (sync_replication_slots on the standby, synchronized_standby_slots on
 * the primary). The primary is stopped abruptly (immediate) with transactions in flight and the
 * standby promoted; {@link ReconnectingLogicalStream}, given both hosts with
 * target_session_attrs=read-write, finds the new primary and resumes from the synchronised slot.
 * Every transaction the new primary has is delivered; only unacknowledged ones come twice.
 */
class FailoverSlotTest {
    private static final Logger log = LoggerFactory.getLogger(FailoverSlotTest.class);
    private static final String SLOT = "ha_failover";

    @TestFactory
    Stream<DynamicTest> streamFollowsAPromotedStandby() {
        return majors(17, 18).stream().map(v -> dynamicTest("PG " + v, () -> failover(v)));
    }

    private void failover(int major) throws Exception {
        try (PgServer primary = PgServer.builder().version(major).setting("wal_sender_timeout", "5s").start()) {
            primary.sql("postgres", "CREATE TABLE ha_t (id int PRIMARY KEY); CREATE PUBLICATION ha_pub FOR TABLE ha_t");
            try (PgServer standby = primary.startStandby("ha_standby")) {
                try (PgConnection repl = HaSupport.replication(primary)) {
                    await(repl.createReplicationSlot(CreateSlotOptions.logical(SLOT, "pgoutput")
                            .withSnapshot(SnapshotMode.NOTHING).withFailover(true)));
                }
                awaitSyncedSlot(primary, standby);

                Recorder rec = new Recorder();
                ReconnectingLogicalStream r = ReconnectingLogicalStream.start(
                        HaSupport.multiHost(primary, List.of(host(primary), host(standby)))
                                .targetSessionAttrs(TargetSessionAttrs.READ_WRITE).replication(ReplicationMode.DATABASE).build(),
                        LogicalReplicationOptions.builder(SLOT).publications("ha_pub")
                                .statusInterval(Duration.ofMillis(200)).build(),
                        rec, new ReconnectPolicy(Duration.ofMillis(200), Duration.ofSeconds(1), 2, 0.2, 120));
                rec.owner = r;
                insert(primary, 1, 200);
                waitStreaming(r, "the first 200 rows", Duration.ofSeconds(60), () -> rec.distinct() == 200);
                assertEquals(primary.port(), rec.lastConnection.config().port(), "streaming from the primary first");

                // In flight at the crash: some delivered and acknowledged, some not, some never sent.
                insert(primary, 201, 400);
                waitStreaming(r, "some of the next rows", Duration.ofSeconds(60), () -> rec.distinct() > 200);
                long acknowledgedAtCrash = r.acknowledgedLsn();
                primary.stop(StopMode.IMMEDIATE);
                standby.promote();

                insert(standby, 1001, 1100);
                waitStreaming(r, "the rows written on the promoted standby", Duration.ofSeconds(90),
                        () -> rec.deliveries.containsKey(1100));
                assertEquals(standby.port(), rec.lastConnection.config().port(), "the stream moved to the promoted standby");
                assertTrue(r.reconnects() >= 1, "a reconnect happened");
                assertTrue(rec.starts.get() >= 2, "the handler saw a second start");

                Set<Integer> onNewPrimary = ids(standby);
                Set<Integer> delivered = new HashSet<>(rec.deliveries.keySet());
                assertEquals(onNewPrimary, delivered, "delivered exactly what the new primary has");
                for (int id = 1; id <= 200; id++) {
                    assertEquals(1, rec.deliveries.get(id).get(), "row " + id + " was acknowledged before the crash: never again");
                }
                log.info("PG{}: {} rows on the new primary, all delivered; {} delivered twice (unacknowledged tail);"
                                + " acknowledged at crash {}, {} reconnects", major, onNewPrimary.size(), rec.duplicated(),
                        io.pgrepl.codec.Lsn.format(acknowledgedAtCrash), r.reconnects());
                await(r.stop());
            }
        }
    }

    /** One transaction per 10 rows. */
    private static void insert(PgServer s, int from, int to) throws Exception {
        StringBuilder sql = new StringBuilder();
        for (int i = from; i <= to; i += 10) {
            sql.append("INSERT INTO ha_t SELECT generate_series(").append(i).append(", ").append(Math.min(to, i + 9)).append(");");
        }
        s.sql("postgres", sql.toString());
    }

    private static Set<Integer> ids(PgServer s) throws Exception {
        try (PgConnection c = HaSupport.sql(s)) {
            Set<Integer> out = new HashSet<>();
            await(c.query("SELECT id FROM ha_t")).rows().forEach(row -> out.add(Integer.parseInt(row.get(0))));
            return out;
        }
    }

    /**
     * Waits until the standby holds the slot as a usable synced copy (synced AND NOT temporary).
     * A standby whose first sync found xids consumed since keeps a temporary slot ("remote slot
     * needs catalog xmin"): a standby snapshot logged on the primary plus a reload on the standby
     * (which wakes the slot-sync worker out of its back-off) gets past that in seconds.
     */
    private static void awaitSyncedSlot(PgServer primary, PgServer standby) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        int round = 0;
        while (!"t".equals(scalar(standby, "SELECT count(*) = 1 FROM pg_replication_slots WHERE slot_name = '" + SLOT
                + "' AND synced AND NOT temporary"))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the standby never synchronised slot " + SLOT + ": "
                        + scalar(standby, "SELECT string_agg(slot_name || ' synced=' || synced || ' temporary=' || temporary, ', ')"
                                + " FROM pg_replication_slots"));
            }
            primary.sql("postgres", "SELECT pg_log_standby_snapshot()");
            if (++round % 4 == 0) standby.reload(Map.of());
            Thread.sleep(250);
        }
    }

}
